"""The library API end to end on the local sandbox: sources, record, recall, recovery, LLM policies."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import ClassVar

import pytest

import horma
from horma.agents import mention_notes
from horma.agents.manager import INGEST_LOG, Manager
from horma.agents.policies import (
    MANAGER_POLICIES,
    ManagerPolicy,
    Organized,
    OrganizeTask,
    PolicyError,
    SandboxedAgent,
    policy_class,
    policy_names,
    shared_policy_names,
)
from horma.agents.retriever import resolve_in_sandbox
from horma.config import Settings
from horma.context import Context
from horma.llm import LLMError
from horma.memory import as_unit
from horma.resources import EXAMPLES, SANDBOX_BIN
from horma.sandbox import SandboxError, View, open_sandbox
from horma.sources import SourceError
from horma.sources.jsonl import load_jsonl
from horma.workspace import Unit, Workspace, WorkspaceError

DEMO = EXAMPLES / "demo_conversation.jsonl"


def units(session: int, time: str, lines: list[tuple[str, str]]) -> list[Unit]:
    return [Unit(f"T{session}:{i}", time, actor, text) for i, (actor, text) in enumerate(lines, 1)]


SESSION_1 = units(1, "2024-01-10 09:00", [
    ("Ana", "I finally bought a sailboat yesterday, her name is Gull."),
    ("Ben", "Congratulations! Where will you keep her?"),
    ("Ana", "At the marina in Porto, berth 14."),
])
SESSION_2 = units(2, "2024-02-02 18:30", [
    ("Ben", "How was the first trip on Gull?"),
    ("Ana", "We sailed to Vigo last weekend, it took nine hours."),
    ("Ben", "I started learning the cello, by the way."),
])


def snapshot(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def raw_ids(ws: Workspace) -> list[str]:
    return [r.unit.id for r in ws.iter_raw()]


# -- the JSONL source -------------------------------------------------------------
def test_demo_conversation_loads_as_four_dated_sessions():
    segments = load_jsonl(DEMO)
    assert [s.slug for s in segments] == ["session-1", "session-2", "session-3", "session-4"]
    assert len({s.time[:10] for s in segments}) == 4
    assert {u.actor for s in segments for u in s.units} == {"Priya", "Tomás", "Jun"}


def test_jsonl_without_session_groups_by_day(tmp_path):
    f = tmp_path / "u.jsonl"
    rows = [("a1", "2024-01-01 10:00"), ("a2", "2024-01-01 11:00"), ("b1", "2024-01-03T08:00:00")]
    f.write_text("".join(json.dumps({"id": i, "time": t, "actor": "x", "text": "hi"}) + "\n" for i, t in rows))
    segments = load_jsonl(f)
    assert [(s.slug, [u.id for u in s.units]) for s in segments] == [("session-1", ["a1", "a2"]), ("session-2", ["b1"])]


@pytest.mark.parametrize("content, message", [
    ('{"id": "a", "time": "2024-01-01", "actor": "x", "text": "hi"}\n{"id": "b", "ti',
     "line 2: not valid JSON (truncated file?)"),
    ('{"id": "a", "time": "2024-01-01", "actor": "x"}\n', "line 1: missing field 'text'"),
    ('{"id": "a", "time": "2024-01-01", "actor": "x", "text": "hi", "speaker": "y"}\n', "unknown field 'speaker'"),
    ('{"id": 3, "time": "2024-01-01", "actor": "x", "text": "hi"}\n', "field 'id' must be a string, got int"),
    ('{"id": "a b", "time": "2024-01-01", "actor": "x", "text": "hi"}\n', "contains whitespace"),
    ('{"id": "a", "time": "yesterday", "actor": "x", "text": "hi"}\n', "field 'time' 'yesterday' is not an ISO date"),
    ('{"id": "a", "time": "2024-01-01", "actor": "x", "text": "  "}\n', "field 'text' is empty"),
    ('{"id": "a", "time": "2024-01-01", "actor": "x", "text": "hi"}\n' * 2, "duplicate id 'a' (first on line 1)"),
    ('[1, 2]\n', "expected a JSON object, got list"),
    ("\n\n", "no units (empty file)"),
])
def test_jsonl_bad_input_names_the_problem(tmp_path, content, message):
    f = tmp_path / "bad.jsonl"
    f.write_text(content)
    with pytest.raises(SourceError) as err:
        load_jsonl(f)
    assert message in str(err.value) and str(f) in str(err.value)


def test_as_unit_accepts_mappings_strictly():
    assert as_unit({"id": "x1", "time": "2024-01-01", "actor": "a", "text": "t"}) == Unit("x1", "2024-01-01", "a", "t")
    with pytest.raises(WorkspaceError, match="missing field 'text'"):
        as_unit({"id": "x1", "time": "2024-01-01", "actor": "a"})
    with pytest.raises(WorkspaceError, match="unknown field 'mood'"):
        as_unit({"id": "x1", "time": "2024-01-01", "actor": "a", "text": "t", "mood": "ok"})


# -- record -------------------------------------------------------------------------
def test_record_archives_then_organizes_and_logs(tmp_path):
    with horma.Memory(tmp_path / "mem", sandbox="local") as mem:
        first = mem.record(SESSION_1, slug="boat", time=SESSION_1[0].time, source="test")
        again = mem.record(SESSION_1, slug="boat")
        second = mem.record([u.__dict__ for u in SESSION_2], slug="trip")
    ws = Workspace.open(tmp_path / "mem")
    assert first.segment == "raw/2024-01-10T09-00__boat/units.log" and first.archived == 3
    assert again.segment is None and again.archived == 0 and again.skipped == 3
    assert second.archived == 3
    assert raw_ids(ws) == [u.id for u in SESSION_1 + SESSION_2]
    assert ws.note_files(), "the heuristic manager wrote no notes"
    log = [json.loads(line) for line in (ws.meta / INGEST_LOG).read_text().splitlines()]
    assert [(r["event"], r["segment"]) for r in log] == [
        ("archived", first.segment), ("organized", first.segment),
        ("archived", second.segment), ("organized", second.segment),
    ]
    assert log[0]["source"] == "test" and log[0]["units"] == 3


def test_a_segment_archived_by_a_killed_run_is_organized_by_the_next_record(tmp_path):
    ws = Workspace.init(tmp_path / "mem")
    with ws.writer():  # what a run killed between archiving and organizing leaves behind
        orphan = ws.archive(SESSION_1, "boat")
    with Manager(ws, backend="local") as manager:
        assert manager.pending_segments() == [orphan]
        res = manager.record(SESSION_1 + SESSION_2, slug="trip")
        assert res.organized == [orphan, res.segment] and res.archived == 3 and res.skipped == 3
        assert manager.pending_segments() == []
    assert sorted(raw_ids(ws)) == sorted(u.id for u in SESSION_1 + SESSION_2)


@pytest.mark.parametrize("batch, message", [
    ([], "no units to record"),
    ([Unit("", "2024-01-01", "a", "t")], "is empty or contains whitespace"),
    ([Unit("a|b", "2024-01-01", "a", "t")], "contains whitespace or '|'"),
    ([Unit("a1", "2024-01-01", "a", " ")], "unit a1: empty text"),
])
def test_bad_batches_leave_the_workspace_unchanged(tmp_path, batch, message):
    mem = horma.Memory(tmp_path / "mem", sandbox="local")
    before = snapshot(mem.workspace.root)
    with pytest.raises(WorkspaceError, match=message):
        mem.record(batch, slug="x")
    mem.close()
    assert snapshot(mem.workspace.root) == before


# -- recall -------------------------------------------------------------------------
@pytest.fixture(scope="module")
def demo_memory(tmp_path_factory):
    mem = horma.Memory(tmp_path_factory.mktemp("demo") / "mem", sandbox="local")
    for seg in load_jsonl(DEMO):
        mem.record(seg.units, slug=seg.slug, time=seg.time)
    yield mem
    mem.close()


def test_recall_finds_the_evidence_within_budget_with_provenance_and_trace(demo_memory):
    ctx = demo_memory.recall("When did Priya adopt her cat Biscuit?", budget=300)
    assert 0 < ctx.tokens <= 300
    assert "S2:1" in ctx.refs
    assert "We adopted her from the shelter on Thursday" in ctx.text
    assert all(item.refs for item in ctx.items if item.path.startswith("raw/"))
    assert ctx.steps >= 2 and ctx.cost.llm_calls == 0 and ctx.cost.wall_ms > 0
    records = [json.loads(x) for x in (demo_memory.workspace.root / ctx.trace).read_text().splitlines()]
    assert records[0]["type"] == "start" and records[0]["role"] == "retriever"
    assert records[-1]["type"] == "end"
    assert {"select"} <= {r["action"] for r in records if r["type"] == "step"}
    d = ctx.as_dict()
    assert {"query", "context", "tokens", "items", "steps", "cost"} <= set(d)
    assert "llm_calls" not in d and "elapsed_ms" not in d  # the one count is d["cost"]


def test_recall_respects_small_budgets(demo_memory):
    for budget in (20, 60, 150):
        ctx = demo_memory.recall("Kyoto pottery workshop trip", budget=budget)
        assert ctx.tokens <= budget


@pytest.mark.parametrize("query, budget, message", [
    ("   \n", 100, "query is empty"),
    ("cat", 0, "budget must be a positive"),
    ("cat", -5, "budget must be a positive"),
])
def test_bad_queries_are_refused_before_anything_is_written(demo_memory, query, budget, message):
    before = snapshot(demo_memory.workspace.root)
    with pytest.raises(WorkspaceError, match=message):
        demo_memory.recall(query, budget)
    assert snapshot(demo_memory.workspace.root) == before


def test_select_paths_resolve_against_the_shell_cwd(tmp_path):
    ws = Workspace.init(tmp_path / "mem")
    with open_sandbox(ws.root, "local", View.READ) as box:
        box.exec("cd notes")
        assert resolve_in_sandbox(box, "people/ana.md") == "notes/people/ana.md"
        assert resolve_in_sandbox(box, "../INDEX.md") == "INDEX.md"
        assert resolve_in_sandbox(box, f"{ws.root}/raw/x/units.log") == "raw/x/units.log"
        with pytest.raises(WorkspaceError, match="leaves the workspace"):
            resolve_in_sandbox(box, "../../etc/passwd")


def test_llm_policies_refuse_the_local_sandbox_without_the_unsafe_flag(tmp_path):
    ws = Workspace.init(tmp_path / "mem")
    llm = object()  # never called: the refusal comes first
    with pytest.raises(SandboxError, match="--unsafe-local"):
        horma.Memory(ws, retriever="llm", sandbox="local", llm=llm).recall("anything", 100)
    with pytest.raises(SandboxError, match="--unsafe-local"):
        horma.Memory(ws, manager="llm", sandbox="local", llm=llm).record(SESSION_1, slug="x")
    assert raw_ids(ws) == []


def test_unknown_policy_and_missing_llm_are_clear(tmp_path, monkeypatch):
    with pytest.raises(WorkspaceError, match="unknown manager policy 'smart'"):
        horma.Memory(tmp_path / "a", manager="smart")
    # an LLM policy without llm= gets the settings' model for its role; without a key that is one clear error
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(LLMError, match="anthropic: no API key"):
        horma.Memory(tmp_path / "b", retriever="llm", settings=Settings())
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()


def test_policy_registry_refuses_unknown_names_with_the_choices_and_takes_new_ones(tmp_path):
    with pytest.raises(PolicyError, match=r"^unknown retriever policy 'psychic'; choose one of heuristic, llm$"):
        policy_class("retriever", "psychic")
    with pytest.raises(PolicyError, match=r"^unknown manager 'x'; choose one of heuristic, llm$"):
        policy_class("manager", "x", label="manager")  # the CLI's wording after --manager
    assert policy_names("manager") == ("heuristic", "llm") and shared_policy_names() == ("heuristic", "llm")

    class Counting:  # a user's own policy: archive only, count the segments
        name: ClassVar[str] = "counting"
        llm_driven: ClassVar[bool] = False
        needs_sandbox: ClassVar[bool] = False
        seen: ClassVar[list[str]] = []

        def organize(self, agent: SandboxedAgent, task: OrganizeTask) -> Organized:
            self.seen.append(task.segment)
            return Organized()

    assert isinstance(Counting(), ManagerPolicy)
    MANAGER_POLICIES.register("counting", Counting)
    try:
        with horma.Memory(tmp_path / "mem", manager="counting", sandbox="local") as mem:
            res = mem.record(SESSION_1, slug="boat")
            assert Counting.seen == [res.segment] and not mem.manager.sandbox_open
        assert not mem.workspace.note_files()
    finally:
        MANAGER_POLICIES.unregister("counting")
    with pytest.raises(PolicyError, match=r"choose one of heuristic, llm$"):
        policy_class("manager", "counting")


# -- LLM policies, end to end through the real SDK clients and loopback servers -----------
from loopback import LoopbackServer, call, say  # noqa: E402  (tests/ is on sys.path under pytest)

from horma.agents.primary import answer  # noqa: E402
from horma.llm import make_llm  # noqa: E402
from horma.note import parse_note  # noqa: E402

NOTE = """mkdir -p notes/people && cat > notes/people/ana.md <<'EOF'
---
title: Ana
time: 2024-01-10
sources:
- path: raw/2024-01-10T09-00__boat/units.log
  units: [T1:1, T1:3]
