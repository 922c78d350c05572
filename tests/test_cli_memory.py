"""The ingest / recall / ask / demo / trace commands, as a user runs them."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
from typer.testing import CliRunner

from horma.cli import app
from horma.resources import EXAMPLES
from horma.workspace import Workspace

runner = CliRunner()
DEMO = EXAMPLES / "demo_conversation.jsonl"
TOPICS = ["the garden", "a new job", "the dog", "a trip to Lima", "the piano", "a marathon", "the bakery"]


@pytest.fixture(autouse=True)
def no_user_config(tmp_path_factory, monkeypatch):
    """The tests see horma's defaults only: no user config file, no keys, no HORMA_* settings."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path_factory.mktemp("xdg")))
    for name in list(os.environ):
        if name.startswith("HORMA_") or name in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY"):
            monkeypatch.delenv(name)


def locomo_sample(sid: str, sessions: int, turns: int, a: str = "Ines", b: str = "Omar") -> dict:
    """A conversation in the locomo10.json format, written for these tests."""
    conv: dict = {"speaker_a": a, "speaker_b": b}
    for s in range(1, sessions + 1):
        conv[f"session_{s}_date_time"] = f"{1 + s % 12}:{s % 60:02d} pm on {1 + s % 28} May, 2023"
        conv[f"session_{s}"] = [
            {"speaker": (a, b)[t % 2], "dia_id": f"D{s}:{t}",
             "text": f"Session {s} turn {t}: we talked about {TOPICS[(s + t) % len(TOPICS)]} number {s * 100 + t}."}
            for t in range(1, turns + 1)
        ]
    conv["session_2_date_time"] = "10:15 am on 14 June, 2023"
    conv["session_1"][2] = {"speaker": a, "dia_id": "D1:3", "text": "Look at this!",
                            "img_url": ["http://example.invalid/x.jpg"], "blip_caption": "a photo of a red kite"}
    qa = [{"question": f"What about {TOPICS[0]}?", "answer": "x", "evidence": ["D1:1"], "category": 4}]
    return {"sample_id": sid, "conversation": conv, "qa": qa, "observation": {}, "session_summary": {},
            "event_summary": {}}


@pytest.fixture
def locomo_file(tmp_path) -> Path:
    f = tmp_path / "locomo.json"
    f.write_text(json.dumps([locomo_sample("conv-a", 3, 6), locomo_sample("conv-b", 2, 5, "Lea", "Kim")]))
    return f


def ok(args: list[str]):
    res = runner.invoke(app, [str(a) for a in args])
    assert res.exit_code == 0, res.output
    return res


def err(args: list[str], message: str):
    res = runner.invoke(app, [str(a) for a in args])
    assert res.exit_code != 0, res.output
    assert message in " ".join(res.output.split()), res.output
    assert "Traceback" not in res.output
    return res


