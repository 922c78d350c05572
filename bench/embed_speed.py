#!/usr/bin/env python3
"""Ingest cost with meaning: embedding throughput alone, and archive + notes + index + vectors end to end.

Why: issue 19 asks for 500 units/s on LoCoMo-sized turns on a 2-core machine;
this separates the model's share (horma.embed) from the rest of the ingest
path (heuristic manager, FTS5 rows, notes), measured on the same turns.

Each configuration embeds the turns a session (one ``embed`` call) at a time,
as ingest does. ``before`` is the float graph on one session of 2 threads (the
embedder before issue 19's speed work); ``after`` is today's default (int8
products, one-thread sessions on alternate runs). Ingest is timed after the
model has loaded (a process loads it once; its load time is reported beside). Wall time moves with the
machine's load, so CPU seconds per 1,000 units (this process, all its threads)
are reported beside it, with the load average; cosine is to ``before``.

Example: python bench/embed_speed.py --data ../shared/data/locomo/locomo_dev.json --units 2000 --conversations 2
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path

import numpy as np
from rich.console import Console
from rich.table import Table

import horma.embed as E
from horma.agents.manager import Manager
from horma.bench.locomo import load_locomo
from horma.workspace import Workspace


def before_embedder() -> E.Embedder:
    """The embedder as it was before issue 19's speed work: float products, one session of 2 threads."""
    import onnxruntime as ort

    old = E.Embedder(threads=1, int8=False)
    opts = ort.SessionOptions()
    opts.intra_op_num_threads, opts.inter_op_num_threads = min(4, os.cpu_count() or 1), 1
    opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
    old.sessions = [ort.InferenceSession(str(E.model_files()[0]), opts, providers=["CPUExecutionProvider"])]
    return old


def timed(embedder: E.Embedder, calls: list[list[str]], batch: int) -> tuple[np.ndarray, float, float]:
    """(vectors, wall s, CPU s) embedding ``calls`` one call each, runs of ``batch``."""
    E.BATCH = batch
    embedder.embed(calls[0][:batch])  # warm up: a server pays this once
    cpu, wall = time.process_time(), time.perf_counter()
    vectors = np.concatenate([embedder.embed(c) for c in calls])
    return vectors, time.perf_counter() - wall, time.process_time() - cpu


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", required=True, help="LoCoMo-format file")
    p.add_argument("--units", type=int, default=2000, help="turns to embed for the model-only figures")
    p.add_argument("--batches", default="8,16,32", help="run sizes to try with today's embedder")
    p.add_argument("--conversations", type=int, default=2, help="conversations to ingest end to end (0: none)")
    p.add_argument("--json", action="store_true", help="print the report as one JSON object")
    args = p.parse_args(argv)
    convs = load_locomo(args.data)
    calls, n = [], 0
    for c in convs:
        for s in c.sessions:
            if n < args.units:
                calls.append([f"{u.actor}: {u.text}" for u in s.units][: args.units - n])
                n += len(calls[-1])
    default_batch = E.BATCH
    rows: list[dict] = []
    ref, wall, cpu = timed(before_embedder(), calls, 8)
    rows.append({"config": "before: float, 1 session x 2 threads", "batch": 8, "wall_s": wall, "cpu_s": cpu,
                 "cos_min": 1.0})
    configs = [("after: int8, 2 sessions x 1 thread", E.Embedder(), b) for b in map(int, args.batches.split(","))]
    configs += [("int8, 1 session x 1 thread", E.Embedder(threads=1), default_batch),
                ("float, 2 sessions x 1 thread", E.Embedder(int8=False), default_batch)]
    for name, embedder, batch in configs:
        v, wall, cpu = timed(embedder, calls, batch)
        rows.append({"config": name, "batch": batch, "wall_s": wall, "cpu_s": cpu,
                     "cos_min": float((v * ref).sum(axis=1).min())})
    E.BATCH = default_batch
    for r in rows:
        r["units_per_s"] = round(n / r.pop("wall_s"))
        r["cpu_s_per_1000"] = round(1000 * r.pop("cpu_s") / n, 2)
        r["cos_min"] = round(r["cos_min"], 4)
    ingest: dict[str, float] = {}
    if args.conversations:
        start = time.perf_counter()
        E.default_embedder().embed(["warm"])  # loaded once a process, as the MCP server and horma.Memory keep it
        load = time.perf_counter() - start
        ingested, cpu, wall = 0, time.process_time(), time.perf_counter()
        with tempfile.TemporaryDirectory() as tmp:
            for conv in convs[: args.conversations]:
                ws = Workspace.init(Path(tmp) / conv.sample_id)
                with Manager(ws, "heuristic", backend="local") as manager, manager.one_run():
                    for s in conv.sessions:
                        manager.record(list(s.units), s.slug(conv.sample_id), s.time)
                        ingested += len(s.units)
        # CPU here is this process only: sandboxed helpers, if any, are not counted
        ingest = {"units": ingested, "units_per_s": round(ingested / (time.perf_counter() - wall)),
                  "cpu_s_per_1000": round(1000 * (time.process_time() - cpu) / ingested, 2),
                  "model_load_s": round(load, 2)}
    report = {"embed_units": n, "load_avg_1m": round(os.getloadavg()[0], 1), "embed": rows, "ingest": ingest}
    if args.json:
        print(json.dumps(report))
        return 0
    table = Table(title=f"{Path(args.data).name}: {n} turns a session a call, load {report['load_avg_1m']}")
    for col in ("embedder", "run", "units/s (wall)", "CPU-s / 1000", "cosine to before (min)"):
        table.add_column(col, justify="left" if col == "embedder" else "right")
    for r in rows:
        table.add_row(r["config"], str(r["batch"]), f"{r['units_per_s']:,}", f"{r['cpu_s_per_1000']:.2f}",
                      f"{r['cos_min']:.4f}")
    if ingest:
        table.add_row(f"ingest end to end (heuristic manager, today's embedder; model loaded in "
                      f"{ingest['model_load_s']:.2f} s before)", str(default_batch),
                      f"{ingest['units_per_s']:,}", f"{ingest['cpu_s_per_1000']:.2f}", "")
    Console().print(table)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
