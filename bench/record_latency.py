#!/usr/bin/env python3
"""Record latency of a conversation recorded a message at a time: one `Memory.record` a message, in process.

Why: since session 21 a message that goes on in its session's segment is
appended to it, and the heuristic manager organizes the whole segment again,
so a record costs more as the segment fills (up to a talk's 200 units, then a
new segment starts). This prints the median record time over windows of the
run, to show that growth and its reset. Imports and ingests never append and
do not pay it.

The messages are synthetic, a minute apart, in one session name, naming a few
people and places; the heuristic manager, the local sandbox, no LLM.

Example:
  python bench/record_latency.py --messages 400 --json
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import tempfile
import time

from rich.console import Console
from rich.table import Table

import horma

NAMES = ["Pepper", "Rachel", "Minneapolis", "Brooks", "Macalester", "Aisha", "Chicago", "Thai"]
WINDOWS = [(0, 10), (90, 100), (190, 200), (200, 210), (390, 400)]


def run(messages: int, seed: int = 1) -> list[float]:
    """Milliseconds per record, in order."""
    rng = random.Random(seed)
    out: list[float] = []
    with tempfile.TemporaryDirectory() as tmp, horma.Memory(f"{tmp}/mem", sandbox="local") as mem:
        mem.record([{"id": "w", "time": "2023-01-01 08:00", "actor": "Dan", "text": "warm up"}], slug="warm")
        for i in range(messages):
            hours, minute = divmod(i, 60)
            unit = {"id": f"m{i}", "time": f"2023-02-{12 + hours // 24:02d} {hours % 24:02d}:{minute:02d}",
                    "actor": ("Dan", "Assistant")[i % 2],
                    "text": f"Message {i}: {rng.choice(NAMES)} and {rng.choice(NAMES)} talk about the walk "
                            f"yesterday, the shoes and dinner plans for {i % 7} people."}
            t0 = time.perf_counter()
            mem.record([unit], slug="chat")
            out.append((time.perf_counter() - t0) * 1000)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--messages", type=int, default=400)
    ap.add_argument("--json", action="store_true", help="print the figures as JSON on stdout")
    args = ap.parse_args()
    ms = run(args.messages)
    windows = {f"{a}-{b}": round(statistics.median(ms[a:b]), 1) for a, b in WINDOWS if b <= len(ms)}
    figures = {"messages": len(ms), "p50_ms": round(statistics.median(ms), 1), "max_ms": round(max(ms), 1),
               "p50_ms_by_window": windows}
    if args.json:
        print(json.dumps(figures, indent=2))
        return
    table = Table(title=f"record latency, {len(ms)} messages one at a time (ms)")
    for name in ("all", *windows, "max"):
        table.add_column(name, justify="right")
    table.add_row(str(figures["p50_ms"]), *map(str, windows.values()), str(figures["max_ms"]))
    Console().print(table)


if __name__ == "__main__":
    main()
