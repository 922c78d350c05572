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
from horma import Memory
from horma.history import NotesHistory
from horma.index import open_index
from horma.memory_tool import HormaAsyncMemoryTool, HormaMemoryTool, recall_tool
from loopback import LoopbackServer, call, say, turn

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
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("outside secret\n")
    os.symlink(outside, root / "notes" / "out")  # a link out of the workspace
    os.symlink("../raw", root / "notes" / "rawlink")  # a link inside it
    raw = raw_digest(root)
    seg = next(iter(raw)).removeprefix("raw/")
    memory = Memory(ws, sandbox="local")  # the heuristic retriever: code drives the sandbox

    script = [
        turn("", mem(command="view", path="/memories"),
             mem(command="create", path="/memories/notes/ana.md", file_text="# Ana\nmoves to Lisbon in June\n"),
             mem(command="view", path="/memories/notes/ana.md"),
             mem(command="str_replace", path="/memories/notes/ana.md", old_str="June", new_str="July"),
             mem(command="insert", path="/memories/notes/ana.md", insert_line=1, insert_text="- the user's sister"),
             mem(command="view", path="/memories/notes/ana.md", view_range=[2, -1]),
             mem(command="rename", old_path="/memories/notes/ana.md", new_path="/memories/notes/people/ana.md"),
             mem(command="create", path="/memories/notes/tmp/scratch.md", file_text="scratch\n"),
             mem(command="delete", path="/memories/notes/tmp"),
             mem(command="str_replace", path="/memories/INDEX.md", old_str="# INDEX", new_str="# INDEX (shared)"),
             call("recall", query="Who went to the support group?", budget=200)),
        turn("",  # every one of these must be refused
             mem(command="view", path="/memories/../outside/secret.md"),
             mem(command="view", path="/memories/notes/../../outside"),
             mem(command="create", path="/memories/notes/../../escape.md", file_text="x"),
             mem(command="view", path="/etc/passwd"),
             mem(command="create", path=str(tmp_path / "abs.md"), file_text="x"),
             mem(command="view", path="/memories_x/notes"),
             mem(command="create", path="/memories_x/a.md", file_text="x"),
             mem(command="view", path="memories/INDEX.md"),
             mem(command="view", path="/memories/.horma/workspace.yaml"),
             mem(command="view", path="/memories/notes/out/secret.md"),
             mem(command="view", path="/memories/notes/out"),
             mem(command="create", path="/memories/notes/out/planted.md", file_text="x"),
             mem(command="view", path="/memories/notes/rawlink"),
             mem(command="delete", path="/memories/notes/out"),
             mem(command="rename", old_path="/memories/notes/people/ana.md", new_path="/memories/notes/out/ana.md"),
             mem(command="create", path=f"/memories/raw/{seg}", file_text="x"),
             mem(command="create", path="/memories/raw/new/units.log", file_text="x"),
             mem(command="str_replace", path=f"/memories/raw/{seg}", old_str="Caroline", new_str="Mallory"),
             mem(command="insert", path=f"/memories/raw/{seg}", insert_line=0, insert_text="x"),
             mem(command="delete", path=f"/memories/raw/{seg}"),
             mem(command="rename", old_path="/memories/raw", new_path="/memories/notes/raw"),
             mem(command="create", path="/memories/top.md", file_text="x"),
             mem(command="create", path="/memories/INDEX.md", file_text="x"),
             mem(command="delete", path="/memories"),
             mem(command="delete", path="/memories/notes"),
             mem(command="delete", path="/memories/INDEX.md"),
             mem(command="create", path=5, file_text="x"),
             mem(command="view", path="/memories/notes/nope.md")),
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
    assert "/memories/INDEX.md" in listing and "/memories/notes/people/" in listing and "/memories/raw/" in listing
    assert ".horma" not in listing and "outside" not in listing and "/memories/notes/out" not in listing
    assert ok[1][1] == "File created successfully at: /memories/notes/ana.md"
    assert ok[2][1].endswith("     1\t# Ana\n     2\tmoves to Lisbon in June\n     3\t")
    assert "moves to Lisbon in July" in ok[3][1]
    assert ok[5][1].endswith("     2\t- the user's sister\n     3\tmoves to Lisbon in July\n     4\t")
    assert (root / "notes/people/ana.md").read_text() == "# Ana\n- the user's sister\nmoves to Lisbon in July\n"
    assert not (root / "notes/ana.md").exists() and not (root / "notes/tmp").exists()
    assert (root / "INDEX.md").read_text().startswith("# INDEX (shared)")
    recalled = json.loads(ok[10][1])
    assert "D1:1" in [u for item in recalled["items"] for u in item["units"]]
    assert recalled["items"][0]["path"].startswith("/memories/raw/")
    assert set(recalled["cost"]) >= {"input_tokens", "llm_calls", "sandbox_commands", "wall_ms", "cost_usd"}

    refused = results(srv, 2)
    assert len(refused) == 28 and all(e for e, _ in refused), [r for r in refused if not r[0]]
    text = "\n".join(t for _, t in refused)
    assert "outside secret" not in text and "layout_version" not in text
    assert "'..' is not allowed" in refused[0][1] and "'..' is not allowed" in refused[2][1]
    for i in (3, 4, 5, 6, 7):
        assert "paths must be /memories or start with /memories/" in refused[i][1], refused[i]
    assert refused[8][1].endswith("no such file or folder")  # .horma/ is invisible, as if absent
    for i in (9, 10, 11, 12, 13):
        assert "links are refused" in refused[i][1], refused[i]
    for i in (15, 16, 17, 18, 19, 20):
        assert "read-only archive" in refused[i][1], refused[i]
    assert "already exists" in refused[22][1]

    # nothing escaped, raw/ is byte for byte what it was, Claude's note is in the search index
    assert raw_digest(root) == raw
    assert not (tmp_path / "escape.md").exists() and not (tmp_path / "abs.md").exists()
    assert sorted(p.name for p in outside.iterdir()) == ["secret.md"]
    assert (root / "notes/people/ana.md").is_file()
    with open_index(ws, readonly=True) as search:
        hits = search.note_lines("Lisbon July sister", 5)
    assert any(path == "notes/people/ana.md" for path, _, _ in hits), hits
    # every successful write is one revision of the notes history, so `horma revert` undoes Claude's edits
    with NotesHistory(ws) as history:
        messages = [r.message for r in history.log()]
    assert "memory tool: create /memories/notes/ana.md" in messages, messages
    assert sum(m.startswith("memory tool:") for m in messages) >= 4, messages


def test_async_twin(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "ws")
    raw = raw_digest(ws.root)
    script = [
        turn("", mem(command="create", path="/memories/notes/a.md", file_text="alpha\n"),
             mem(command="view", path="/memories/notes/a.md"),
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
    assert (ws.root / "notes/a.md").read_text() == "alpha\n"
    assert raw_digest(ws.root) == raw


def test_example_runs_against_a_base_url(tmp_path: Path) -> None:
    script = [
        turn("Let me check.", mem(command="view", path="/memories")),
        call("memory", command="create", path="/memories/notes/tea.md", file_text="The user takes green tea.\n"),
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
    assert (tmp_path / "mem" / "notes" / "tea.md").read_text() == "The user takes green tea.\n"
    assert srv.remaining == 0


@pytest.mark.parametrize("path", ["/memories", "/memories/", "/memories/notes", "/memories/raw"])
def test_view_folders(tmp_path: Path, path: str) -> None:
    from anthropic.types.beta import BetaMemoryTool20250818ViewCommand

    tool = HormaMemoryTool(make_workspace(tmp_path / "ws"))
    out = tool.view(BetaMemoryTool20250818ViewCommand(command="view", path=path))
    assert out.startswith(f"Here're the files and directories up to 2 levels deep in {path}")
    assert ".horma" not in out
