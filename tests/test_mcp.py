"""`horma mcp` through the mcp SDK's own client, over stdio and streamable HTTP, the server a real subprocess."""

from __future__ import annotations

import hashlib
import os
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import pytest
from conftest import backend_status, require_backend
from typer.testing import CliRunner

mcp = pytest.importorskip("mcp", reason="the mcp extra is not installed")
from mcp import ClientSession, StdioServerParameters  # noqa: E402
from mcp.client.stdio import stdio_client  # noqa: E402
from mcp.client.streamable_http import streamable_http_client  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
ENV = {**os.environ, "PYTHONPATH": f"{REPO}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
TOOLS = {"record", "recall", "search", "read", "run", "tree", "workspaces", "forget", "delete_note"}

ALPHA = [
    {"id": "s1:1", "time": "2024-03-02 09:15", "actor": "user", "text": "My sister Ana moves to Lisbon in June."},
    {"id": "s1:2", "time": "2024-03-02 09:16", "actor": "assistant", "text": "Lisbon is lovely in June."},
    {"id": "s1:3", "time": "2024-03-02 09:17", "actor": "user", "text": "She found a flat near the river."},
]
SECRET = "zebra-7331"
BETA = [{"id": "b1:1", "time": "2024-04-01 10:00", "actor": "user", "text": f"The vault code is {SECRET}, keep it."}]


def isolated() -> str:
    """An isolated backend to run the protocol tests on (bwrap starts fastest); skip where none works."""
    for name in ("bwrap", "docker"):
        if backend_status(name).available:
            return name
    pytest.skip(f"no isolated sandbox here: {backend_status('bwrap').reason}; {backend_status('docker').reason}")


def horma_mcp(*args: str) -> list[str]:
    return [sys.executable, "-m", "horma", "mcp", *args]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@asynccontextmanager
async def session_over(transport: str, *args: str) -> AsyncIterator[ClientSession]:
    """A client session with `horma mcp ARGS` started as a subprocess, over stdio or streamable HTTP."""
    if transport == "stdio":
        params = StdioServerParameters(command=sys.executable, args=horma_mcp(*args)[1:], env=ENV, cwd=str(REPO))
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            yield session
        return
    port = free_port()
    proc = subprocess.Popen(horma_mcp(*args, "--http", f"127.0.0.1:{port}"), env=ENV, cwd=REPO,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 30
        while True:
            assert proc.poll() is None, proc.stderr.read().decode()
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                assert time.monotonic() < deadline, "the HTTP server did not come up"
                await anyio.sleep(0.1)
        async with streamable_http_client(f"http://127.0.0.1:{port}/mcp") as (read, write, _), \
                ClientSession(read, write) as session:
            await session.initialize()
            yield session
    finally:
        proc.terminate()
        proc.wait(timeout=20)


async def call(client: ClientSession, tool: str, **args) -> str:
    """A tool's text; fails the test on an MCP error result."""
    res = await client.call_tool(tool, args)
    text = "\n".join(c.text for c in res.content if c.type == "text")
    assert not res.isError, f"{tool}({args}) failed: {text}"
    return text


async def error(client: ClientSession, tool: str, **args) -> str:
    """The error text of a call that must fail as an MCP error result."""
    res = await client.call_tool(tool, args)
    text = "\n".join(c.text for c in res.content if c.type == "text")
    assert res.isError, f"{tool}({args}) should have failed, got: {text}"
    return text


def files_of(folder: Path) -> dict[str, str]:
    """Every file under ``folder`` except .horma/, with its sha256 (links as their target)."""
    out = {}
    for p in sorted(folder.rglob("*")):
        rel = p.relative_to(folder).as_posix()
        if rel.startswith(".horma"):
            continue
        if p.is_symlink():
            out[rel] = "link:" + os.readlink(p)
        elif p.is_file():
            out[rel] = hashlib.sha256(p.read_bytes()).hexdigest()
        else:
            out[rel] = "dir"
    return out


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_the_tools_over_each_transport(tmp_path: Path, transport: str) -> None:
    backend = isolated()
    root = tmp_path / "root"

    async def scenario() -> None:
        async with session_over(transport, "--root", str(root), "--backend", backend) as s:
            listed = await s.list_tools()
            tools = {t.name: t for t in listed.tools}
            assert set(tools) == TOOLS
            assert all(len(t.description or "") > 40 for t in tools.values())
            assert tools["record"].annotations.readOnlyHint is False
            assert tools["record"].annotations.destructiveHint is False
            assert tools["record"].annotations.idempotentHint is True
            for name in ("recall", "search", "read", "run", "tree"):
                assert tools[name].annotations.readOnlyHint is True, name
            assert "workspace" in tools["recall"].inputSchema["properties"]

            rec = await s.call_tool("record", {"workspace": "alpha", "session": "s1", "units": ALPHA})
            assert not rec.isError
            assert rec.structuredContent["archived"] == 3
            assert rec.structuredContent["segment"].startswith("raw/2024-03-02T09-15__s1/")
            assert set(rec.structuredContent["cost"]) == {"input_tokens", "output_tokens", "llm_calls",
                                                          "sandbox_commands", "wall_ms", "cost_usd"}
            again = await s.call_tool("record", {"workspace": "alpha", "units": ALPHA})
            assert (again.structuredContent["archived"], again.structuredContent["skipped"]) == (0, 3)
            await call(s, "record", workspace="beta", units=BETA)

            res = await s.call_tool("recall", {"workspace": "alpha", "query": "Where is Ana moving?", "budget": 200})
            assert not res.isError
            got = res.structuredContent
            assert "Lisbon" in got["context"] and got["tokens"] <= 200
            item = got["items"][0]
            assert item["path"] == rec.structuredContent["segment"]
            assert 1 <= item["start"] <= item["end"] <= 3
            assert "s1:1" in got["refs"] and set(item["refs"]) <= {"s1:1", "s1:2", "s1:3"}
            assert got["cost"]["sandbox_commands"] >= 2 and got["cost"]["wall_ms"] > 0
            assert got["cost"]["llm_calls"] == 0 and got["cost"]["cost_usd"] == 0.0

            hits = await call(s, "search", workspace="alpha", query="Lisbon flat", n=5)
            assert f"{item['path']}:3:s1:3 | 2024-03-02 09:17 | user: She found a flat" in hits

            text = await call(s, "read", workspace="alpha", path=item["path"], start=2, end=3)
            assert text.splitlines() == ["     2\ts1:2 | 2024-03-02 09:16 | assistant: Lisbon is lovely in June.",
                                         "     3\ts1:3 | 2024-03-02 09:17 | user: She found a flat near the river."]
            assert (await call(s, "read", workspace="alpha", path="/INDEX.md")).startswith("     1\t# INDEX")

            shown = await call(s, "tree", workspace="alpha", depth=2)
            assert "INDEX.md" in shown and "  notes/" in shown and "  raw/" in shown and ".horma" not in shown
            assert "units.log" in await call(s, "tree", workspace="alpha", path="raw", depth=2)
            assert set((await call(s, "workspaces")).split()) == {"alpha", "beta"}

            resources = {str(r.uri) for r in (await s.list_resources()).resources}
            assert "horma://alpha/INDEX.md" in resources
            assert any(u.startswith("horma://alpha/notes/") for u in resources)
            index = await s.read_resource("horma://alpha/INDEX.md")
            assert index.contents[0].text.startswith("# INDEX")

            # a second workspace's content never appears in the first one's calls
            os.symlink(root / "beta" / "raw", root / "alpha" / "notes" / "leak")
            os.symlink("../../beta/raw", root / "alpha" / "notes" / "leak2")
            seen = [
                await call(s, "recall", workspace="alpha", query="What is the vault code? keep it"),
                await call(s, "search", workspace="alpha", query="vault code keep"),
                await call(s, "tree", workspace="alpha", depth=8),
                await call(s, "run", workspace="alpha",
                           command="cat ../beta/raw/*/units.log notes/leak/*/units.log notes/leak2/*/units.log; "
                                   "grep -rs zebra- / ; ls -R .. | head -50"),
            ]
            for path in ("../beta/INDEX.md", "notes/leak", "notes/leak/x/units.log", "notes/leak2",
                         ".horma/workspace.yaml", str(root / "beta" / "INDEX.md")):
                seen.append(await error(s, "read", workspace="alpha", path=path))
            seen.append(await error(s, "tree", workspace="alpha", path="notes/leak"))
            assert "links are refused" in seen[-2] or "no such file" in seen[-2]
            for out in seen:
                assert SECRET not in out and "The vault code is" not in out
            assert "(link, not followed)" in seen[2]

            # bad arguments are MCP errors, and the server keeps serving
            assert "string" in await error(s, "recall", workspace="alpha", query=5)
            assert "budget" in await error(s, "recall", workspace="alpha", query="x", budget=0)
            await error(s, "record", workspace="alpha", units=[{"id": "x:1"}])
            await error(s, "record", workspace="alpha", units=[{**ALPHA[0], "id": "bad id"}])
            await error(s, "record", workspace="alpha", units=[])
            assert "bad workspace name" in await error(s, "recall", workspace="../beta", query="vault")
            assert "bad workspace name" in await error(s, "record", workspace=".horma", units=ALPHA)
            assert "no workspace 'gamma'" in await error(s, "recall", workspace="gamma", query="x")
            assert "name the workspace" in await error(s, "recall", query="x")
            await error(s, "read", workspace="alpha", path="notes/nope.md")
            await error(s, "read", workspace="alpha", path="INDEX.md", start=99)
            await error(s, "nope")
            with pytest.raises(mcp.McpError):
                await s.read_resource("horma://alpha/raw/../../beta/INDEX.md")
            assert "Lisbon" in await call(s, "recall", workspace="alpha", query="Where is Ana moving?")

    anyio.run(scenario)
    assert not (root / "gamma").exists() and not (root / ".horma").exists()


def test_run_cannot_write(tmp_path: Path, isolated_backend: str) -> None:
    """`run` is one command in the read view: writes of every kind fail and the workspace is unchanged."""
    ws = tmp_path / "mem"

    async def scenario() -> None:
        async with session_over("stdio", str(ws), "--backend", isolated_backend, "--run-timeout", "2") as s:
            await call(s, "record", units=ALPHA, session="s1")
            before = files_of(ws)
            for command in ("touch new.txt", "rm INDEX.md", "rm -rf raw notes", "echo x > notes/x.md",
                            "echo x >> INDEX.md", "mkdir d", "mv INDEX.md moved.md", "cp INDEX.md copy.md",
                            "ln -s /etc notes/etc", "sed -i s/INDEX/X/ INDEX.md"):
                out = await call(s, "run", command=command)
                assert out.rstrip().endswith("]") and "[exit code 0]" not in out, (command, out)
            assert files_of(ws) == before
            out = await call(s, "run", command="sleep 30")
            assert "timed out after 2 s" in out
            assert "INDEX.md" in await call(s, "run", command="ls")  # the session came back

    anyio.run(scenario)


def test_local_backend_serves_but_refuses_run(tmp_path: Path) -> None:
    """Without isolation, record and recall work (code drives them) but the client's own commands are refused."""
    require_backend("local")
    ws = tmp_path / "mem"

    async def scenario() -> None:
        async with session_over("stdio", str(ws), "--backend", "local") as s:
            await call(s, "record", units=ALPHA)
            assert "Lisbon" in await call(s, "recall", query="Where is Ana moving?")
            assert "--unsafe-local" in await error(s, "run", command="ls")
            assert "--unsafe-local" in await error(s, "search", query="Lisbon")
            assert "serves only the workspace" in await error(s, "recall", query="x", workspace="other")

    anyio.run(scenario)


def test_cli_refuses_bad_setups(tmp_path: Path) -> None:
    from horma.cli import app

    runner = CliRunner()
    cases = {
        ("mcp",): "name one workspace folder",
        ("mcp", str(tmp_path / "a"), "--root", str(tmp_path)): "name one workspace folder",
        ("mcp", str(tmp_path / "a"), "--workspace", "x"): "--workspace NAME picks a workspace of --root",
        ("mcp", "--root", str(tmp_path), "--unsafe-local"): "cannot keep workspaces apart",
        ("mcp", "--root", str(tmp_path), "--workspace", "../x"): "bad workspace name",
        ("mcp", str(tmp_path / "a"), "--http", "0.0.0.0:8765"): "not a loopback address",
        ("mcp", str(tmp_path / "a"), "--http", "localhost"): "--http must be HOST:PORT",
    }
    for args, message in cases.items():
        result = runner.invoke(app, list(args))
        assert result.exit_code != 0, args
        assert message in result.output.replace("\n", " "), (args, result.output)
    assert not (tmp_path / "a").exists()


def test_missing_extra_is_one_clear_line(tmp_path: Path) -> None:
    code = "import sys; sys.modules['mcp'] = None; from horma.cli import main; main()"
    proc = subprocess.run([sys.executable, "-c", code, "mcp", str(tmp_path / "m")], env={**ENV, "COLUMNS": "200"},
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode != 0
    assert proc.stderr.strip() == "error: the MCP server needs the mcp extra: pip install -e '.[mcp]'"


def test_help_teaches() -> None:
    proc = subprocess.run(horma_mcp("--help"), env={**ENV, "COLUMNS": "200"}, capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0
    for needle in ("horma mcp ./mem --print-config", "claude mcp add horma -- /abs/.venv/bin/python -m horma mcp",
                   '"mcpServers"', '["-m", "horma", "mcp", "/abs/mem"]',
                   "--http", "--root", "record", "recall", "pip install -e '.[mcp]'"):
        assert needle in proc.stdout, needle


def test_example_client_session(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, str(REPO / "examples" / "mcp" / "client_session.py"), str(tmp_path / "m")],
                          env=ENV, cwd=REPO, capture_output=True, text=True, timeout=110)
    assert proc.returncode == 0, proc.stderr
    assert "tools: delete_note, forget, read, recall, record, run, search, tree, workspaces" in proc.stdout
    assert "archived 3 units" in proc.stdout
    assert "s1:1" in proc.stdout and "Lisbon" in proc.stdout
