"""Agent-written memory is kept: the memory-tool round trip of issue 21, in real sandboxes.

Claude (a loopback Messages API server speaking the real wire format, driven
by the anthropic SDK's tool runner) writes a preferences file through the
memory tool; new turns are recorded (the heuristic manager runs and rewrites
its notes); the file is byte for byte what Claude wrote, and a recall returns
its line.
"""

from __future__ import annotations

import json

import anthropic
import pytest
from loopback import LoopbackServer, call, say, turn

import horma
from horma.memory_tool import HormaMemoryTool, recall_tool

BETAS = ["context-management-2025-06-27"]
PREFS = "# Preferences\n- The user is allergic to peanuts; never suggest satay.\n- Prefers window seats on trains.\n"
TURNS = [
    {"id": "t1:1", "time": "2024-06-01T18:00:00Z", "actor": "user", "text": "Book me a table for Friday with Maya."},
    {"id": "t1:2", "actor": "assistant", "text": "Done: Friday at 8 pm at the Thai place, for you and Maya."},
    {"id": "t1:3", "time": "2024-06-01T20:05:00+02:00", "actor": "user", "text": "Maya says she loves satay."},
]


def test_preferences_written_by_the_agent_survive_records_and_are_recalled(tmp_path, isolated_backend: str) -> None:
    root = tmp_path / "mem"
    with horma.Memory(root, sandbox=isolated_backend) as mem:
        mem.record([{"id": "t0:1", "time": "2024-05-30 09:00", "actor": "user",
                     "text": "My friend Maya visits next week."}], slug="before")
        script = [
            turn("", call("memory", command="view", path="/memories"),
                 call("memory", command="create", path="/memories/preferences.md", file_text=PREFS)),
            say("noted"),
        ]
        with LoopbackServer("anthropic", script) as srv:
            client = anthropic.Anthropic(base_url=srv.base_url, api_key="sk-test", max_retries=0)
            runner = client.beta.messages.tool_runner(
                model="claude-sonnet-4-6", max_tokens=1024, betas=BETAS,
                tools=[HormaMemoryTool(mem.workspace), recall_tool(mem)],
                messages=[{"role": "user", "content": "I'm allergic to peanuts, remember it."}])
            assert runner.until_done().content[0].text == "noted"
        results = [b for m in srv.requests[1].body["messages"][-1:] for b in m["content"]]
        assert [b.get("is_error", False) for b in results] == [False, False], results
        assert "File created successfully at: /memories/preferences.md" in str(results[1]["content"])
        written = (root / "notes/agent/preferences.md").read_bytes()
        assert written == PREFS.encode()

        res = mem.record(TURNS, slug="dinner")  # the heuristic manager organizes the new session
        assert res.archived == 3 and res.organized, res
        again = mem.record(TURNS, slug="dinner")  # a resend changes nothing, not even the agent's file
        assert (again.archived, again.unchanged, again.conflicts) == (0, ["t1:1", "t1:2", "t1:3"], [])
        assert (root / "notes/agent/preferences.md").read_bytes() == written
        assert (root / "notes/entities/maya.md").is_file()  # the manager did write its own notes

        ctx = mem.recall("Is the user allergic to anything? peanuts", budget=300)
        lines = [(i.path, i.text) for i in ctx.items]
        assert any(p == "notes/agent/preferences.md" and "allergic to peanuts" in t for p, t in lines), lines
        assert "allergic to peanuts" in ctx.text

        # and as the agent sees it in a later conversation: its recall tool names the file by its /memories path
        script = [turn("", call("recall", query="Can the user eat satay? allergic peanuts", budget=300)),
                  say("no satay")]
        with LoopbackServer("anthropic", script) as srv:
            client = anthropic.Anthropic(base_url=srv.base_url, api_key="sk-test", max_retries=0)
            runner = client.beta.messages.tool_runner(
                model="claude-sonnet-4-6", max_tokens=1024, betas=BETAS,
                tools=[HormaMemoryTool(mem.workspace), recall_tool(mem)],
                messages=[{"role": "user", "content": "Order satay for dinner?"}])
            assert runner.until_done().content[0].text == "no satay"
        [result] = [b for m in srv.requests[1].body["messages"][-1:] for b in m["content"]]
        content = result["content"] if isinstance(result["content"], str) else result["content"][0]["text"]
        recalled = json.loads(content)
        assert "never suggest satay" in recalled["context"]
        assert "/memories/preferences.md" in [i["path"] for i in recalled["items"]], recalled["items"]


