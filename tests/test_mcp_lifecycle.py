"""`horma mcp --http` as a long-running server: sandboxes owned by the server, bounded open workspaces, fd limits.

The server is a real subprocess and every client the mcp SDK's own; a shell
variable set through `run` tells whether a workspace's sandbox is the one it
was (set) or a restarted one (empty).
"""

from __future__ import annotations

import os
import resource
import subprocess
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path

import anyio
import pytest
from test_mcp import ENV, REPO, call, free_port, horma_mcp, isolated  # tests/ is on sys.path

mcp = pytest.importorskip("mcp", reason="the mcp extra is not installed")
from mcp import ClientSession  # noqa: E402
from mcp.client.streamable_http import streamable_http_client  # noqa: E402

PROBE = "horma_probe"


def units(tag: str, n: int = 3) -> list[dict]:
    return [{"id": f"{tag}:{i}", "time": f"2024-03-02 09:{i:02d}", "actor": "user",
             "text": f"In workspace {tag} the boat called Gull{tag} sails on day {i}."} for i in range(1, n + 1)]


@contextmanager
def http_server(*args: str, fd_limit: int | None = None) -> Iterator[tuple[str, subprocess.Popen]]:
    """`horma mcp ARGS --http` on a free port; its URL and process."""
    port = free_port()

    def limit() -> None:
        if fd_limit is not None:
            resource.setrlimit(resource.RLIMIT_NOFILE, (fd_limit, fd_limit))

    proc = subprocess.Popen(horma_mcp(*args, "--http", f"127.0.0.1:{port}"), env=ENV, cwd=REPO,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, preexec_fn=limit)
    try:
        import socket

        deadline = time.monotonic() + 30
        while True:
            assert proc.poll() is None, proc.stderr.read().decode()
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                assert time.monotonic() < deadline, "the HTTP server did not come up"
                time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/mcp", proc
    finally:
        proc.terminate()
        proc.wait(timeout=20)


@asynccontextmanager
async def client(url: str) -> AsyncIterator[ClientSession]:
    async with streamable_http_client(url) as (read, write, _), ClientSession(read, write) as session:
        await session.initialize()
        yield session


async def probe(s: ClientSession, ws: str) -> str:
    """'kept' when the workspace's sandbox shell is the one a ``set_probe`` reached, 'restarted' otherwise."""
    out = await call(s, "run", workspace=ws, command=f"echo ${{{PROBE}:-restarted}}")
    return out.splitlines()[0]


async def set_probe(s: ClientSession, ws: str) -> None:
    await call(s, "run", workspace=ws, command=f"{PROBE}=kept")
    assert await probe(s, ws) == "kept"


def test_a_session_ending_never_restarts_another_clients_sandbox(tmp_path: Path) -> None:
    backend = isolated()

    async def scenario(url: str) -> None:
        async with client(url) as a:
            await call(a, "record", workspace="a", units=units("a"))
            await set_probe(a, "a")
            recall_before = (await a.call_tool("recall", {"workspace": "a", "query": "Which boat sails?"}))
            for _ in range(3):  # other clients come and go, on their own workspace and on a's
                async with client(url) as b:
                    await call(b, "record", workspace="b", units=units("b"))
                    assert "Gullb" in await call(b, "recall", workspace="b", query="Which boat sails?")
                    assert await probe(b, "a") == "kept"  # a's workspace shell, reached by another client
            await anyio.sleep(1.0)  # the SDK ends a session's tasks asynchronously
            assert await probe(a, "a") == "kept"
            after = await a.call_tool("recall", {"workspace": "a", "query": "Which boat sails?"})
            assert "Gulla" in after.structuredContent["context"]
            assert after.structuredContent["context"] == recall_before.structuredContent["context"]

    with http_server("--root", str(tmp_path / "root"), "--backend", backend) as (url, _):
        anyio.run(scenario, url)


def test_open_workspaces_are_bounded_and_the_least_recently_used_is_closed(tmp_path: Path) -> None:
    backend = isolated()

    async def scenario(url: str) -> None:
        async with client(url) as s:
            for ws in ("a", "b"):
                await call(s, "record", workspace=ws, units=units(ws))
                await set_probe(s, ws)
            await call(s, "recall", workspace="a", query="boat")  # a is now the most recently used
            await call(s, "record", workspace="c", units=units("c"))  # a third: b, the least recent, is closed
            assert await probe(s, "a") == "kept"
            assert await probe(s, "b") == "restarted"
            for ws in ("a", "b", "c"):  # a closed workspace reopens on its next call
                assert f"Gull{ws}" in await call(s, "recall", workspace=ws, query="Which boat sails?")

    with http_server("--root", str(tmp_path / "root"), "--backend", backend, "--max-open", "2") as (url, _):
        anyio.run(scenario, url)


def test_twelve_workspaces_under_a_1024_fd_limit_all_recall(tmp_path: Path) -> None:
    backend = isolated()
    names = [f"w{i}" for i in range(12)]

    async def scenario(url: str, pid: int) -> int:
        async with client(url) as s:
            for ws in names:
                await call(s, "record", workspace=ws, units=units(ws, 8))
            for _ in range(2):
                for ws in names:
                    assert f"Gull{ws}" in await call(s, "recall", workspace=ws, query="Which boat sails?")
                    assert f"Gull{ws}" in await call(s, "search", workspace=ws, query="boat sails")
            return len(os.listdir(f"/proc/{pid}/fd"))

    with http_server("--root", str(tmp_path / "root"), "--backend", backend, fd_limit=1024) as (url, proc):
        fds = anyio.run(scenario, url, proc.pid)
    print(f"server fds with 12 workspaces open: {fds}")
    assert fds < 512, f"the server holds {fds} fds for 12 workspaces"
