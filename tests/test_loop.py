"""The agent loop end to end: real SDK clients against loopback servers, a real local sandbox.

Retriever-style (ls, grep, cat, select, done) and manager-style (mkdir, write
a note, done) episodes through Anthropic tool use, OpenAI tool calls and the
text protocol; faults; limits; the refusal to run unisolated; secrets kept out.
"""

from __future__ import annotations

import json

import pytest
from loopback import LoopbackServer, call, fault, malformed, say, slow, turn

from horma.agents.loop import RunLimits, Tool, ToolOutcome, run_agent
from horma.agents.trajectory import read_trajectory
from horma.context import Context
from horma.llm import ToolSpec, make_llm
from horma.llm.scripted import ScriptedLLM
from horma.note import Note
from horma.sandbox import SandboxError, View, open_sandbox
from horma.workspace import Unit, Workspace

pytestmark = pytest.mark.filterwarnings("ignore:The model .* is deprecated:DeprecationWarning")

SECRET = "sk-FAKE-SECRET-0123456789abcdef"
FAST = {"retry_base_delay": 0.001, "retry_max_delay": 0.01, "timeout": 5.0}

SELECT = ToolSpec(
    "select",
    "Add lines START..END of a file to the context.",
    {"type": "object", "properties": {"path": {"type": "string"}, "start": {"type": "integer"},
                                      "end": {"type": "integer"}}, "required": ["path"]},
)
DONE = ToolSpec("done", "Finish.", {"type": "object", "properties": {}})


@pytest.fixture
def ws(tmp_path):
    ws = Workspace.init(tmp_path / "ws")
    with ws.writer():
        seg = ws.archive(
            [
                Unit("D1:1", "2023-05-08 13:56", "Caroline", "I went to the LGBTQ support group yesterday."),
                Unit("D1:2", "2023-05-08 13:57", "Melanie", "That sounds powerful!"),
                Unit("D1:3", "2023-05-08 13:58", "Caroline", "I want to study counseling."),
            ],
            "session 1",
        )
        ws.write_note(Note("notes/people/caroline.md", "Caroline", "- went to a support group (D1:1)"))
    ws.seg = seg
    return ws


@pytest.fixture(autouse=True)
def secret_env(monkeypatch):
    """The keys exist only in the host process environment, as they would for a user."""
    for name in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY"):
        monkeypatch.setenv(name, SECRET)
    for name in ("ANTHROPIC_BASE_URL", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)


def retriever_tools(ctx: Context) -> list[Tool]:
    return [
        Tool(SELECT, lambda a: ToolOutcome(ctx.select(a["path"], a.get("start"), a.get("end")).observation())),
        Tool(DONE, lambda a: ToolOutcome(f"done: {ctx.tokens} tokens selected", finished=True)),
    ]


def llm_for(srv: LoopbackServer, **options):
    model = "claude-sonnet-4-5" if srv.flavor == "anthropic" else "gpt-4o-mini"
    return make_llm(f"{srv.flavor}:{model}@{srv.base_url}", **{**FAST, **options})


def run(llm, ws, tools, view=View.READ, limits=None, **kw):
    with open_sandbox(ws.root, "local", view) as sb:
        return run_agent(llm, sb, role=kw.pop("role", "retriever"), system="You navigate a memory.",
                         task="When did Caroline go to the support group?", tools=tools,
                         limits=limits or RunLimits(max_steps=10), trajectory_dir=ws.trajectories,
                         allow_unsafe_local=True, **kw)


def assert_no_secret(ws):
    for p in ws.root.rglob("*"):
        if p.is_file():
            assert SECRET not in p.read_text(encoding="utf-8", errors="replace"), p


def retriever_script(seg: str) -> list:
    return [
        turn("Let me look around.", call("bash", command="ls")),
        call("bash", command="grep -rn support notes/"),
        call("bash", command=f"cat -n {seg}"),
        call("bash", command="env"),
        call("select", path=seg, start=1, end=1),
        call("done"),
    ]


