#!/usr/bin/env python3
"""Load and fault test of `horma mcp --http`, driven by the official MCP Python client.

Why: a server is meant to serve many agents for weeks. Each case starts a real
server subprocess and reports what an operator would ask:

- clients: N concurrent clients, each recording into and recalling from its own
  workspace: errors, every id archived once, record and recall p50/p95;
- kill: a client records while the server is killed -9 at random moments and
  restarted: every later record succeeds and is a revision in `horma log`,
  every id once; then `horma forget` of everything leaves none of its text;
- fds: W workspaces on one server under `ulimit -n 1024`: every recall works,
  the server's open fds;
- churn: client sessions opened and dropped while one client keeps recalling:
  its recall p50, and whether its sandbox was ever restarted;
- soak: R records of 10 turns into one workspace: record p50 over the first and
  last 10, the slowest record against the median, server RSS growth,
  trajectories kept, history size against the notes it versions.

Example: python bench/load.py --cases clients,kill,fds,churn,soak --clients 32 --kills 25 --records 400
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import resource
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path

import anyio
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from rich.console import Console
from rich.table import Table

REPO = Path(__file__).resolve().parents[1]
ENV = {**os.environ, "PYTHONPATH": f"{REPO}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
ACTORS = ["user", "assistant"]


def turns(tag: str, batch: int, n: int = 10) -> list[dict]:
    return [{"id": f"{tag}:{batch}:{i}", "time": f"2024-{1 + batch // 28 % 12:02d}-{1 + batch % 28:02d} 10:{i:02d}",
             "actor": ACTORS[i % 2],
             "text": f"Batch {batch} turn {i}: {tag} talks about the boat Gull{batch % 7}, cove {batch * 10 + i} "
                     f"and the cello lesson on day {i}."} for i in range(n)]


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def server(root: Path, backend: str, *extra: str, fd_limit: int | None = None,
           port: int | None = None) -> Iterator[tuple[str, subprocess.Popen]]:
    """`horma mcp --root ROOT --http` as a subprocess; its URL and process (terminated at exit if alive)."""
    port = port or free_port()

    def limit() -> None:
        if fd_limit is not None:
            resource.setrlimit(resource.RLIMIT_NOFILE, (fd_limit, fd_limit))

    proc = subprocess.Popen([sys.executable, "-m", "horma", "mcp", "--root", str(root), "--backend", backend,
                             "--http", f"127.0.0.1:{port}", *extra], env=ENV, cwd=REPO,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, preexec_fn=limit)
    try:
        deadline = time.monotonic() + 60
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"the server exited with {proc.returncode}")
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise RuntimeError("the server did not come up") from None
                time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/mcp", proc
    finally:
        if proc.poll() is None:
            proc.terminate()
            proc.wait(timeout=30)


@asynccontextmanager
async def client(url: str) -> AsyncIterator[ClientSession]:
    async with streamable_http_client(url) as (read, write, _), ClientSession(read, write) as session:
        await session.initialize()
        yield session


async def tool(s: ClientSession, name: str, **args) -> tuple[object, float]:
    """A tool's result and its wall ms; a RuntimeError on an MCP error result."""
    t0 = time.perf_counter()
    res = await s.call_tool(name, args)
    ms = (time.perf_counter() - t0) * 1000
    if res.isError:
        raise RuntimeError(f"{name}: {' '.join(c.text for c in res.content if c.type == 'text')[:300]}")
    return res, ms


def raw_ids(ws: Path) -> Counter:
    out: Counter = Counter()
    for f in ws.glob("raw/*/units.log"):
        for line in f.read_text(encoding="utf-8").splitlines():
            if " | " in line:
                out[line.split(" | ", 1)[0]] += 1
    return out


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def folder_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file() and not p.is_symlink())


def horma_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "horma", *args], capture_output=True, text=True, env=ENV, cwd=REPO)


