#!/usr/bin/env python3
"""Ingest cost with meaning: embedding throughput alone, and archive + notes + index + vectors end to end.

Why: issue 19 asks for 500 units/s on LoCoMo-sized turns on a 2-core machine;
this separates the model's share (horma.embed) from the rest of the ingest
path (heuristic manager, FTS5 rows, notes), measured on the same turns.

Example: python bench/embed_speed.py --data ../shared/data/locomo/locomo_dev.json --units 2000 --conversations 2
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from horma.agents.manager import Manager
from horma.bench.locomo import load_locomo
from horma.embed import default_embedder
from horma.workspace import Workspace


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", required=True, help="LoCoMo-format file")
    p.add_argument("--units", type=int, default=2000, help="turns to embed for the model-only figure")
    p.add_argument("--conversations", type=int, default=2, help="conversations to ingest end to end")
    p.add_argument("--json", action="store_true", help="print the report as one JSON object")
    args = p.parse_args(argv)
    convs = load_locomo(args.data)
    texts = [f"{u.actor}: {u.text}" for c in convs for s in c.sessions for u in s.units][: args.units]
    embedder = default_embedder()
    embedder.embed(texts[:64])  # load and warm up: a server pays this once
    t = time.perf_counter()
    embedder.embed(texts)
    model_rate = len(texts) / (time.perf_counter() - t)
    n, t = 0, time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        for conv in convs[: args.conversations]:
            ws = Workspace.init(Path(tmp) / conv.sample_id)
            with Manager(ws, "heuristic", backend="local") as manager, manager.one_run():
                for s in conv.sessions:
                    manager.record(list(s.units), s.slug(conv.sample_id), s.time)
                    n += len(s.units)
    total_rate = n / (time.perf_counter() - t)
    report = {"embed_units": len(texts), "embed_units_per_s": round(model_rate), "ingest_units": n,
              "ingest_units_per_s": round(total_rate)}
    if args.json:
        print(json.dumps(report))
        return 0
    table = Table(title=f"{Path(args.data).name}: ingest cost with meaning")
    for col in ("step", "units", "units/s"):
        table.add_column(col, justify="left" if col == "step" else "right")
    table.add_row("embedding only (model)", str(len(texts)), f"{model_rate:,.0f}")
    table.add_row("ingest end to end (heuristic manager)", str(n), f"{total_rate:,.0f}")
    Console().print(table)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