@pytest.mark.parametrize("flavor", ["anthropic", "openai"])
def test_retriever_episode_native_tools(flavor, ws):
    ctx = Context("when?", 200, ws)
    with LoopbackServer(flavor, retriever_script(ws.seg)) as srv:
        result = run(llm_for(srv), ws, retriever_tools(ctx))
    assert result.status == "done" and result.steps == 6 and result.cost.llm_calls == 6
    assert ctx.refs == ["D1:1"] and "support group" in ctx.text
    # the requests carried the tool schemas, and each tool result went back
    first = srv.requests[0].body
    names = [t["name"] if flavor == "anthropic" else t["function"]["name"] for t in first["tools"]]
    assert names == ["bash", "select", "done"]
    schema = first["tools"][1]["input_schema" if flavor == "anthropic" else "function"]
    schema = schema if flavor == "anthropic" else schema["parameters"]
    assert schema["required"] == ["path"]
    assert "INDEX.md" in srv.tool_results(1)[0]["content"] and "[exit code 0]" in srv.tool_results(1)[0]["content"]
    assert "notes/people/caroline.md:" in srv.tool_results(2)[-1]["content"]
    assert "selected " in srv.tool_results(5)[-1]["content"]
    # the trajectory has every step with tokens, exit codes and the model's text
    recs = read_trajectory(result.trajectory)
    steps = [r for r in recs if r["type"] == "step"]
    assert [s["action"] for s in steps] == ["bash"] * 4 + ["select", "done"]
    assert steps[0]["message"] == "Let me look around." and steps[0]["exit_code"] == 0
    assert all(s["input_tokens"] > 0 for s in steps) and steps[4]["exit_code"] is None
    assert recs[-1]["status"] == "done" and recs[-1]["input_tokens"] == result.cost.input_tokens > 0
    # the key is neither in the sandbox's environment nor anywhere in the workspace
    assert SECRET not in steps[3]["observation"] and "HOME=" in steps[3]["observation"]
    assert_no_secret(ws)


@pytest.mark.parametrize("flavor", ["anthropic", "openai"])
def test_manager_episode_writes_a_note(flavor, ws):
    body = "---\ntitle: Support group\ntime: 2023-05-08\nsources: []\nlinks: []\n---\n- Caroline went (D1:1)\n"
    script = [
        call("bash", command="mkdir -p notes/events"),
        call("bash", command=f"cat > notes/events/support-group.md <<'EOF'\n{body}EOF"),
        call("done"),
    ]
    with LoopbackServer(flavor, script) as srv:
        result = run(llm_for(srv), ws, [Tool(DONE, lambda a: ToolOutcome("ok", finished=True))],
                     view=View.WRITE, role="manager")
    assert result.status == "done" and result.steps == 3
    note = ws.read_note("notes/events/support-group.md")
    assert note.title == "Support group" and ws.refs_in(note.body) == ["D1:1"]
    assert srv.tool_results(2)[-1]["content"] == "(no output)\n[exit code 0]"
    assert_no_secret(ws)


def test_text_protocol_episode_against_server_without_tools(ws):
    """auto mode: the server rejects `tools`, the provider switches to the text protocol for good."""
    ctx = Context("when?", 200, ws)
    script = [
        say("I will list the files.\n```bash\nls\n```"),
        say("```bash\ngrep -rn support notes/\n```"),
        say(f"```bash\ncat -n {ws.seg}\n```"),
        say("Both said and done:\n```bash\nls\n```\ndone"),  # two actions: a format error
        say(f"The first line is the evidence.\nselect {ws.seg} 1 1"),
        say("done"),
    ]
    with LoopbackServer("openai", script, tool_calling=False) as srv:
        llm = llm_for(srv)
        result = run(llm, ws, retriever_tools(ctx))
    assert result.status == "done" and result.steps == 6 and llm.tool_protocol == "text"
    assert ctx.refs == ["D1:1"]
    assert srv.requests[0].body.get("tools") and all("tools" not in r.body for r in srv.requests[1:])
    system = srv.requests[1].body["messages"][0]["content"]
    assert system.startswith("You navigate a memory.") and "`select PATH [START] [END]`" in system
    # observations come back as user turns; the format error is explained
    last = srv.requests[-1].body["messages"]
    assert "format error: 2 actions found" in last[-3]["content"]
    assert last[-1]["role"] == "user" and "selected raw/" in last[-1]["content"]
    steps = [r for r in read_trajectory(result.trajectory) if r["type"] == "step"]
    assert [s["action"] for s in steps] == ["bash", "bash", "bash", "invalid", "select", "done"]
    assert_no_secret(ws)


