#!/usr/bin/env python3
"""Update links at scale: what linking each turn to its latest later likeness costs as the archive grows.

Why: horma.update_links links every new unit with the whole archive of its
speaker after each record (one matrix product with the vectors the process
holds), and links every unit at once when an index from before the links is
first written by the host. This script measures both against the archive's
size, so docs/benchmarks.md can say where it stops being cheap.

For each size N it writes N vectors into a fresh index (bench/vectors.py's
builder: real LoCoMo embeddings, repeated with a few components nudged) and
N units rows (the turns' speakers, each repetition of the file dated after
the one before), then reports:

- link all s: the first link of the whole archive (an upgraded index);
- record ms p50: later records of 20 units each, linked after their commit;
- links per unit: the share of units with a later likeness (a repetition's turns are alike).

Example: python bench/update_links.py --data ../shared/data/locomo/locomo_dev.json --sizes 1000,10000,100000
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

sys.path.insert(0, str(Path(__file__).resolve().parent))
from vectors import build  # bench/ is not a package: its sibling script's builder

from horma.bench.locomo import load_locomo
from horma.core import index as hi
from horma.core.text import words
from horma.core.updates import says_change
from horma.core.vectors import embed_text
from horma.embed import default_embedder
from horma.update_links import link_pending
from horma.vectors import _tables

RECORD = 20  # units a record adds
RECORDS = 9  # records timed per size


def units_rows(units: list, n: int) -> tuple[list[tuple], list[tuple]]:
    """``n`` units rows for the repeated turns, and their segments rows: each repetition of the file a year
    after the one before, a segment (one talk) a day of a repetition, as a session a record makes; and
    whether the turn says a change (``units.changes``: such a later turn links at a lower likeness)."""
    out, segs = [], {}
    for i in range(n):
        u = units[i % len(units)]
        when = dt.datetime.fromisoformat(u.time[:16].replace(" ", "T")) + dt.timedelta(days=366 * (i // len(units)))
        seg = segs.setdefault((i // len(units), u.time[:10]), len(segs) + 1)
        out.append((i + 1, seg, i, 0, f"u{i}", u.actor, when.strftime("%Y-%m-%d %H:%M"), 10, i,
                    says_change(words(u.text))))
    return out, [(sid, f"raw/{rep}-{day}/units.log", 0, 0, sid) for (rep, day), sid in segs.items()]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", required=True, help="LoCoMo-format file whose turns give the vectors")
    p.add_argument("--sizes", default="1000,10000,100000", help="comma list of unit counts")
    p.add_argument("--json", action="store_true", help="print the report as one JSON object")
    args = p.parse_args(argv)
    units = [u for c in load_locomo(args.data) for u in c.units()]
    emb = default_embedder()
    vecs = emb.embed([embed_text(u.actor, u.text) for u in units])
    report = []
    for n in [int(x) for x in args.sizes.split(",")]:
        with tempfile.TemporaryDirectory(prefix="horma-links-") as tmp:
            folder = Path(tmp)
            build(folder, vecs, n, emb.model_id)
            rows, segments = units_rows(units, n)
            conn = hi.connect(str(folder))
            with conn:
                conn.executemany("INSERT INTO segments(id, path, size, lines, talk) VALUES(?,?,?,?,?)", segments)
            held = RECORD * RECORDS  # the last records' units come later, one record at a time
            held_vecs = conn.execute("SELECT unit, q, scale FROM vectors WHERE unit > ?", (n - held,)).fetchall()
            with conn:
                conn.executemany("INSERT INTO units(id, seg, lineno, offset, uid, actor, time, cost, digest, "
                                 "changes) VALUES(?,?,?,?,?,?,?,?,?,?)", rows[:n - held])
                conn.execute("DELETE FROM vectors WHERE unit > ?", (n - held,))
            _tables.clear()
            t0 = time.perf_counter()
            link_pending(conn)
            first = time.perf_counter() - t0
            per_record = []
            for r in range(RECORDS):
                lo = n - held + r * RECORD
                with conn:
                    conn.executemany("INSERT INTO units(id, seg, lineno, offset, uid, actor, time, cost, digest, "
                                     "changes) VALUES(?,?,?,?,?,?,?,?,?,?)", rows[lo:lo + RECORD])
                    conn.executemany("INSERT INTO vectors(unit, q, scale) VALUES(?,?,?)",
                                     [v for v in held_vecs if lo < v[0] <= lo + RECORD])
                t0 = time.perf_counter()
                link_pending(conn)
                per_record.append((time.perf_counter() - t0) * 1000)
            links = conn.execute("SELECT count(*) FROM updates").fetchone()[0]
            conn.close()
            report.append({"units": n, "link_all_s": round(first, 2), "record_ms_p50": round(
                statistics.median(per_record), 1), "links_per_unit": round(links / n, 3)})
    if args.json:
        print(json.dumps({"sizes": report}))
        return 0
    out = Console(width=None if sys.stdout.isatty() else 120)
    table = Table(title=f"update links ({RECORD}-unit records, {RECORDS} timed a size)")
    for col in ("units", "link all s", "record ms p50", "links per unit"):
        table.add_column(col, justify="right")
    for r in report:
        table.add_row(f"{r['units']:,}", f"{r['link_all_s']:.2f}", f"{r['record_ms_p50']:.1f}",
                      f"{r['links_per_unit']:.3f}")
    out.print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
