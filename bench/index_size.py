#!/usr/bin/env python3
"""Index size: how many bytes the notes and the search index take against the raw text they come from.

Why: issue 19 holds the notes to the size of the raw text and the whole index
(``.horma/index/``) to three times it. This script builds the dev sets'
workspaces the way bench/ranking.py does (the heuristic manager, one
workspace per conversation, kept in --workdir and reused) or measures
workspaces that already exist (--workspace), and prints per set: the raw
text (the bytes of ``raw/*/units.log``), the notes (``notes/**``), the index
(every file under ``.horma/index/``), their ratios, and where the index's
bytes go, table by table and index by index (SQLite's ``dbstat``, pages
times the page size, so a table's fixed cost of a page shows).

Examples:
  python bench/index_size.py locomo ../shared/data/locomo/locomo_dev.json --workdir /tmp/isz/locomo
  python bench/index_size.py locomo bench/data/assistant_chats.json --workdir /tmp/isz/chats
  python bench/index_size.py --workspace /tmp/isz/locomo/conv-26 --json
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
from collections import Counter
from pathlib import Path

from rich.console import Console
from rich.table import Table

from horma.core import index as hi

console = Console(stderr=True)


def _bytes(folder: Path, pattern: str) -> int:
    return sum(p.stat().st_size for p in folder.glob(pattern) if p.is_file()) if folder.is_dir() else 0


def breakdown(db: Path) -> tuple[int, Counter]:
    """(page size, bytes per table or index), the FTS5 shadow tables under their own names."""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        page = conn.execute("PRAGMA page_size").fetchone()[0]
        rows = conn.execute("SELECT name, count(*) FROM dbstat GROUP BY name").fetchall()
        free = conn.execute("PRAGMA freelist_count").fetchone()[0]
    finally:
        conn.close()
    out = Counter({name: pages * page for name, pages in rows})
    if free:
        out["(free pages)"] = free * page
    return page, out


def measure(root: Path) -> dict:
    """Sizes of one workspace."""
    index = root / ".horma" / "index"
    db = index / hi.DB_NAME
    page, tables = breakdown(db) if db.is_file() else (0, Counter())
    return {"workspace": str(root), "raw": _bytes(root / "raw", "*/units.log"), "notes": _bytes(root / "notes", "**/*"),
            "index": _bytes(index, "*"), "page_size": page, "tables": dict(tables)}


def total(name: str, rows: list[dict]) -> dict:
    """One set's sums, with the ratios to its raw text."""
    tables: Counter = Counter()
    for r in rows:
        tables.update(r["tables"])
    raw = sum(r["raw"] for r in rows) or 1
    out = {"set": name, "workspaces": len(rows), "raw": sum(r["raw"] for r in rows),
           "notes": sum(r["notes"] for r in rows), "index": sum(r["index"] for r in rows),
           "page_size": sorted({r["page_size"] for r in rows}), "tables": dict(tables.most_common())}
    out["notes_ratio"] = round(out["notes"] / raw, 3)
    out["index_ratio"] = round(out["index"] / raw, 3)
    return out


def _kb(n: int) -> str:
    return f"{n / 1000:.1f} KB" if n < 1_000_000 else f"{n / 1e6:.2f} MB"


def render(report: dict, per_workspace: list[dict]) -> None:
    out = Console(width=None if sys.stdout.isatty() else 140)
    raw = report["raw"] or 1
    summary = Table(title=f"{report['set']}: {report['workspaces']} workspaces, page size "
                          f"{'/'.join(map(str, report['page_size']))}")
    for col in ("workspace", "raw", "notes", "notes / raw", "index", "index / raw"):
        summary.add_column(col, justify="left" if col == "workspace" else "right")
    for r in [*per_workspace, {**report, "workspace": "all"}]:
        raw_r = r["raw"] or 1
        summary.add_row(Path(r["workspace"]).name, _kb(r["raw"]), _kb(r["notes"]), f"{r['notes'] / raw_r:.2f}x",
                        _kb(r["index"]), f"{r['index'] / raw_r:.2f}x")
    out.print(summary)
    parts = Table(title="where the index's bytes go (all workspaces)")
    for col in ("table or index", "bytes", "of raw"):
        parts.add_column(col, justify="left" if col == "table or index" else "right")
    for name, size in report["tables"].items():
        parts.add_row(name, _kb(size), f"{size / raw:.2f}x")
    out.print(parts)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("kind", nargs="?", choices=("locomo", "longmemeval"), help="the data file's format")
    p.add_argument("data", nargs="?", help="the dataset file (built as bench/ranking.py builds it)")
    p.add_argument("--workdir", default="", help="where the workspaces are kept (default ~/.cache/horma-bench/<file>)")
    p.add_argument("--per-type", type=int, default=0, help="LongMemEval: at most N questions per type (0 = all)")
    p.add_argument("--workspace", action="append", default=[], help="measure this workspace as it is (repeatable)")
    p.add_argument("--json", action="store_true", help="print the report as one JSON object")
    args = p.parse_args(argv)
    if bool(args.data) == bool(args.workspace):
        p.error("give a data file to build from (KIND DATA), or --workspace folders to measure, not both")
    if args.data:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from ranking import build, plan  # the same workspaces the ranking sweeps score

        work = Path(args.workdir or Path.home() / ".cache" / "horma-bench" / Path(args.data).stem)
        roots = []
        for i, (name, sessions, _) in enumerate(plan(args.kind, args.data, set(), args.per_type), 1):
            console.print(f"[dim]{i}: {name}[/dim]", end="\r")
            build(work / name, sessions)
            roots.append(work / name)
        title = Path(args.data).name
    else:
        roots = [Path(w) for w in args.workspace]
        title = "workspaces"
    rows = [measure(r) for r in roots]
    report = total(title, rows)
    if args.json:
        print(json.dumps({**report, "per_workspace": rows}))
    else:
        render(report, rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
