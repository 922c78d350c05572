"""The one settings model: layering (file < env < flag), unknown keys refused, every entry point reading it."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from horma import resources
from horma.cli import app
from horma.config import KEYS, ConfigError, Settings, load_config, settings_table
from horma.memory import Memory
from horma.workspace import Unit

ROOT = Path(__file__).resolve().parent.parent
runner = CliRunner()
UNITS = [
    Unit(f"D1:{i}", "2023-05-08 13:56", "Priya", f"On day {i} Priya walked her cat Miso around the lake and the park.")
    for i in range(1, 40)
]


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """No user config file and no HORMA_* or provider variables but the ones a test sets."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    for name in list(os.environ):
        if name.startswith("HORMA_") or name.endswith(("_API_KEY", "_BASE_URL")):
            monkeypatch.delenv(name)
    return tmp_path


def test_budget_and_backend_layer_defaults_file_env_flag(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cfg = load_config()
    assert (cfg.recall.budget, cfg.sandbox.backend) == (1000, "auto")
    assert cfg.sources["recall.budget"] == "default"
    file = home / "c.yaml"
    file.write_text("recall:\n  budget: 300\nsandbox:\n  backend: bwrap\n")
    cfg = load_config(file)
    assert (cfg.recall.budget, cfg.sandbox.backend) == (300, "bwrap")
    assert cfg.sources["recall.budget"] == cfg.sources["sandbox.backend"] == str(file)
    monkeypatch.setenv("HORMA_RECALL_BUDGET", "400")
    monkeypatch.setenv("HORMA_SANDBOX_BACKEND", "local")
    cfg = load_config(file)
    assert (cfg.recall.budget, cfg.sandbox.backend) == (400, "local")
    assert cfg.sources["recall.budget"] == "env HORMA_RECALL_BUDGET"
    cfg = load_config(file, {"recall.budget": 500, "sandbox.backend": "docker"})
    assert (cfg.recall.budget, cfg.sandbox.backend) == (500, "docker")
    assert cfg.sources["recall.budget"] == cfg.sources["sandbox.backend"] == "flag"
    cfg = load_config(file, {"recall.budget": None, "sandbox.backend": None})  # a flag left out: the env's value
    assert (cfg.recall.budget, cfg.sandbox.backend) == (400, "local")


def test_unknown_keys_are_refused_with_the_known_ones(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    file = home / "c.yaml"
    file.write_text("recall:\n  budjet: 300\n")
    with pytest.raises(ConfigError, match=r"c\.yaml: unknown config key 'recall\.budjet'; known keys: recall\.budget$"):
        load_config(file)
    file.write_text("colour: red\n")
    with pytest.raises(ConfigError, match=r"unknown config key 'colour'; known keys: models\.manager, .*max_body$"):
        load_config(file)
    with pytest.raises(ConfigError, match=r"flag: unknown config key 'recall\.size'"):
        load_config(overrides={"recall.size": 3})
    monkeypatch.setenv("HORMA_RECALL_BUDJET", "5")
    with pytest.raises(ConfigError, match=r"env HORMA_RECALL_BUDJET: not a horma setting; known variables: "
                                          r"HORMA_RECALL_BUDGET$"):
        load_config()
    monkeypatch.delenv("HORMA_RECALL_BUDJET")
    for name in ("HORMA_CONFIG_DIR", "HORMA_CI", "HORMA_INDEX", "HORMA_EMBED_MODEL"):  # not named after a section
        monkeypatch.setenv(name, "1")
    assert load_config().recall.budget == 1000


def test_bad_values_name_the_key_and_where_they_were_set(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HORMA_RECALL_BUDGET", "0")
    with pytest.raises(ConfigError, match=r"env HORMA_RECALL_BUDGET: recall\.budget: input should be greater "
                                          r"than or equal to 1, got '0'$"):
        load_config()
    monkeypatch.delenv("HORMA_RECALL_BUDGET")
    with pytest.raises(ConfigError, match=r"flag: sandbox\.backend: unknown sandbox backend; choose one of docker, "
                                          r"bwrap, local or auto, got 'podman'$"):
        load_config(overrides={"sandbox.backend": "podman"})
    monkeypatch.setenv("HORMA_TRAJECTORIES_MAX_FILES", "null")
    assert load_config().trajectories.max_files is None


def test_the_budget_variable_reaches_a_cli_recall_and_memory(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ws = home / "mem"
    with Memory(ws, sandbox="local", settings=Settings()) as mem:
        mem.record(UNITS, slug="walks")
        assert mem.recall("Where did Priya walk Miso?").budget == 1000
    args = ["recall", str(ws), "Where did Priya walk Miso?", "--backend", "local", "--json"]
    wide = json.loads(runner.invoke(app, args).output)
    assert wide["budget"] == 1000 and wide["tokens"] > 60
    monkeypatch.setenv("HORMA_RECALL_BUDGET", "60")
    res = runner.invoke(app, args)
    assert res.exit_code == 0, res.output
    got = json.loads(res.output)
    assert got["budget"] == 60 and 0 < got["tokens"] <= 60
    got = json.loads(runner.invoke(app, [*args, "--budget", "80"]).output)  # the flag wins over the variable
    assert got["budget"] == 80
    with Memory(ws, sandbox="local") as mem:  # the library reads the same settings
        assert mem.settings.sources["recall.budget"] == "env HORMA_RECALL_BUDGET"
        assert mem.recall("Where did Priya walk Miso?").budget == 60
        assert mem.recall("Where did Priya walk Miso?", budget=70).budget == 70


NO_TIMELINE = """
- id: end_001
  kind: endogenous
  title: No Timeline
  principle: Leave the dated timeline out.
  when: always
  round: 1
  heuristic:
    timeline: false
"""


def test_memory_hands_its_settings_to_the_manager_and_retriever(home: Path) -> None:
    skills = home / "skills"
    skills.mkdir()
    shutil.copy(resources.SKILLS / "base.yaml", skills / "base.yaml")
    (skills / "locomo.yaml").write_text(NO_TIMELINE)
    with Memory(home / "default", sandbox="local", domain="locomo", settings=Settings()) as mem:
        mem.record(UNITS[:3], slug="walks")
        assert (mem.workspace.root / "notes" / "timeline.md").is_file()
    settings = Settings().override({"sandbox.backend": "local", "sandbox.timeout": 0.5, "agent.max_steps": 5,
                                    "skills.dir": str(skills), "policies.domain": "locomo"})
    with Memory(home / "mem", settings=settings) as mem:
        assert mem.manager.skills_dir == skills and mem.manager.domain == "locomo"
        assert mem.manager.limits.max_steps == mem.retriever.limits.max_steps == 5
        slow = mem.retriever.sandbox.exec("sleep 5")  # sandbox.timeout: half a second, not the default 10
        assert slow.timed_out and slow.elapsed_ms < 4000
        mem.record(UNITS[:3], slug="walks")  # the library of skills.dir: its locomo skill turns the timeline off
        assert not (mem.workspace.root / "notes" / "timeline.md").exists()


def test_configuration_doc_is_the_model_table() -> None:
    doc = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
    assert settings_table() in doc, "regenerate the table: horma config keys --markdown"


def test_config_keys_lists_every_setting_with_its_variable() -> None:
    res = runner.invoke(app, ["config", "keys", "--json"])
    assert res.exit_code == 0, res.output
    rows = json.loads(res.output)
    assert [r["key"] for r in rows] == list(KEYS)
    budget = next(r for r in rows if r["key"] == "recall.budget")
    assert budget["env"] == ["HORMA_RECALL_BUDGET"] and budget["default"] == 1000 and budget["description"]
    key = next(r for r in rows if r["key"] == "providers.openai.api_key")
    assert key["env"] == ["HORMA_PROVIDERS_OPENAI_API_KEY", "OPENAI_API_KEY"]
    assert runner.invoke(app, ["config", "keys", "--markdown"]).output == settings_table()


def test_the_mcp_server_builds_from_the_settings(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("mcp", reason="the mcp extra is not installed")
    import anyio

    from horma.mcp_server import build_server
    from horma.mcp_workspaces import Options, Workspaces

    for name, value in (("HORMA_RECALL_BUDGET", "60"), ("HORMA_MCP_MAX_OPEN", "3"), ("HORMA_MCP_IDLE_CLOSE", "0"),
                        ("HORMA_SANDBOX_BACKEND", "local")):
        monkeypatch.setenv(name, value)
    spaces = Workspaces(Options(load_config()), workspace=home / "mem")
    try:
        assert (spaces.pool.limits.max_open, spaces.pool.limits.idle_close) == (3, None)
        tools = {t.name: t for t in anyio.run(build_server(spaces).list_tools)}
        assert tools["recall"].inputSchema["properties"]["budget"]["default"] == 60  # a call naming no budget
        assert spaces.get(None).memory.settings.sandbox.backend == "local"
    finally:
        spaces.close()


def test_sandbox_exec_takes_its_backend_and_timeout_from_the_settings(home: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    Memory(home / "mem", settings=Settings()).close()  # an empty workspace
    monkeypatch.setenv("HORMA_SANDBOX_BACKEND", "local")
    monkeypatch.setenv("HORMA_SANDBOX_TIMEOUT", "0.5")
    res = runner.invoke(app, ["sandbox", "exec", str(home / "mem"), "--json", "--", "sleep 5"])
    got = json.loads(res.output)
    assert res.exit_code == 124 and got["backend"] == "local" and got["timed_out"] and got["elapsed_ms"] < 4000
    res = runner.invoke(app, ["sandbox", "exec", str(home / "mem"), "--timeout", "8", "--json", "--", "sleep 1"])
    assert res.exit_code == 0 and not json.loads(res.output)["timed_out"]  # the flag wins over the variable