links: []
---
- owns a sailboat named Gull, kept at the marina in Porto, berth 14 (T1:1, T1:3)
EOF"""


def loopback_llm(srv: LoopbackServer, flavor: str):
    key = {"anthropic": "sk-ant-test", "openai": "sk-test"}[flavor]
    return make_llm(f"{flavor}:test-model@{srv.base_url}", api_key=key, retry_base_delay=0.001)


def archived_workspace(root: Path) -> Workspace:
    ws = Workspace.init(root)
    with ws.writer():
        ws.archive(SESSION_1, "boat")
        ws.archive(SESSION_2, "trip")
    return ws


@pytest.mark.parametrize("flavor", ["anthropic", "openai"])
def test_llm_retriever_navigates_selects_relative_paths_and_finishes(tmp_path, flavor):
    ws = archived_workspace(tmp_path / "mem")
    script = [
        call("bash", command="grep -rn 'Gull' raw"),
        call("bash", command="cd raw/2024-01-10T09-00__boat"),
        call("select", path="units.log", start=1, end=1),
        call("select", path="units.log", start=3, end=3),
        call("select", path="../../INDEX.md", start=1, end=400),
        call("done"),
    ]
    with LoopbackServer(flavor, script) as srv:
        mem = horma.Memory(ws, retriever="llm", sandbox="local", llm=loopback_llm(srv, flavor),
                           allow_unsafe_local=True)
        ctx = mem.recall("Where does Ana keep her boat?", budget=40)
        mem.close()
        tools = srv.requests[0].body["tools"]
    names = {t.get("name") or t.get("function", {}).get("name") for t in tools}
    assert names == {"bash", "select", "done"}
    assert ctx.refs == ["T1:1", "T1:3"]
    assert "At the marina in Porto, berth 14." in ctx.text and ctx.tokens <= 40
    assert ctx.cost.llm_calls == 6 and ctx.steps == 6
    steps = [json.loads(x) for x in (ws.root / ctx.trace).read_text().splitlines()]
    refused = next(s for s in steps if s.get("args", {}).get("path") == "../../INDEX.md")
    assert refused["observation"].startswith("refused:") and "left" in refused["observation"]
    assert steps[-1]["type"] == "end" and steps[-1]["status"] == "done"


def test_llm_manager_writes_notes_and_a_failed_run_is_retried(tmp_path):
    ws = Workspace.init(tmp_path / "mem")
    with LoopbackServer("openai", [call("bash", command="ls notes")]) as srv:  # then the script runs out
        mem = horma.Memory(ws, manager="llm", sandbox="local", llm=loopback_llm(srv, "openai"),
                           allow_unsafe_local=True)
        with pytest.raises(WorkspaceError, match="stopped without finishing"):
            mem.record(SESSION_1, slug="boat", time=SESSION_1[0].time)
        mem.close()
    assert raw_ids(ws) == [u.id for u in SESSION_1]  # archived by code, whatever the model did
    assert Manager(ws).pending_segments() == ["raw/2024-01-10T09-00__boat/units.log"]

    with LoopbackServer("anthropic", [call("bash", command=NOTE), call("done", summary="Ana's boat")]) as srv:
        with horma.Memory(ws, manager="llm", sandbox="local", llm=loopback_llm(srv, "anthropic"),
                          allow_unsafe_local=True, domain="locomo") as mem:
            res = mem.record(SESSION_1, slug="boat")
        system = srv.requests[0].body["system"]
        task = srv.requests[0].body["messages"][0]["content"]
    assert res.organized == ["raw/2024-01-10T09-00__boat/units.log"] and res.archived == 0
    assert res.cost.llm_calls == 2
    assert "Entity Tracking" in system and "Temporal anchoring" in system  # principles + skills
    task_text = task if isinstance(task, str) else " ".join(b.get("text", "") for b in task)
    assert "T1:3 | 2024-01-10 09:00 | Ana: At the marina in Porto, berth 14." in task_text
    note = parse_note("notes/people/ana.md", (ws.root / "notes/people/ana.md").read_text())
    assert note.sources[0]["units"] == ["T1:1", "T1:3"]
    assert Manager(ws).pending_segments() == []
    found = subprocess.run(["hsearch", "-n", "0", "--", "Gull marina"], cwd=ws.root, capture_output=True, text=True,
                           env={"PATH": f"{SANDBOX_BIN}:/usr/bin:/bin", "HOME": str(ws.root)})
    # the raw lines rank; a manager's page (notes/people/) is read as a file, and indexed for the dates it adds
    assert "T1:3" in found.stdout.splitlines()[0] and "notes/" not in found.stdout, found.stdout + found.stderr
    assert "sk-ant-test" not in "".join(p.read_text(errors="replace") for p in ws.root.rglob("*") if p.is_file())


def test_primary_answers_from_the_context_only(tmp_path):
    ws = archived_workspace(tmp_path / "mem")
    ctx = Context(query="boat", budget=100, workspace=ws)
    ctx.select("raw/2024-01-10T09-00__boat/units.log", 3, 3)
    with LoopbackServer("anthropic", [say("At the marina in Porto, berth 14.")]) as srv:
        reply = answer(loopback_llm(srv, "anthropic"), "Where is Gull kept?", ctx)
        body = srv.requests[0].body
    prompt = body["messages"][0]["content"]
    prompt = prompt if isinstance(prompt, str) else " ".join(b.get("text", "") for b in prompt)
    assert "Where is Gull kept?" in prompt and "T1:3 Ana: At the marina in Porto, berth 14." in prompt
    assert "cello" not in prompt and "tools" not in body
    assert reply.text == "At the marina in Porto, berth 14." and reply.cost.input_tokens > 0


def test_heuristic_manager_runs_are_recorded_as_manager_trajectories(tmp_path):
    """The trajectory says what the heuristic did: every file it wrote, with its size, and the index update."""
    with horma.Memory(tmp_path / "mem", sandbox="local") as mem:
        res = mem.record(SESSION_1, slug="boat")
    runs = sorted((tmp_path / "mem/.horma/trajectories").glob("*__manager__*.jsonl"))
    assert len(runs) == 1 and "2024-01-10t09-00-boat" in runs[0].name
    records = [json.loads(x) for x in runs[0].read_text().splitlines()]
    assert records[0]["segment"] == res.segment and records[0]["policy"] == "heuristic"
    steps = [r for r in records if r["type"] == "step"]
    assert [s["action"] for s in steps] == ["write", "index", "done"]
    assert steps[0]["exit_code"] == 0 and steps[-1]["action"] == "done"
    assert records[-1] == {"type": "end", "status": "done", "steps": len(steps)}
    files = {f["path"]: f["bytes"] for f in steps[0]["files"]}
    on_disk = {p: (tmp_path / "mem" / p).stat().st_size for p in files}
    assert files == on_disk and "INDEX.md" in files and "notes/people/ana.md" in files
    assert {p for p in files if p.startswith("notes/")} == {mem.workspace.rel(p) for p in mem.workspace.note_files()}
    assert "notes/people/ana.md" in steps[0]["observation"] and f"{len(files)} files" in steps[0]["observation"]
    assert steps[1]["args"] == {"segment": res.segment, "notes": len(files) - 1}
    assert json.loads(steps[2]["observation"])["files_written"] == len(files)


def test_heuristic_record_opens_no_sandbox(tmp_path, monkeypatch):
    """The heuristic manager writes on the host: recording must work where no sandbox can start."""
    import horma.agents.policies as policies

    def refuse(*args, **kwargs):
        raise AssertionError("the heuristic manager opened a sandbox")

    monkeypatch.setattr(policies, "open_for_agent", refuse)
    with horma.Memory(tmp_path / "mem", sandbox="docker") as mem:
        mem.record(SESSION_1, slug="boat")
        mem.record(SESSION_2, slug="trip")
        assert not mem.manager.sandbox_open
    assert (tmp_path / "mem/notes/entities/gull.md").is_file()


def test_a_note_edited_by_hand_between_records_is_read_again(tmp_path, monkeypatch):
    """The manager keeps notes in memory between records, but never writes over a newer file with them."""
    monkeypatch.setattr(mention_notes, "INLINE_MENTIONS", 2)  # small notes: pages from the third mention
    ws_root = tmp_path / "mem"
    with horma.Memory(ws_root, sandbox="local") as mem:
        mem.record(SESSION_1, slug="boat")
        mem.record(SESSION_2, slug="trip")
        page = ws_root / "notes/people/ana/2024-01.md"  # Ana spoke in two months: a summary and pages
        summary = ws_root / "notes/people/ana.md"
        edited = page.read_text().replace(" Ana\n", " Ana (she is blue)\n", 1)  # a remark on one mention
        page.write_text(edited + "- a line the user added by hand\n")
        summary_before = summary.read_text()
        porto = ws_root / "notes/entities/porto.md"
        assert not porto.exists()  # named once so far
        mem.record(units(3, "2024-01-20 10:00", [("Ana", "Gull needs new sails, the marina in Porto is full.")]),
                   slug="sails")
        text = page.read_text()
        assert "(she is blue)" in text and "a line the user added by hand" in text  # re-read, then appended to
        assert text.index("by hand") < text.index("__sails/units.log:1)") and text.count("__boat/units.log:") == 1
        assert "3 mention(s)" in text  # counted from the page it re-read: 2 + 1 new
        assert summary.read_text() == summary_before  # no month was added: the summary is not rewritten
        inline = porto.read_text()  # the second mention: one file listing both
        assert inline.index("__boat/units.log:3)") < inline.index("__sails/units.log:1)") and "2 mention(s)" in inline
        porto.write_text(inline + "- Porto: the user's own note\n")
        mem.record(units(4, "2024-01-25 10:00", [("Ben", "Porto has a new ferry to Vigo.")]), slug="ferry")
    # the third mention: pages, and the line the user added stays with the mentions around it
    page = (ws_root / "notes/entities/porto/2024-01.md").read_text()
    assert page.index("__boat/units.log:3)") < page.index("the user's own note") < page.index("__ferry/units.log:1)")
    assert "3 mention(s)" in page
    vigo = (ws_root / "notes/entities/vigo.md").read_text()  # its second mention, a month before the first
    assert "__trip/units.log:2)" in vigo and "__ferry/units.log:1)" in vigo
    assert not (ws_root / "notes/entities/vigo").exists()  # one file


def test_the_wrap_an_agent_example_runs(tmp_path):
    import sys

    out = subprocess.run([sys.executable, str(EXAMPLES / "wrap_an_agent.py"), str(tmp_path / "mem")],
                         capture_output=True, text=True, timeout=60, check=True).stdout
    assert out.count("recorded 15 turns") == 4
    assert "S1:12 Tomás: Also, small thing: my landlord is selling the flat" in out


# -- the same paths in the isolated sandboxes (skipped with the reason where one cannot start) ---
def test_record_and_recall_in_an_isolated_sandbox(tmp_path, isolated_backend):
    with horma.Memory(tmp_path / "mem", sandbox=isolated_backend) as mem:
        mem.record(SESSION_1, slug="boat")
        mem.record(SESSION_2, slug="trip")
        ctx = mem.recall("How long did the trip to Vigo take?", budget=60)
        assert mem.retriever.sandbox.backend == isolated_backend
    assert "T2:2" in ctx.refs and "it took nine hours" in ctx.text and ctx.tokens <= 60
    assert mem.workspace.note_files()


def test_llm_agents_in_an_isolated_sandbox_cannot_touch_raw(tmp_path, isolated_backend):
    ws = Workspace.init(tmp_path / "mem")
    script = [call("bash", command="echo forged >> raw/2024-01-10T09-00__boat/units.log"),
              call("bash", command=NOTE), call("done")]
    with LoopbackServer("openai", script) as srv:
        with horma.Memory(ws, manager="llm", sandbox=isolated_backend, llm=loopback_llm(srv, "openai")) as mem:
            mem.record(SESSION_1, slug="boat")
        refused = srv.tool_results(1)
    assert raw_ids(ws) == [u.id for u in SESSION_1]
    assert "forged" not in (ws.root / "raw/2024-01-10T09-00__boat/units.log").read_text()
    assert len(refused) == 1 and "[exit code 0]" not in refused[0]["content"]
    assert "read-only" in refused[0]["content"].lower() or "permission denied" in refused[0]["content"].lower()
    assert (ws.root / "notes/people/ana.md").is_file()
    script = [call("bash", command="cd raw/2024-01-10T09-00__boat && touch x"),
              call("select", path="units.log", start=3, end=3), call("done")]
    with LoopbackServer("anthropic", script) as srv, \
            horma.Memory(ws, retriever="llm", sandbox=isolated_backend, llm=loopback_llm(srv, "anthropic")) as mem:
        ctx = mem.recall("where is the boat kept", budget=50)
    assert ctx.refs == ["T1:3"] and not (ws.root / "raw/2024-01-10T09-00__boat/x").exists()


def test_a_torn_ingest_log_line_does_not_swallow_the_next_record(tmp_path):
    with horma.Memory(tmp_path / "mem", sandbox="local") as mem:
        first = mem.record(SESSION_1, slug="boat")
        log = mem.workspace.meta / INGEST_LOG
        with log.open("a") as fh:
            fh.write('{"time": "2024-01-01T00:00:00Z", "event": "organi')  # killed mid-write
        second = mem.record(SESSION_2, slug="trip")
    assert Manager(mem.workspace).organized_segments() == {first.segment, second.segment}