def tree_state(root: Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*")) if root.exists() else []


# -- ingest ------------------------------------------------------------------------
def test_ingest_locomo_builds_one_workspace_per_conversation(tmp_path, locomo_file):
    ws = tmp_path / "ws"
    res = ok(["ingest", "locomo", locomo_file, "--workspace", ws, "--backend", "local", "--json"])
    out = json.loads(res.stdout[res.stdout.index("{"):])
    assert out["archived"] == 3 * 6 + 2 * 5 and out["skipped"] == 0 and out["segments"] == 5
    a = Workspace.open(ws / "conv-a")
    assert sorted(os.listdir(ws)) == ["conv-a", "conv-b"]
    lines = {r.unit.id: r for r in a.iter_raw()}
    assert lines["D2:1"].unit.time == "2023-06-14 10:15"
    assert "a photo of a red kite" in lines["D1:3"].unit.text
    assert a.note_files()
    log = (a.meta / "ingest.log").read_text()
    assert f"{locomo_file}#conv-a" in log
    again = ok(["ingest", "locomo", locomo_file, "--workspace", ws, "--backend", "local", "--json"])
    assert json.loads(again.stdout[again.stdout.index("{"):])["archived"] == 0


def test_ingest_locomo_sample_filter(tmp_path, locomo_file):
    ok(["ingest", "locomo", locomo_file, "-w", tmp_path / "ws", "--sample", "conv-b", "--backend", "local"])
    assert os.listdir(tmp_path / "ws") == ["conv-b"]
    err(["ingest", "locomo", locomo_file, "-w", tmp_path / "ws", "--sample", "conv-z", "--backend", "local"],
        "no sample 'conv-z'")


@pytest.mark.parametrize("mutate, message", [
    (lambda d: d[0]["conversation"].__setitem__("session_2", []), "sample conv-a: conversation: session_2 is empty"),
    (lambda d: d[0]["conversation"]["session_1"][0].pop("text"), "missing field 'text'"),
    (lambda d: d[1]["conversation"].__setitem__("session_1_date_time", "someday"), "session_1_date_time"),
    (lambda d: d[0].pop("conversation"), "missing field 'conversation'"),
])
def test_ingest_locomo_bad_input_changes_nothing(tmp_path, mutate, message):
    data = [locomo_sample("conv-a", 3, 4), locomo_sample("conv-b", 2, 4)]
    mutate(data)
    f = tmp_path / "bad.json"
    f.write_text(json.dumps(data))
    err(["ingest", "locomo", f, "-w", tmp_path / "ws", "--backend", "local"], message)
    assert not (tmp_path / "ws").exists()


def test_ingest_truncated_files_are_refused(tmp_path, locomo_file):
    cut = tmp_path / "cut.json"
    cut.write_text(locomo_file.read_text()[:-40])
    err(["ingest", "locomo", cut, "-w", tmp_path / "ws", "--backend", "local"], "not valid JSON")
    cutl = tmp_path / "cut.jsonl"
    cutl.write_text(DEMO.read_text()[:-25])
    err(["ingest", "jsonl", cutl, "-w", tmp_path / "ws", "--backend", "local"], "truncated file?")
    err(["ingest", "jsonl", tmp_path / "missing.jsonl", "-w", tmp_path / "ws"], "no such file")
    assert not (tmp_path / "ws").exists()


def test_ingest_refuses_bad_policies_before_writing(tmp_path):
    ws = tmp_path / "ws"
    err(["ingest", "jsonl", DEMO, "-w", ws, "--manager", "llm", "--backend", "local"],
        "refusing to run an LLM manager in the local sandbox")
    err(["ingest", "jsonl", DEMO, "-w", ws, "--manager", "llm", "--backend", "local", "--unsafe-local"],
        "anthropic: no API key")
    err(["ingest", "jsonl", DEMO, "-w", ws, "--manager", "smart", "--backend", "local"], "unknown manager 'smart'")
    err(["ingest", "jsonl", DEMO, "-w", ws, "--backend", "podman"],
        "sandbox.backend: unknown sandbox backend; choose one of docker, bwrap, local or auto, got 'podman'")
    err(["ingest", "jsonl", DEMO, "-w", ws, "--llm", "nope:model", "--manager", "llm", "--backend", "local",
         "--unsafe-local"], "bad model spec 'nope:model'")
    assert not ws.exists()


def test_killed_ingest_rerun_archives_every_unit_exactly_once(tmp_path):
    data = tmp_path / "big.json"
    data.write_text(json.dumps([locomo_sample("conv-k", 20, 10)]))
    ws = tmp_path / "ws"
    cmd = [sys.executable, "-c", "from horma.cli import main; main()", "ingest", "locomo", str(data), "-w", str(ws),
           "--backend", "local"]
    log = ws / "conv-k" / ".horma" / "ingest.log"
    for delay in (0.0, 0.05):  # kill just after the first segment, then somewhere further on
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        start = log.read_text().count("\n") if log.exists() else 0
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and (not log.exists() or log.read_text().count("\n") <= start):
            time.sleep(0.002)
        time.sleep(delay)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    wsk = Workspace.open(ws / "conv-k")
    assert 0 < len(wsk.raw_files()) < 20, "the kill did not land mid-ingest"
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    counts = Counter(r.unit.id for r in wsk.iter_raw())
    assert len(counts) == 20 * 10 and set(counts.values()) == {1}
    organized = {json.loads(x)["segment"] for x in log.read_text().splitlines()
                 if x.strip() and json.loads(x)["event"] == "organized"}
    assert organized == {wsk.rel(f) for f in wsk.raw_files()}


# -- recall / ask / trace / demo ------------------------------------------------------
@pytest.fixture(scope="module")
def demo_ws(tmp_path_factory) -> Path:
    ws = tmp_path_factory.mktemp("cli") / "mem"
    ok(["ingest", "jsonl", DEMO, "--workspace", ws, "--backend", "local"])
    return ws


def test_recall_json_is_one_object_with_sources(demo_ws):
    res = ok(["recall", demo_ws, "When did Priya finish the half marathon?", "--budget", "200", "--json",
              "--backend", "local"])
    out = json.loads(res.stdout)
    assert {"query", "context", "tokens", "items", "steps", "cost"} <= set(out)
    assert 0 < out["tokens"] <= 200 and out["cost"]["llm_calls"] == 0
    assert all({"path", "text", "tokens", "refs"} <= set(i) for i in out["items"])
    assert "S4:1" in {r for i in out["items"] for r in i["refs"]}


def test_recall_json_parses_into_the_one_context_model(demo_ws):
    from horma.context import ContextItem, Recall

    res = ok(["recall", demo_ws, "When did Priya finish the half marathon?", "--budget", "200", "--json",
              "--backend", "local"])
    out = json.loads(res.stdout)
    # what --json always printed, and what the model adds
    assert {"query", "context", "tokens", "items", "steps", "trace", "stop", "faults", "cost", "budget"} <= set(out)
    assert {"refs", "asked"} <= set(out)
    got = Recall.model_validate(out)
    assert got.text == out["context"] and got.tokens == out["tokens"] and got.budget == 200
    assert got.items == [ContextItem.model_validate(i) for i in out["items"]] and got.items
    assert got.refs == out["refs"] and "S4:1" in got.refs
    assert sum(i.tokens for i in got.items) == got.tokens  # items sum to the context's tokens, header included
    assert all(i.why and i.why.startswith("hsearch rank ") for i in got.items)  # the navigator says why
    assert got.cost.sandbox_commands == out["cost"]["sandbox_commands"] > 0
    assert got.as_dict() == out  # and back to the same JSON


def test_recall_text_shows_sources(demo_ws):
    res = ok(["recall", demo_ws, "Biscuit the cat", "--budget", "150", "--backend", "local"])
    assert "raw/" in res.stdout or "notes/" in res.stdout
    assert "tokens" in res.stdout


@pytest.mark.parametrize("args, message", [
    (["  \t "], "query is empty"),
    (["cat", "--budget", "0"], "recall.budget: input should be greater than or equal to 1, got 0"),
    (["cat", "--budget", "-3"], "recall.budget: input should be greater than or equal to 1, got -3"),
    (["cat", "--retriever", "llm"], "refusing to run an LLM retriever in the local sandbox"),
    (["cat", "--retriever", "llm", "--unsafe-local"], "anthropic: no API key"),
])
def test_recall_bad_input_is_one_line_and_changes_nothing(demo_ws, args, message):
    before = tree_state(demo_ws)
    res = err(["recall", demo_ws, *args, "--backend", "local"], message)
    assert len(res.output.strip().splitlines()) == 1
    assert tree_state(demo_ws) == before


def test_recall_on_a_folder_that_is_not_a_workspace(tmp_path):
    err(["recall", tmp_path, "cat"], "not a horma workspace")


def test_ask_without_an_llm_says_so_and_shows_the_context(demo_ws):
    res = ok(["ask", demo_ws, "Where is Jun going in June?", "--backend", "local"])
    assert "no LLM available (anthropic: no API key" in res.output
    assert "Kyoto" in res.output


def test_trace_lists_and_replays_runs(demo_ws):
    ok(["recall", demo_ws, "farmers market stall", "--backend", "local"])
    listing = json.loads(ok(["trace", demo_ws, "--list", "--role", "retriever", "--json"]).stdout)
    assert listing and listing[-1]["role"] == "retriever" and listing[-1]["status"] == "done"
    replay = ok(["trace", demo_ws]).stdout
    assert "farmers market stall" in replay and "select" in replay and "end: done" in replay
    by_number = ok(["trace", demo_ws, str(listing[-1]["n"]), "--role", "retriever", "--json"]).stdout
    assert json.loads(by_number)["run"] == listing[-1]["run"]
    err(["trace", demo_ws, "no-such-run"], "no run matching 'no-such-run'")


def test_demo_runs_offline_quickly(tmp_path):
    t0 = time.monotonic()
    res = ok(["demo", "--workspace", tmp_path / "demo", "--backend", "local"])
    assert time.monotonic() - t0 < 60
    assert "archived 60 new units" in res.output
    assert res.output.count("recall") >= 3
    for evidence in ("S2:1", "S3:9", "S3:10"):
        assert evidence in res.output


def test_ask_answers_through_a_model_and_recall_can_use_an_llm_retriever(demo_ws, monkeypatch):
    from loopback import LoopbackServer, call, say

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-cli")
    with LoopbackServer("openai", [say("Kyoto, to visit a pottery workshop.")]) as srv:
        res = ok(["ask", demo_ws, "Where is Jun going in June?", "--llm", f"openai:m@{srv.base_url}",
                  "--backend", "local", "--json"])
        prompt = srv.requests[0].body["messages"][-1]["content"]
    out = json.loads(res.stdout)
    assert out["answer"] == "Kyoto, to visit a pottery workshop." and out["cost"]["input_tokens"] > 0
    assert "Where is Jun going in June?" in prompt and "S3:10 Jun:" in prompt
    script = [call("bash", command="grep -rln Biscuit raw"),
              call("select", path="raw/2024-03-16T11-30__session-2/units.log", start=1, end=3), call("done")]
    with LoopbackServer("openai", script) as srv:
        res = ok(["recall", demo_ws, "cat's name", "--retriever", "llm", "--llm", f"openai:m@{srv.base_url}",
                  "--backend", "local", "--unsafe-local", "--json"])
    out = json.loads(res.stdout)
    assert out["cost"]["llm_calls"] == 3 and out["steps"] == 3
    assert [i["refs"] for i in out["items"]] == [["S2:1", "S2:2", "S2:3"]]
    replay = ok(["trace", demo_ws, "--role", "retriever"]).stdout
    assert "grep -rln Biscuit raw" in replay and "end: done" in replay
    err(["ask", demo_ws, "anything", "--llm", "openai:m@ftp://x", "--backend", "local"], "bad model spec")


def test_trace_marks_a_run_cut_off_by_a_crash(tmp_path):
    from horma.agents.trajectory import Trajectory

    ws = Workspace.init(tmp_path / "mem")
    err(["trace", ws.root], "no trajectories yet")
    traj = Trajectory(ws.trajectories, "retriever", "lost run", policy="heuristic")
    traj.step("bash", {"command": "ls raw"}, "x\n" * 30, exit_code=0, elapsed_ms=1.5)
    traj.close()  # no end record: the process died here
    short = ok(["trace", ws.root]).stdout
    assert "lost run" in short and "ls raw" in short and "cut off" in short and "--full shows all" in short
    assert "--full" not in ok(["trace", ws.root, "--full"]).stdout
    listing = json.loads(ok(["trace", ws.root, "--list", "--json"]).stdout)
    assert listing[0]["status"] == "cut off" and listing[0]["steps"] == 1


def test_a_reingest_of_a_changed_source_names_its_conflicts(tmp_path):
    """An id archived with other text is not archived again, and the totals say so instead of 'already there'."""
    ws = tmp_path / "ws"
    rows = [json.loads(line) for line in DEMO.read_text().splitlines() if line.strip()]
    ok(["ingest", "jsonl", DEMO, "-w", ws, "--backend", "local"])
    changed = tmp_path / "changed.jsonl"
    rows[0] = {**rows[0], "text": rows[0]["text"] + " (edited)"}
    changed.write_text("".join(json.dumps(r) + "\n" for r in rows))
    before = tree_state(ws)
    res = ok(["ingest", "jsonl", changed, "-w", ws, "--backend", "local"])
    assert f"({len(rows)} already there, 1 of them with other text: not archived)" in " ".join(res.output.split())
    out = json.loads(ok(["ingest", "jsonl", changed, "-w", ws, "--backend", "local", "--json"]).stdout)
    assert (out["archived"], out["skipped"], out["conflicts"]) == (0, len(rows), 1)
    assert tree_state(ws) == before and "(edited)" not in "".join(p.read_text() for p in ws.glob("raw/*/units.log"))
