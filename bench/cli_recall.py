#!/usr/bin/env python3
"""What one ``horma recall`` typed in a shell costs: a whole process, from start to exit.

Why: the recall itself takes tens of milliseconds (bench/scale.py), but a shell user pays for the
process around it: imports, loading the embedding model, opening and closing the sandbox. This builds
the demo workspace once (the conversation ``horma demo`` ships), then times N runs of
``horma recall WS QUERY --budget 300`` per backend (after one warm-up run), and prints p50 and p90.

Examples:
  python bench/cli_recall.py                      (every available backend, 10 runs each)
  python bench/cli_recall.py --backends local --n 20 --json
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

QUERIES = ("What does Tomás sell at the farmers' market?", "Where is Jun travelling in June, and why?")


def horma(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "horma", *args], capture_output=True, text=True)


def timed_runs(ws: Path, backend: str, n: int) -> list[float]:
    samples = []
    for i in range(n + 1):
        t0 = time.perf_counter()
        done = horma("recall", str(ws), QUERIES[i % len(QUERIES)], "--budget", "300", "--backend", backend)
        took = (time.perf_counter() - t0) * 1000
        if done.returncode != 0:
            raise SystemExit(f"cli_recall: horma recall failed on {backend}: {done.stderr.strip()[-300:]}")
        if i:  # the first run is a warm-up: files into the page cache, the model's rewrite onto disk
            samples.append(took)
    return samples


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--n", type=int, default=10, help="timed runs per backend (default 10)")
    p.add_argument("--backends", default="local,bwrap,docker", help="comma list (default: every available one)")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of the table")
    args = p.parse_args()
    from horma.sandbox import check_backends

    available = {s.name for s in check_backends() if s.available}
    rows = []
    with tempfile.TemporaryDirectory(prefix="horma-bench-") as tmp:
        Path(tmp).chmod(0o755)
        ws = Path(tmp) / "demo"
        built = horma("demo", "--workspace", str(ws), "--backend", "local")
        if built.returncode != 0:
            raise SystemExit(f"cli_recall: horma demo failed: {built.stderr.strip()[-300:]}")
        for backend in args.backends.split(","):
            if backend not in available:
                continue
            s = sorted(timed_runs(ws, backend, args.n))
            rows.append({"backend": backend, "runs": len(s), "p50_ms": round(statistics.median(s), 1),
                         "p90_ms": round(s[int(0.9 * (len(s) - 1))], 1)})
    if args.json:
        print(json.dumps({"n": args.n, "rows": rows}))
        return
    table = Table(title="horma recall from a shell, whole process (ms)")
    for col in ("backend", "runs", "p50_ms", "p90_ms"):
        table.add_column(col)
    for r in rows:
        table.add_row(*(str(r[c]) for c in ("backend", "runs", "p50_ms", "p90_ms")))
    Console().print(table)


if __name__ == "__main__":
    main()
