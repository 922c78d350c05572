"""Per-command round trip of each backend's persistent shell vs a new process per command.

Usage: .venv/bin/python bench/sandbox_latency.py [--n 100] [--json]

For every available backend it opens a read-view session on a small scratch
workspace and times ``exec("true")`` and ``exec("cat INDEX.md")`` from the
caller's side (median and p90 of N after a warm-up). For comparison it times
the per-command alternatives the persistent shells replace: one ``docker exec``
per command into the same container, and one fresh ``bwrap`` per command.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from rich.console import Console
from rich.table import Table

from horma.note import Note
from horma.sandbox import View, check_backends, open_sandbox, safe_env
from horma.sandbox import bwrap as bwrap_backend
from horma.workspace import Unit, Workspace


def timed(fn: Callable[[], object], n: int, warmup: int = 5) -> dict[str, float]:
    for _ in range(warmup):
        fn()
    samples = []
    for _ in range(n):
        t0 = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - t0) * 1000)
    samples.sort()
    return {"median_ms": statistics.median(samples), "p90_ms": samples[int(0.9 * (len(samples) - 1))]}


def scratch_workspace(root: Path) -> Workspace:
    ws = Workspace.init(root)
    with ws.writer():
        raw = ws.archive([Unit(f"D1:{i}", "2023-05-08 13:56", "Ann", f"turn {i}") for i in range(1, 51)], "bench")
        ws.write_note(Note("notes/ann.md", "Ann", "Ann spoke 50 times (D1:1).",
                           sources=[{"path": raw, "units": ["D1:1"]}]))
    return ws


def run(n: int) -> list[dict]:
    rows: list[dict] = []
    available = {s.name for s in check_backends() if s.available}
    with tempfile.TemporaryDirectory(prefix="horma-bench-") as tmp:
        Path(tmp).chmod(0o755)
        ws = scratch_workspace(Path(tmp) / "ws")
        for backend in ("local", "bwrap", "docker"):
            if backend not in available:
                continue
            with open_sandbox(ws.root, backend, View.READ) as sb:
                for cmd in ("true", "cat INDEX.md"):
                    rows.append({"backend": backend, "mode": "persistent shell", "command": cmd, "n": n,
                                 **timed(lambda c=cmd: sb.exec(c), n)})  # fmt: skip
                if backend == "docker":
                    argv = ["docker", "exec", "-u", "10001", "-w", "/ws", sb.container.id, "true"]
                    rows.append({"backend": backend, "mode": "one `docker exec` per command", "command": "true",
                                 "n": n, **timed(lambda argv=argv: subprocess.run(argv, check=True), n)})  # fmt: skip
            if backend == "bwrap":
                argv = bwrap_backend.command(ws.root, View.READ, sb.limits, inner=["/usr/bin/true"])
                env = safe_env("/ws")
                run_once = lambda argv=argv, env=env: subprocess.run(argv, env=env, check=True)
                rows.append({"backend": backend, "mode": "one `bwrap` per command", "command": "true", "n": n,
                             **timed(run_once, n)})  # fmt: skip
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=100, help="timed commands per row (median over these)")
    parser.add_argument("--json", action="store_true", help="print the rows as JSON")
    args = parser.parse_args()
    rows = run(args.n)
    if args.json:
        print(json.dumps(rows, indent=2))
        return
    table = Table("backend", "mode", "command", "median ms", "p90 ms", title=f"sandbox round trip (n={args.n})")
    for r in rows:
        table.add_row(r["backend"], r["mode"], r["command"], f"{r['median_ms']:.2f}", f"{r['p90_ms']:.2f}")
    Console().print(table)


if __name__ == "__main__":
    main()