# -- the cases ------------------------------------------------------------------------------------------------------
def case_clients(root: Path, backend: str, clients: int, batches: int = 3) -> dict:
    rec_ms: list[float] = []
    recall_ms: list[float] = []
    errors: list[str] = []

    async def one(url: str, k: int) -> None:
        try:
            async with client(url) as s:
                for b in range(batches):
                    _, ms = await tool(s, "record", workspace=f"c{k}", session=f"b{b}", units=turns(f"c{k}", b))
                    rec_ms.append(ms)
                    _, ms = await tool(s, "recall", workspace=f"c{k}", query=f"Which boat is Gull{b % 7}?")
                    recall_ms.append(ms)
        except Exception as exc:  # every failure is counted and shown
            errors.append(f"client {k}: {type(exc).__name__}: {exc}"[:200])

    async def run(url: str) -> None:
        async with anyio.create_task_group() as tg:
            for k in range(clients):
                tg.start_soon(one, url, k)

    with server(root, backend, "--max-open", str(max(16, clients))) as (url, _):
        t0 = time.perf_counter()
        anyio.run(run, url)
        wall = time.perf_counter() - t0
    counts = [raw_ids(root / f"c{k}") for k in range(clients)]
    once = all(len(c) == batches * 10 and set(c.values()) == {1} for c in counts)
    return {"clients": clients, "errors": len(errors), "first_error": errors[0] if errors else "",
            "every_id_once": once, "record_p50_ms": pct(rec_ms, 0.5), "record_p95_ms": pct(rec_ms, 0.95),
            "recall_p50_ms": pct(recall_ms, 0.5), "recall_p95_ms": pct(recall_ms, 0.95), "wall_s": wall}


def case_kill(root: Path, backend: str, kills: int, seed: int = 21) -> dict:
    rng = random.Random(seed)
    ws = root / "k"
    sent: set[str] = set()
    failed_after: list[str] = []
    batch = 0

    async def records(url: str, until: float, must: int, grace: float = 30) -> int:
        """Record batches until ``until`` (at least ``must`` of them); how many returned success."""
        nonlocal batch
        ok = 0
        with anyio.fail_after(max(until - time.monotonic(), 0) + grace):  # a killed server never answers
            async with client(url) as s:
                while ok < must or time.monotonic() < until:
                    units = turns("k", batch)
                    sent.update(u["id"] for u in units)
                    await tool(s, "record", workspace="k", session=f"b{batch}", units=units)
                    batch += 1
                    ok += 1
        return ok

    port = free_port()
    for _ in range(kills):
        with server(root, backend, port=port) as (url, proc):
            try:
                anyio.run(records, url, time.monotonic() + 0.05, 1)  # the server must serve after the last kill
            except Exception as exc:
                failed_after.append(f"{type(exc).__name__}: {exc}"[:200])
            delay = rng.uniform(0.02, 0.6)
            timer = threading.Timer(delay, lambda p=proc: p.send_signal(signal.SIGKILL))
            timer.start()
            with contextlib.suppress(BaseException):  # the kill cuts the record in flight: expected
                anyio.run(records, url, time.monotonic() + 1.0, 1, 3)
            timer.join()
            proc.wait(timeout=10)
    with server(root, backend, port=port) as (url, _):
        anyio.run(records, url, 0, 3)
    revisions = horma_cli("log", str(ws), "--json")
    log = json.loads(revisions.stdout)["revisions"] if revisions.returncode == 0 else []
    last_logged = bool(log) and f"b{batch - 1}" in log[0]["message"]
    counts = raw_ids(ws)
    once = set(counts.values()) == {1}
    lost = len(sent - set(counts))  # sent in a record the kill cut off: may or may not have been archived
    forgot = horma_cli("forget", str(ws), "--actor", "user", "--actor", "assistant", "--yes")
    marker = b"talks about the boat"
    leftover = [p.relative_to(ws).as_posix() for p in ws.rglob("*")
                if p.is_file() and not p.is_symlink() and marker in p.read_bytes()]
    return {"kills": kills, "records_failed_after_restart": len(failed_after),
            "first_failure": failed_after[0] if failed_after else "", "last_record_in_log": last_logged,
            "revisions": len(log), "every_id_once": once, "ids": len(counts), "cut_records_ids_absent": lost,
            "forget_rc": forgot.returncode, "forget_error": forgot.stderr.strip()[-200:],
            "files_with_text_after_forget": len(leftover), "leftover": leftover[:3]}


def case_fds(root: Path, backend: str, workspaces: int) -> dict:
    errors: list[str] = []

    async def run(url: str, pid: int) -> int:
        async with client(url) as s:
            for k in range(workspaces):
                await tool(s, "record", workspace=f"f{k}", units=turns(f"f{k}", 0))
            for _ in range(2):
                for k in range(workspaces):
                    try:
                        res, _ = await tool(s, "recall", workspace=f"f{k}", query="Which boat is Gull0?")
                        if "Gull0" not in res.structuredContent["context"]:
                            errors.append(f"f{k}: recall missed")
                        await tool(s, "search", workspace=f"f{k}", query="boat Gull0")
                    except Exception as exc:
                        errors.append(f"f{k}: {exc}"[:200])
        return len(os.listdir(f"/proc/{pid}/fd"))

    with server(root, backend, fd_limit=1024) as (url, proc):
        fds = anyio.run(run, url, proc.pid)
    return {"workspaces": workspaces, "fd_limit": 1024, "errors": len(errors),
            "first_error": errors[0] if errors else "", "server_fds": fds}


