#!/usr/bin/env python3
"""Ranking time in one process, this checkout's ``horma/core/search.py`` against another's, question by question.

Why: a change to the ranking's speed is a few milliseconds of a recall, and on
a shared machine two runs one after the other differ by more than that
(bench/scale.py's recall p50 at 10^3 moved 36-50 ms within an hour). Here
both versions rank the same questions on the same open index in the same
process, alternating, each question's fastest of ``--repeat`` counted: the
machine's load falls on both alike. The other version is loaded from its file
beside this one, so only ``search.py`` may differ between the two checkouts
(the rest of ``horma.core`` is this checkout's).

Questions: categories 2, 4 and 5 of the first conversation of a LoCoMo-format
file, as bench/scale.py asks them, ranked as ``hsearch --budget`` ranks for a
recall (the nearest units handed in, without the rest of the sessions).

Example, on an archive bench/scale.py kept:
  python bench/rank_speed.py --data ../shared/data/locomo/locomo_dev.json --workspace DIR/scale-100000 \\
      --against /tmp/old-checkout/horma/core/search.py --today 2026-11-29
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import statistics
import sys
import time
from pathlib import Path
from types import ModuleType

from rich.console import Console
from rich.table import Table

from horma.bench.locomo import load_locomo, questions
from horma.core import index as hi
from horma.core import search
from horma.vectors import nearest


def load_other(path: Path) -> ModuleType:
    """The other checkout's search module, under a name of its own."""
    spec = importlib.util.spec_from_file_location("search_against", path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"error: {path}: not a Python file")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run(data: str, workspace: Path, against: Path | None, n: int, repeat: int, today: str | None) -> dict:
    conv = load_locomo(data)[0]
    asked = [q.question for q in questions(conv, {2, 4, 5})][:n]
    folder = str(workspace / ".horma" / "index")
    conn = hi.connect(folder, readonly=True)
    try:
        versions = {"this checkout": search.Searcher(conn, root=str(workspace))}
        if against is not None:
            versions[str(against)] = load_other(against).Searcher(conn, root=str(workspace))
        best: dict[str, list[float]] = {name: [] for name in versions}
        for q in asked:
            near = nearest(folder, q)
            fastest = dict.fromkeys(versions, float("inf"))
            for r in range(repeat):  # the order flips each round: neither version always runs on a warm cache
                for name in list(versions)[:: 1 if r % 2 == 0 else -1]:
                    t0 = time.perf_counter()
                    versions[name].rank(q, near, today, sessions=False)
                    fastest[name] = min(fastest[name], time.perf_counter() - t0)
            for name, secs in fastest.items():
                best[name].append(secs * 1000)
    finally:
        conn.close()
    rows = [{"version": name, "questions": len(ms), "p50_ms": round(statistics.median(ms), 2),
             "mean_ms": round(statistics.fmean(ms), 2)} for name, ms in best.items()]
    return {"workspace": str(workspace), "repeat": repeat, "today": today, "rows": rows}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data", required=True, help="LoCoMo-format file; its first conversation's questions are asked")
    p.add_argument("--workspace", required=True, type=Path, help="a workspace holding that conversation")
    p.add_argument("--against", type=Path, help="another checkout's horma/core/search.py, timed alternately")
    p.add_argument("--questions", type=int, default=80, help="ask the first N questions (default 80)")
    p.add_argument("--repeat", type=int, default=5, help="rankings a question per version; the fastest counts")
    p.add_argument("--today", default=None, help="the date the questions are asked on (YYYY-MM-DD)")
    p.add_argument("--json", action="store_true", help="print the report as one JSON object")
    args = p.parse_args()
    if not (args.workspace / ".horma" / "index").is_dir():
        raise SystemExit(f"error: {args.workspace}: no .horma/index (build it with bench/scale.py --workdir)")
    report = run(args.data, args.workspace, args.against, args.questions, max(1, args.repeat), args.today)
    if args.json:
        print(json.dumps(report))
        return
    table = Table("version", "questions", "p50 ms", "mean ms",
                  title=f"Searcher.rank on {args.workspace}, fastest of {report['repeat']}")
    for r in report["rows"]:
        table.add_row(r["version"], str(r["questions"]), f"{r['p50_ms']:.2f}", f"{r['mean_ms']:.2f}")
    Console().print(table)


if __name__ == "__main__":
    sys.exit(main())