@pytest.mark.parametrize("flavor", ["anthropic", "openai"])
def test_faults_429_500_timeout_are_retried_and_malformed_args_reported(flavor, ws):
    script = [
        fault(429, retry_after=0.01),
        fault(500),
        slow(1.0, call("bash", command="ls")),  # the client times out and retries
        call("bash", command="ls"),
        malformed("bash", "{not json" if flavor == "openai" else "just a string"),
        call("bash", wrong="x"),
        call("frobnicate"),
        call("done"),
    ]
    with LoopbackServer(flavor, script) as srv:
        llm = llm_for(srv, timeout=0.3)
        result = run(llm, ws, retriever_tools(Context("q", 100, ws)),
                     limits=RunLimits(max_steps=10, max_format_errors=4))
    assert result.status == "done" and result.cost.llm_calls == 5 and llm.stats.retries == 3
    assert llm.stats.calls == 5 and len(srv.requests) == 8
    errors = [srv.tool_results(i)[-1]["content"] for i in (5, 6, 7)]
    assert errors[0].startswith("format error: arguments are not")
    assert "missing required argument(s) command" in errors[1]
    assert "unknown tool 'frobnicate'" in errors[2]
    if flavor == "anthropic":  # is_error marks a failed tool result on the wire
        block = srv.requests[5].body["messages"][-1]["content"][-1]
        assert block["is_error"] is True


@pytest.mark.parametrize("flavor", ["anthropic", "openai"])
def test_consecutive_format_errors_stop_the_run(flavor, ws):
    script = [call("bash"), call("bash", command="ls"), call("nope"), call("bash"), call("nope")]
    with LoopbackServer(flavor, script) as srv:
        result = run(llm_for(srv), ws, [], limits=RunLimits(max_steps=10, max_format_errors=3))
    assert result.status == "format_errors" and result.steps == 5
    assert "3 consecutive format errors" in result.error
    assert read_trajectory(result.trajectory)[-1]["status"] == "format_errors"


@pytest.mark.parametrize("flavor", ["anthropic", "openai"])
def test_retries_exhausted_end_the_run_with_one_clear_error(flavor, ws):
    with LoopbackServer(flavor, [fault(503)] * 3) as srv:
        result = run(llm_for(srv, max_retries=2), ws, [])
    assert result.status == "llm_error" and result.cost.llm_calls == 0
    assert "HTTP 503" in result.error and "gave up after 3 attempts" in result.error
    assert read_trajectory(result.trajectory)[-1]["error"] == result.error


def test_loop_refuses_local_sandbox_without_the_unsafe_flag(ws):
    llm = ScriptedLLM([{"tool_calls": [{"name": "done"}]}])
    with open_sandbox(ws.root, "local", View.READ) as sb, pytest.raises(SandboxError, match="no isolation"):
        run_agent(llm, sb, role="retriever", system="s", task="t", tools=[], limits=RunLimits(),
                  trajectory_dir=ws.trajectories)
    assert llm.calls == [] and not list(ws.trajectories.iterdir())


def _bash_forever(n: int) -> list[dict]:
    return [{"tool_calls": [{"name": "bash", "arguments": {"command": f"echo step {i}"}}]} for i in range(n)]


def test_step_token_and_time_limits(ws):
    r = run(ScriptedLLM(_bash_forever(10)), ws, [], limits=RunLimits(max_steps=3))
    assert (r.status, r.steps, r.cost.llm_calls) == ("max_steps", 3, 3)
    r = run(ScriptedLLM(_bash_forever(10)), ws, [], limits=RunLimits(max_steps=10, max_input_tokens=1))
    assert (r.status, r.cost.llm_calls) == ("token_limit", 1)
    r = run(ScriptedLLM(_bash_forever(10)), ws, [], limits=RunLimits(max_steps=10, max_seconds=0.0))
    assert (r.status, r.cost.llm_calls) == ("time_limit", 0)


def test_the_same_action_with_the_same_result_ends_the_run_as_stalled(ws):
    ctx = Context("q", 500, ws)
    select = {"tool_calls": [{"name": "select", "arguments": {"path": ws.seg, "start": 1, "end": 1}}]}
    r = run(ScriptedLLM([select] * 10), ws, retriever_tools(ctx), limits=RunLimits(max_steps=10, max_repeats=3))
    # the first select adds the line; the next three are each "already in context"
    assert (r.status, r.steps, r.cost.llm_calls) == ("stalled", 4, 4)
    assert "the same select action gave the same result 3 times in a row" in r.error
    assert read_trajectory(r.trajectory)[-1]["status"] == "stalled" and len(ctx.refs) == 1
    # the same command with a new result is progress, not a stall; a format error in between resets the count
    r = run(ScriptedLLM([{"tool_calls": [{"name": "bash", "arguments": {"command": "date +%N"}}]}] * 4), ws, [],
            limits=RunLimits(max_steps=4, max_repeats=2))
    assert (r.status, r.steps) == ("max_steps", 4)
    r = run(ScriptedLLM([select, select, "no action", select, select]), ws, retriever_tools(Context("q", 500, ws)),
            limits=RunLimits(max_steps=5, max_repeats=3))
    assert (r.status, r.steps) == ("max_steps", 5)