def case_churn(root: Path, backend: str, sessions: int) -> dict:
    recall_ms: list[float] = []
    restarts = 0

    async def run(url: str) -> None:
        nonlocal restarts
        async with client(url) as steady:
            await tool(steady, "record", workspace="steady", units=turns("steady", 0))
            await tool(steady, "run", workspace="steady", command="horma_probe=kept")
            for k in range(sessions):
                async with client(url) as other:
                    await tool(other, "record", workspace=f"o{k % 4}", units=turns(f"o{k % 4}", k))
                _, ms = await tool(steady, "recall", workspace="steady", query="Which boat is Gull0?")
                recall_ms.append(ms)
                res, _ = await tool(steady, "run", workspace="steady", command="echo ${horma_probe:-restarted}")
                restarts += "restarted" in res.content[0].text

    with server(root, backend) as (url, _):
        anyio.run(run, url)
    return {"sessions": sessions, "steady_recall_p50_ms": pct(recall_ms, 0.5),
            "steady_recall_p95_ms": pct(recall_ms, 0.95), "steady_sandbox_restarts": restarts}


def case_soak(root: Path, backend: str, records: int) -> dict:
    ms: list[float] = []

    async def run(url: str, pid: int) -> tuple[float, float]:
        async with client(url) as s:
            await tool(s, "record", workspace="soak", units=turns("warm", 0))
            await tool(s, "recall", workspace="soak", query="boat")
            rss0 = rss_mb(pid)
            for b in range(records):
                _, t = await tool(s, "record", workspace="soak", session=f"b{b}", units=turns("soak", b))
                ms.append(t)
                if b % 4 == 0:
                    await tool(s, "recall", workspace="soak", query=f"Where is cove {b * 10}?")
            return rss0, rss_mb(pid)

    with server(root, backend) as (url, proc):
        rss0, rss1 = anyio.run(run, url, proc.pid)
        time.sleep(3)  # let a queued background compaction finish before sizes are taken
    ws = root / "soak"
    median = statistics.median(ms)
    notes = folder_bytes(ws / "notes") + (ws / "INDEX.md").stat().st_size
    history = folder_bytes(ws / ".horma" / "history")
    traj = list((ws / ".horma" / "trajectories").glob("*.jsonl"))
    return {"records": records, "p50_first10_ms": statistics.median(ms[:10]),
            "p50_last10_ms": statistics.median(ms[-10:]), "median_ms": median, "max_ms": max(ms),
            "records_over_10x_median": sum(t > 10 * median for t in ms), "rss_start_mb": rss0, "rss_end_mb": rss1,
            "trajectories": len(traj), "trajectory_mb": sum(p.stat().st_size for p in traj) / 2**20,
            "raw_kb": folder_bytes(ws / "raw") / 1024, "notes_kb": notes / 1024, "history_kb": history / 1024,
            "history_over_notes": history / notes}


CASES = {"clients": case_clients, "kill": case_kill, "fds": case_fds, "churn": case_churn, "soak": case_soak}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cases", default="clients,kill,fds,churn,soak")
    ap.add_argument("--backend", default="bwrap")
    ap.add_argument("--clients", type=int, default=32)
    ap.add_argument("--kills", type=int, default=25)
    ap.add_argument("--workspaces", type=int, default=12)
    ap.add_argument("--sessions", type=int, default=30)
    ap.add_argument("--records", type=int, default=400)
    args = ap.parse_args()
    sizes = {"clients": args.clients, "kill": args.kills, "fds": args.workspaces, "churn": args.sessions,
             "soak": args.records}
    console = Console()
    for name in args.cases.split(","):
        with tempfile.TemporaryDirectory(prefix=f"horma-load-{name}-") as tmp:
            t0 = time.perf_counter()
            result = CASES[name](Path(tmp) / "root", args.backend, sizes[name])
        table = Table(title=f"{name} ({time.perf_counter() - t0:.0f} s)")
        table.add_column("measure")
        table.add_column("value", justify="right")
        for key, value in result.items():
            table.add_row(key, f"{value:.1f}" if isinstance(value, float) else str(value))
        console.print(table)


if __name__ == "__main__":
    main()
