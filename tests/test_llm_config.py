"""Config precedence (defaults < file < env < flags), validation, masking; prompt rendering."""

from __future__ import annotations

import json

import pytest
from loopback import LoopbackServer, say
from typer.testing import CliRunner

from horma.cli import app
from horma.config import ConfigError, load_config
from horma.prompts import PromptError, render_prompt, render_prompt_from

KEY = "sk-ant-SECRET-abcdefghijklmnop"


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    for name in list(__import__("os").environ):
        if name.startswith("HORMA_") or name.endswith(("_API_KEY", "_BASE_URL")):
            monkeypatch.delenv(name, raising=False)
    return tmp_path


def test_defaults_then_user_file_then_env_then_flags(home, monkeypatch):
    cfg = load_config()
    assert cfg.model("retriever") == "anthropic:claude-sonnet-5-5" and cfg.get("agent.max_steps") == 30
    user = home / "xdg" / "horma" / "config.yaml"
    user.parent.mkdir(parents=True)
    user.write_text("models:\n  retriever: openai:gpt-4o-mini\nagent:\n  max_steps: 12\nllm:\n  timeout: 30\n")
    cfg = load_config()
    assert cfg.model("retriever") == "openai:gpt-4o-mini" and cfg.get("llm.timeout") == 30.0
    assert cfg.sources["agent.max_steps"] == str(user)
    monkeypatch.setenv("HORMA_AGENT_MAX_STEPS", "7")
    monkeypatch.setenv("HORMA_SANDBOX_UNSAFE_LOCAL", "yes")
    cfg = load_config()
    assert cfg.get("agent.max_steps") == 7 and cfg.get("sandbox.unsafe_local") is True
    assert cfg.sources["agent.max_steps"] == "env HORMA_AGENT_MAX_STEPS"
    cfg = load_config(overrides={"agent.max_steps": 3, "models.retriever": None})
    assert cfg.get("agent.max_steps") == 3 and cfg.model("retriever") == "openai:gpt-4o-mini"


def test_bad_config_is_one_clear_error(home, tmp_path):
    with pytest.raises(ConfigError, match="config file not found"):
        load_config(tmp_path / "missing.yaml")
    cases = {
        "llm:\n  timout: 3\n": "unknown config key 'llm.timout'; known keys: llm.max_tokens, ",
        "agent:\n  max_steps: many\n": "agent.max_steps: input should be a valid integer, .*got 'many'",
        "agent:\n  max_steps: 2.5\n": "agent.max_steps: input should be a valid integer",
        "models:\n  manager: [a, b]\n": "models.manager: input should be a valid string",
        "llm: [1\n": "malformed YAML at line",
        "- a list\n": "expected a mapping",
    }
    for text, error in cases.items():
        f = tmp_path / "c.yaml"
        f.write_text(text)
        with pytest.raises(ConfigError, match=error.replace("[", r"\[")):
            load_config(f)


def test_llm_built_from_config_uses_the_provider_key(home, monkeypatch):
    with LoopbackServer("openai", [say("configured")]) as srv:
        monkeypatch.setenv("OPENAI_API_KEY", KEY)
        cfg = load_config(overrides={"models.judge": f"openai:gpt-4o-mini@{srv.base_url}", "llm.max_retries": 0})
        assert cfg.llm_options(cfg.model("judge"))["api_key"] == KEY
        llm = cfg.llm_for("judge")
        assert llm.complete("", [{"role": "user", "content": "hi"}]).text == "configured"
    assert srv.requests[0].headers["authorization"] == f"Bearer {KEY}"


def test_config_show_masks_secrets(home, monkeypatch, tmp_path):
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    f = tmp_path / "c.yaml"
    f.write_text("providers:\n  openai:\n    api_key: sk-short\n")
    runner = CliRunner()
    for args in (["config", "show", "-c", str(f)], ["config", "show", "-c", str(f), "--sources"],
                 ["config", "show", "-c", str(f), "--json", "--sources"]):
        res = runner.invoke(app, args)
        assert res.exit_code == 0, res.output
        assert KEY not in res.output and "sk-short" not in res.output and "****mnop" in res.output
    data = json.loads(res.output)
    assert data["config"]["providers"]["openai"]["api_key"] == "****"
    assert data["config"]["llm"]["max_tokens"] == 4096
    assert data["sources"]["providers.anthropic.api_key"] == "env ANTHROPIC_API_KEY"
    res = runner.invoke(app, ["config", "show", "-c", str(tmp_path / "nope.yaml")])
    assert res.exit_code == 5 and "config file not found" in res.output


def test_render_prompt(tmp_path):
    (tmp_path / "hello.md.j2").write_text("Hi {{ name }}.\n{% if extra %}\nExtra.\n{% endif %}\n")
    assert render_prompt_from(tmp_path, "hello", name="Ana", extra=False) == "Hi Ana.\n"
    with pytest.raises(PromptError, match="'name' is undefined"):
        render_prompt_from(tmp_path, "hello", extra=True)
    with pytest.raises(PromptError, match="no prompt template 'nope'"):
        render_prompt("nope")
    assert "exactly ONE action" in render_prompt("text_protocol", has_bash=True, tools=[])