def test_several_calls_in_one_reply_and_a_reply_without_calls(ws):
    llm = ScriptedLLM([
        "I am not sure what to do.",
        {"text": "two at once", "tool_calls": [{"name": "bash", "arguments": {"command": "echo a"}},
                                               {"name": "bash", "arguments": {"command": "echo b"}}]},
        {"tool_calls": [{"name": "done"}]},
    ])
    r = run(llm, ws, [Tool(DONE, lambda a: ToolOutcome("bye", finished=True))])
    assert r.status == "done" and r.steps == 4 and r.final == {"action": "done", "args": {}, "observation": "bye"}
    second = llm.calls[1]["messages"]
    assert second[-1] == {"role": "user", "content": "format error: no tool call in your reply; act by calling "
                                                     "exactly one tool"}
    third = llm.calls[2]["messages"]
    assert [m["content"] for m in third[-2:]] == ["a\n[exit code 0]", "b\n[exit code 0]"]
    steps = [x for x in read_trajectory(r.trajectory) if x["type"] == "step"]
    assert [s["input_tokens"] > 0 for s in steps[1:3]] == [True, False]  # one call's tokens counted once
    assert json.dumps(steps)  # the trajectory is plain JSON


def test_every_kind_of_bad_reply_is_counted_and_the_run_still_ends(ws):
    """Prose, an empty reply and an unusable call are format errors of their own kind; running out of
    model (an LLM error) ends the run with that status; the counts are in the result and the trajectory."""
    script = ["I would look at the notes first.", "",
              {"tool_calls": [{"name": "rm_everything", "arguments": {}}]},
              {"tool_calls": [{"name": "bash", "arguments": {"command": "ls"}}]}]
    r = run(ScriptedLLM(script), ws, [], limits=RunLimits(max_steps=10, max_format_errors=4))
    assert r.status == "llm_error" and r.steps == 4 and r.cost.llm_calls == 4
    assert r.faults == {"malformed": 1, "prose": 1, "empty": 1, "llm_error": 1, "context_overflow": 0}
    records = read_trajectory(r.trajectory)
    assert [s.get("fault") for s in records if s["type"] == "step"] == ["prose", "empty", "malformed", None]
    assert records[-1]["faults"] == r.faults and records[-1]["status"] == "llm_error"


# -- the trajectory format ---------------------------------------------------------------------
def test_a_trajectory_carries_its_schema_and_a_reader_refuses_what_it_cannot_read(tmp_path):
    from horma.agents.trajectory import SCHEMA, Trajectory
    from horma.workspace import WorkspaceError

    t = Trajectory(tmp_path, "retriever", "where is Jun?", budget=300)
    t.step("bash", {"command": "ls"}, "raw notes", exit_code=0)
    t.end("done", refs=["S1:2"])
    recs = read_trajectory(t.path)
    assert [r["type"] for r in recs] == ["start", "step", "end"] and recs[0]["schema"] == SCHEMA
    assert recs[0]["budget"] == 300 and recs[2]["refs"] == ["S1:2"]  # a policy's own fields are kept
    lines = t.path.read_text().splitlines()
    newer = tmp_path / "newer.jsonl"
    newer.write_text("\n".join([json.dumps({**json.loads(lines[0]), "schema": SCHEMA + 1}), *lines[1:]]) + "\n")
    with pytest.raises(WorkspaceError, match="newer than this horma"):
        read_trajectory(newer)
    broken = tmp_path / "broken.jsonl"
    step_without_action = {"type": "step", "step": 1, "args": {}, "observation": ""}
    broken.write_text(lines[0] + "\n" + json.dumps(step_without_action) + "\n")
    with pytest.raises(WorkspaceError, match=r"broken.jsonl:2: not a trajectory record \(action: Field required\)"):
        read_trajectory(broken)
    old = tmp_path / "old.jsonl"  # written before the schema field: read as version 1
    unversioned = {k: v for k, v in json.loads(lines[0]).items() if k != "schema"}
    old.write_text(json.dumps(unversioned) + "\n" + lines[1] + "\n")
    assert [r["type"] for r in read_trajectory(old)] == ["start", "step"]
    torn = tmp_path / "torn.jsonl"  # a crash mid-write tears the last line only: the records before it stand
    torn.write_text("\n".join(lines[:2]) + "\n" + lines[2][:10])
    assert [r["type"] for r in read_trajectory(torn)] == ["start", "step"]
    middle = tmp_path / "middle.jsonl"  # a line torn in the middle is damage, not a crash: refused
    middle.write_text("\n".join([lines[0], lines[1][:10], lines[2]]) + "\n")
    with pytest.raises(WorkspaceError, match=r"middle.jsonl:2: not JSON"):
        read_trajectory(middle)
