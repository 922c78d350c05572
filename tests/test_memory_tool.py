"""The horma memory tool through the anthropic SDK's tool runner, against a loopback Messages API server."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import anthropic
import anyio
import pytest
from conftest import make_workspace
from loopback import LoopbackServer, call, say, turn

from horma import Memory
from horma.history import NotesHistory
from horma.index import open_index
from horma.memory_tool import HormaAsyncMemoryTool, HormaMemoryTool, _rmtree_fds, recall_tool

REPO = Path(__file__).resolve().parents[1]
BETAS = ["context-management-2025-06-27"]


def mem(**args) -> object:
    return call("memory", **args)


def raw_digest(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted((root / "raw").rglob("*")) if p.is_file()}


def results(srv: LoopbackServer, request: int) -> list[tuple[bool, str]]:
    """(is_error, text) of every tool result request ``request`` carried, in call order."""
    out = []
    for m in srv.requests[request].body["messages"][-1:]:
        for b in m["content"]:
            if b.get("type") == "tool_result":
                content = b["content"]
                text = content if isinstance(content, str) else "".join(x.get("text", "") for x in content)
                out.append((bool(b.get("is_error")), text))
    return out


def run_tools(srv: LoopbackServer, tools: list) -> None:
    client = anthropic.Anthropic(base_url=srv.base_url, api_key="sk-test", max_retries=0)
    runner = client.beta.messages.tool_runner(model="claude-sonnet-4-6", max_tokens=1024, betas=BETAS, tools=tools,
                                              messages=[{"role": "user", "content": "use your memory"}])
    final = runner.until_done()
    assert final.content[0].text == "done"
    assert srv.remaining == 0


def test_every_command_and_every_escape(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "ws")
    root = ws.root
    own = root / "notes" / "agent"  # /memories: the agent's own folder
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("outside secret\n")
    own.mkdir()
    os.symlink(outside, own / "out")  # a link out of the workspace
    os.symlink("../../raw", own / "rawlink")  # a link inside it
    raw = raw_digest(root)
    seg = next(iter(raw))
    manager_note = (root / "notes/people/caroline.md").read_bytes()
    memory = Memory(ws, sandbox="local")  # the heuristic retriever: code drives the sandbox

    script = [
        turn("", mem(command="view", path="/memories"),
             mem(command="create", path="/memories/ana.md", file_text="# Ana\nmoves to Lisbon in June\n"),
             mem(command="view", path="/memories/ana.md"),
             mem(command="str_replace", path="/memories/ana.md", old_str="June", new_str="July"),
             mem(command="insert", path="/memories/ana.md", insert_line=1, insert_text="- the user's sister"),
             mem(command="view", path="/memories/ana.md", view_range=[2, -1]),
             mem(command="rename", old_path="/memories/ana.md", new_path="/memories/people/ana.md"),
             mem(command="create", path="/memories/tmp/scratch.md", file_text="scratch\n"),
             mem(command="delete", path="/memories/tmp"),
             mem(command="view", path="/memories/people/ana.md", view_range=[0, 2]),
             call("recall", query="Who went to the support group?", budget=200)),
        turn("",  # every one of these must be refused
             mem(command="view", path="/memories/../outside/secret.md"),
             mem(command="view", path="/memories/../../outside"),
             mem(command="create", path="/memories/../../escape.md", file_text="x"),
             mem(command="view", path="/etc/passwd"),
             mem(command="create", path=str(tmp_path / "abs.md"), file_text="x"),
             mem(command="view", path="/memories_x/notes"),
             mem(command="create", path="/memories_x/a.md", file_text="x"),
             mem(command="view", path="memories/INDEX.md"),
             mem(command="view", path="/memories/.hidden.md"),
             mem(command="view", path="/memories/out/secret.md"),
             mem(command="view", path="/memories/out"),
             mem(command="create", path="/memories/out/planted.md", file_text="x"),
             mem(command="view", path="/memories/rawlink"),
             mem(command="delete", path="/memories/out"),
             mem(command="rename", old_path="/memories/people/ana.md", new_path="/memories/out/ana.md"),
             mem(command="view", path=f"/memories/../../{seg}"),
             mem(command="str_replace", path=f"/memories/../../{seg}", old_str="Caroline", new_str="Mallory"),
             mem(command="create", path="/memories/people/ana.md", file_text="x"),
             mem(command="delete", path="/memories"),
             mem(command="rename", old_path="/memories", new_path="/memories/x"),
             mem(command="create", path=5, file_text="x"),
             mem(command="view", path="/memories/nope.md"),
             mem(command="str_replace", path="/memories/people/ana.md", old_str="Porto", new_str="x"),
             mem(command="str_replace", path="/memories/people", old_str="a", new_str="b")),
        say("done"),
    ]
    with LoopbackServer("anthropic", script) as srv:
        run_tools(srv, [HormaMemoryTool(ws), recall_tool(memory, budget=300)])
    memory.close()

    tools = srv.requests[0].body["tools"]
    assert tools[0] == {"type": "memory_20250818", "name": "memory"} and tools[1]["name"] == "recall"
    assert BETAS[0] in srv.requests[0].headers["anthropic-beta"].split(",")

    ok = results(srv, 1)
    assert [e for e, _ in ok] == [False] * 11, ok
    listing = ok[0][1]
    assert listing.startswith("Here're the files and directories up to 2 levels deep in /memories, excluding "
                              "hidden items:\n"), listing
    assert listing.count("\n") == 1 and listing.endswith("\t/memories"), listing  # empty: no raw session, no link
    assert ok[1][1] == "File created successfully at: /memories/ana.md"
    assert ok[2][1].endswith("     1\t# Ana\n     2\tmoves to Lisbon in June\n     3\t")
    assert "moves to Lisbon in July" in ok[3][1]
    assert ok[5][1].endswith("     2\t- the user's sister\n     3\tmoves to Lisbon in July\n     4\t")
    assert ok[9][1] == ("Here's the content of /memories/people/ana.md with line numbers:\n"
                        "     1\t# Ana\n     2\t- the user's sister")  # [0, 2]: lines 1-2, as the SDK reads it
    assert (own / "people/ana.md").read_text() == "# Ana\n- the user's sister\nmoves to Lisbon in July\n"
    assert not (own / "ana.md").exists() and not (own / "tmp").exists()
    recalled = json.loads(ok[10][1])
    assert "D1:1" in [u for item in recalled["items"] for u in item["units"]]
    assert recalled["items"][0]["path"].startswith("raw/")
    assert set(recalled["cost"]) >= {"input_tokens", "llm_calls", "sandbox_commands", "wall_ms", "cost_usd"}

    refused = results(srv, 2)
    assert len(refused) == 24 and all(e for e, _ in refused), [r for r in refused if not r[0]]
    text = "\n".join(t for _, t in refused)
    assert "outside secret" not in text and "Caroline" not in text
    for i in (0, 1, 2, 15, 16):
        assert "'..' is not allowed" in refused[i][1], refused[i]
    for i in (3, 4, 5, 6, 7):
        assert "paths must be /memories or start with /memories/" in refused[i][1], refused[i]
    assert refused[8][1].endswith("no such file or folder")  # hidden names read as absent
    for i in (9, 10, 11, 12, 13, 14):
        assert "links are refused" in refused[i][1], refused[i]
    assert "already exists" in refused[17][1]
    assert refused[18][1] == "Cannot delete the /memories directory itself"
    assert refused[19][1] == "Cannot rename the /memories directory itself"
    assert "does not exist" in refused[21][1]
    assert "did not appear verbatim" in refused[22][1]
    assert refused[23][1] == "The path /memories/people is a directory, not a file."

    # nothing escaped, raw/ and the manager's notes are byte for byte what they were
    assert raw_digest(root) == raw
    assert (root / "notes/people/caroline.md").read_bytes() == manager_note
    assert not (tmp_path / "escape.md").exists() and not (tmp_path / "abs.md").exists()
    assert sorted(p.name for p in outside.iterdir()) == ["secret.md"]
    with open_index(ws, readonly=True) as search:
        hits = search.note_lines("Lisbon July sister", 5)
    assert any(path == "notes/agent/people/ana.md" for path, _, _ in hits), hits
    # every successful write is one revision of the notes history, so `horma revert` undoes Claude's edits
    with NotesHistory(ws) as history:
        messages = [r.message for r in history.log()]
    assert "memory tool: create /memories/ana.md" in messages, messages
    assert sum(m.startswith("memory tool:") for m in messages) >= 4, messages


@pytest.mark.parametrize("root_mode, file_mode", [(0o700, 0o600), (0o770, 0o660), (0o755, 0o644)])
def test_files_get_the_workspace_mode(tmp_path: Path, root_mode: int, file_mode: int) -> None:
    from anthropic.types.beta import BetaMemoryTool20250818CreateCommand, BetaMemoryTool20250818StrReplaceCommand

    ws = make_workspace(tmp_path / "ws")
    ws.root.chmod(root_mode)
    old = os.umask(0o022)  # a group workspace's files must stay group-writable under the usual umask
    try:
        tool = HormaMemoryTool(ws)
        tool.create(BetaMemoryTool20250818CreateCommand(command="create", path="/memories/a/b.md", file_text="x\n"))
        made = (ws.root / "notes/agent/a/b.md").stat().st_mode & 0o777
        folder = (ws.root / "notes/agent/a").stat().st_mode & 0o777
        tool.str_replace(BetaMemoryTool20250818StrReplaceCommand(command="str_replace", path="/memories/a/b.md",
                                                                 old_str="x", new_str="y"))
        edited = (ws.root / "notes/agent/a/b.md").stat().st_mode & 0o777
    finally:
        os.umask(old)
    assert (oct(made), oct(edited), oct(folder)) == (oct(file_mode), oct(file_mode), oct(root_mode))
    assert (ws.root / "notes/agent/a/b.md").read_text() == "y\n"


def test_async_twin(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "ws")
    raw = raw_digest(ws.root)
    script = [
        turn("", mem(command="create", path="/memories/a.md", file_text="alpha\n"),
             mem(command="view", path="/memories/a.md"),
             mem(command="view", path="/memories/../x")),
        say("done"),
    ]

    async def scenario(srv: LoopbackServer) -> None:
        client = anthropic.AsyncAnthropic(base_url=srv.base_url, api_key="sk-test", max_retries=0)
        runner = client.beta.messages.tool_runner(model="claude-sonnet-4-6", max_tokens=1024, betas=BETAS,
                                                  tools=[HormaAsyncMemoryTool(ws)],
                                                  messages=[{"role": "user", "content": "hi"}])
        final = await runner.until_done()
        assert final.content[0].text == "done"

    with LoopbackServer("anthropic", script) as srv:
        anyio.run(scenario, srv)
    got = results(srv, 1)
    assert [e for e, _ in got] == [False, False, True]
    assert got[1][1].endswith("     1\talpha\n     2\t")
    assert (ws.root / "notes/agent/a.md").read_text() == "alpha\n"
    assert raw_digest(ws.root) == raw


def test_a_preference_the_agent_wrote_is_recalled_when_asked_in_other_words(tmp_path: Path) -> None:
    """The memory tool writes the agent's note; a later recall that shares no word with its line finds it by
    meaning (the line's vector is written when the tool's change is indexed)."""
    ws = make_workspace(tmp_path / "ws")
    memory = Memory(ws, sandbox="local")
    script = [
        turn("", mem(command="create", path="/memories/preferences.md",
                     file_text="# Preferences\n- Allergic to peanuts and cashews: carries an EpiPen\n"
                               "- Sings alto in the community choir\n")),
        turn("", call("recall", query="What snacks are dangerous for me?", budget=300)),
        say("done"),
    ]
    with LoopbackServer("anthropic", script) as srv:
        run_tools(srv, [HormaMemoryTool(ws), recall_tool(memory, budget=300)])
    memory.close()
    recalled = json.loads(results(srv, 2)[0][1])
    assert recalled["items"][0]["path"] == "/memories/preferences.md", recalled  # as the agent names it
    assert "peanuts" in recalled["context"] and "alto" not in recalled["context"]


def test_example_runs_against_a_base_url(tmp_path: Path) -> None:
    script = [
        turn("Let me check.", mem(command="view", path="/memories")),
        call("memory", command="create", path="/memories/tea.md", file_text="The user takes green tea.\n"),
        say("Noted: green tea."),
    ]
    with LoopbackServer("anthropic", script) as srv:
        env = {**os.environ, "ANTHROPIC_BASE_URL": srv.base_url, "ANTHROPIC_API_KEY": "sk-test",
               "PYTHONPATH": f"{REPO}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
        proc = subprocess.run([sys.executable, str(REPO / "examples" / "anthropic_memory_tool.py"),
                               str(tmp_path / "mem"), "Remember that I take my tea green."],
                              env=env, capture_output=True, text=True, timeout=100)
    assert proc.returncode == 0, proc.stderr
    assert "-> memory {\"command\": \"view\", \"path\": \"/memories\"}" in proc.stdout
    assert proc.stdout.rstrip().endswith("Noted: green tea.")
    assert (tmp_path / "mem" / "notes" / "agent" / "tea.md").read_text() == "The user takes green tea.\n"
    assert srv.remaining == 0


@pytest.mark.parametrize("path", ["/memories", "/memories/", "/memories/prefs"])
def test_view_folders(tmp_path: Path, path: str) -> None:
    from anthropic.types.beta import BetaMemoryTool20250818CreateCommand, BetaMemoryTool20250818ViewCommand

    tool = HormaMemoryTool(make_workspace(tmp_path / "ws"))
    tool.create(BetaMemoryTool20250818CreateCommand(command="create", path="/memories/prefs/tea.md", file_text="x"))
    out = tool.view(BetaMemoryTool20250818ViewCommand(command="view", path=path))
    assert out.startswith(f"Here're the files and directories up to 2 levels deep in {path}")
    assert out.endswith("\t/memories/prefs/tea.md") and "//" not in out.split("\n", 2)[-1]
    assert ".horma" not in out and "raw" not in out and "caroline" not in out


def test_the_python_3_10_folder_delete_removes_links_without_following_them(tmp_path: Path) -> None:
    """shutil.rmtree takes dir_fd from Python 3.11 on; 3.10 deletes through os.fwalk's fds (run here on any version)."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("keep")
    doomed = tmp_path / "base" / "doomed"
    (doomed / "sub" / "deeper").mkdir(parents=True)
    (doomed / "a.txt").write_text("a")
    (doomed / "sub" / "deeper" / "b.txt").write_text("b")
    (doomed / "sub" / "to-outside").symlink_to(outside)
    (doomed / "file-link").symlink_to(outside / "keep.txt")
    fd = os.open(tmp_path / "base", os.O_RDONLY | os.O_DIRECTORY)
    try:
        _rmtree_fds("doomed", fd)
    finally:
        os.close(fd)
    assert not doomed.exists() and (tmp_path / "base").is_dir()
    assert (outside / "keep.txt").read_text() == "keep"
