#!/usr/bin/env python3
"""Vector search at scale: how the exact search over a workspace's unit vectors grows with the archive.

Why: recall embeds the query and multiplies it with every unit vector of the
workspace (horma/vectors.py). That is exact and simple; this script measures
where it stops being cheap, so the docs can say when an approximate index
(usearch, sqlite-vec, FAISS) must take over.

For each size N it writes N vectors into a fresh index database (the
schema horma/core/index.py creates, in the 4-bit code horma/vector_codec.py
stores), made from real embeddings of the --data file's turns (LoCoMo
format), repeated with a few components nudged by a step so no two rows are
equal, then reports:

- cold load ms: the first query of a process, which reads every vector;
- warm top-k ms p50/p95: later queries (horma.vectors.best_units: the exact
  int8 product, the bound and the few rows' float cosines; the query is
  embedded once beforehand, so the model's own cost is apart: see "query
  embed ms");
- float32 product ms p50: the same queries as one BLAS product with every
  decoded row and a top-k (the search before the int8 product); "same as
  float": queries whose neighbours and cosines equal a float search of
  every row (horma.vectors._best over all rows);
- memory MB of what a process keeps loaded (codes, lengths and bounds); the
  float32 matrix it kept before is 4x the codes; index bytes per unit.

Example: python bench/vectors.py --data ../shared/data/locomo/locomo_dev.json --sizes 1000,10000,100000
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from rich.console import Console
from rich.table import Table

from horma.bench.locomo import load_locomo
from horma.core import index as hi
from horma.core.vectors import CODEC, CODEC_KEY, embed_text
from horma.embed import default_embedder
from horma.vector_codec import encode, normalized
from horma.vectors import _best, _tables, best_units, nearest, signed

CHUNK = 10_000  # rows coded and written at a time


def build(folder: Path, vecs: np.ndarray, n: int, model_id: str) -> None:
    """``n`` rows of ``vecs`` (repeated) written as the index stores them: the codec's code, named in meta."""
    conn = hi.connect(str(folder))
    rng = np.random.default_rng(0)
    with conn:
        conn.execute("INSERT OR REPLACE INTO meta VALUES('embed_model', ?)", (model_id,))
        conn.execute("INSERT OR REPLACE INTO meta VALUES(?, ?)", (CODEC_KEY, CODEC))
        for start in range(0, n, CHUNK):
            ids = np.arange(start, min(n, start + CHUNK))
            rows = vecs[ids % len(vecs)].copy()
            copies = np.flatnonzero(ids >= len(vecs))  # a copy: nudge a few components so rows differ
            rows[copies[:, None], rng.integers(0, rows.shape[1], (len(copies), 4))] += 0.03
            conn.executemany("INSERT INTO vectors(unit, q, scale) VALUES(?, ?, 0)",
                             [(int(i) + 1, q) for i, q in zip(ids, encode(rows), strict=True)])
    conn.close()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", required=True, help="LoCoMo-format file whose turns give the vectors")
    p.add_argument("--sizes", default="1000,10000,100000", help="comma list of unit counts")
    p.add_argument("--queries", type=int, default=50, help="warm queries per size")
    p.add_argument("--json", action="store_true", help="print the report as one JSON object")
    args = p.parse_args(argv)
    convs = load_locomo(args.data)
    units = [u for c in convs for u in c.units()]
    emb = default_embedder()
    t0 = time.perf_counter()
    vecs = emb.embed([embed_text(u.actor, u.text) for u in units])
    embed_rate = len(units) / (time.perf_counter() - t0)
    questions = [qa.question for c in convs for qa in c.qa][: args.queries]
    t0 = time.perf_counter()
    for q in questions:
        emb.embed([q])
    query_ms = (time.perf_counter() - t0) * 1000 / len(questions)
    report = {"embed_units_per_s": round(embed_rate, 1), "query_embed_ms": round(query_ms, 2), "sizes": []}
    for n in [int(x) for x in args.sizes.split(",")]:
        with tempfile.TemporaryDirectory(prefix="horma-vec-") as tmp:
            folder = Path(tmp)
            build(folder, vecs, n, emb.model_id)
            _tables.clear()
            t0 = time.perf_counter()
            nearest(str(folder), questions[0], embedder=emb)
            cold = (time.perf_counter() - t0) * 1000 - query_ms
            warm, flat, same = [], [], 0
            t = _tables[str(folder)]
            m = normalized(signed(t, np.arange(len(t.ids))))  # the float32 rows the search multiplied before
            qvs = emb.embed(questions)  # outside the timing: the model's cost is reported apart
            for qv in qvs:  # each search in a loop of its own: OpenBLAS's threads spin on after a product
                t0 = time.perf_counter()
                best_units(t, qv, 64)
                warm.append((time.perf_counter() - t0) * 1000)
            for qv in qvs:  # against a float search of every row
                same += list(best_units(t, qv, 64).items()) == list(_best(t.ids, m, qv, 64).items())
            for qv in qvs:
                t0 = time.perf_counter()  # the search before: one BLAS product with every float32 row
                sims = m @ qv
                top = np.argpartition(-sims, 63)[:64]
                top[np.argsort(-sims[top])]
                flat.append((time.perf_counter() - t0) * 1000)
            del m
            warm.sort()
            db = folder / hi.DB_NAME
            report["sizes"].append({
                "units": n, "cold_load_ms": round(cold, 1),
                "warm_p50_ms": round(statistics.median(warm), 2), "warm_p95_ms": round(warm[int(0.95 * len(warm))], 2),
                "float_p50_ms": round(statistics.median(flat), 2), "same_as_float": f"{same}/{len(questions)}",
                "memory_mb": round((t.codes.nbytes + t.inv.nbytes + t.spread.nbytes + t.ids.nbytes) / 1e6, 1),
                "index_bytes_per_unit": round(db.stat().st_size / n, 1)})
    if args.json:
        print(json.dumps(report))
        return 0
    out = Console(width=None if sys.stdout.isatty() else 120)
    table = Table(title=f"exact vector search (embedding: {report['embed_units_per_s']} units/s; "
                        f"a query {report['query_embed_ms']} ms)")
    for col in ("units", "cold load ms", "warm top-64 p50 ms", "p95 ms", "float32 product p50 ms", "same as float",
                "memory MB", "index bytes/unit"):
        table.add_column(col, justify="right")
    for r in report["sizes"]:
        table.add_row(f"{r['units']:,}", f"{r['cold_load_ms']:.0f}", f"{r['warm_p50_ms']:.2f}",
                      f"{r['warm_p95_ms']:.2f}", f"{r['float_p50_ms']:.2f}", r["same_as_float"],
                      f"{r['memory_mb']:.0f}", f"{r['index_bytes_per_unit']:.0f}")
    out.print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