@pytest.mark.parametrize("edit", ["insert", "str_replace"])
def test_the_manager_never_writes_the_agents_folder(tmp_path, edit: str) -> None:
    """Even a file the agent names like a manager page (people/maya.md) and edits is the agent's: records
    that mention Maya again and again leave it byte for byte alone."""
    from anthropic.types.beta import BetaMemoryTool20250818CreateCommand as Create
    from anthropic.types.beta import BetaMemoryTool20250818InsertCommand as Insert
    from anthropic.types.beta import BetaMemoryTool20250818StrReplaceCommand as Replace

    root = tmp_path / "mem"
    with horma.Memory(root, sandbox="local") as mem:
        tool = HormaMemoryTool(mem.workspace)
        tool.create(Create(command="create", path="/memories/people/maya.md", file_text="- Maya is vegetarian\n"))
        if edit == "insert":
            tool.insert(Insert(command="insert", path="/memories/people/maya.md", insert_line=1,
                               insert_text="- Maya plays the cello"))
        else:
            tool.str_replace(Replace(command="str_replace", path="/memories/people/maya.md",
                                     old_str="vegetarian", new_str="vegan"))
        before = (root / "notes/agent/people/maya.md").read_bytes()
        for n in range(3):
            res = mem.record([{"id": f"m{n}:1", "time": f"2024-06-0{n + 1} 10:00", "actor": "Maya",
                               "text": "Maya is coming over with Tom."},
                              {"id": f"m{n}:2", "time": f"2024-06-0{n + 1} 10:01", "actor": "user",
                               "text": "Tell Maya the jazz starts at nine."}], slug=f"s{n}")
            assert res.organized
        assert (root / "notes/people/maya.md").is_file()  # the manager keeps its own page of her
        assert (root / "notes/agent/people/maya.md").read_bytes() == before


def test_an_llm_managers_write_view_cannot_change_the_agents_folder(tmp_path, isolated_backend: str) -> None:
    """The LLM manager works in the write view: notes/agent/ is mounted read-only there, as raw/ is."""
    from anthropic.types.beta import BetaMemoryTool20250818CreateCommand as Create

    from horma.sandbox import Limits, SandboxError, View, open_sandbox
    from horma.workspace import Workspace

    ws = Workspace.init(tmp_path / "mem")
    HormaMemoryTool(ws).create(Create(command="create", path="/memories/preferences.md", file_text=PREFS))
    before = (ws.root / "notes/agent/preferences.md").read_bytes()
    box = open_sandbox(ws.root, isolated_backend, View.WRITE, limits=Limits(timeout=5))
    try:
        for cmd in ["echo x >> notes/agent/preferences.md", "rm -f notes/agent/preferences.md",
                    "sed -i s/peanuts/x/ notes/agent/preferences.md", "touch notes/agent/new.md",
                    "mv notes/agent/preferences.md notes/p.md", "chmod 600 notes/agent/preferences.md",
                    "rm -rf notes/agent", "mv notes/agent notes/moved"]:
            r = box.exec(cmd)
            assert r.exit_code != 0, f"{isolated_backend}: {cmd!r} succeeded in the write view"
        assert box.exec("mkdir -p notes/people && echo '- ok' > notes/people/ana.md").exit_code == 0
        assert "allergic to peanuts" in box.exec("cat notes/agent/preferences.md").output  # readable
    finally:
        box.close()
    assert (ws.root / "notes/agent/preferences.md").read_bytes() == before
    assert (ws.root / "notes/people/ana.md").read_text() == "- ok\n"

    outside = tmp_path / "outside"
    outside.mkdir()
    other = Workspace.init(tmp_path / "other")
    (other.root / "notes" / "agent").symlink_to(outside)  # a bind follows links: refused, nothing mounted
    with pytest.raises(SandboxError, match="notes/agent: not a plain folder"):
        open_sandbox(other.root, isolated_backend, View.WRITE, limits=Limits(timeout=5))
