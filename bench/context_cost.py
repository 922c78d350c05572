#!/usr/bin/env python3
"""What one ``Context.select`` costs as the context grows (a script, not a timed test).

A synthetic workspace (segments of one-line turns, about 20 tokens a line) is
filled one line per ``select``, the way the navigator selects ranked turns.
At each checkpoint (lines already in the context) it times more one-line
selects, a ``room`` read and a ``text`` read, and counts how many characters
``count_tokens`` scans for one select. A linear context shows flat columns;
one that re-renders and re-counts shows columns that grow with the context.
The last line fills a 10,000-token budget navigator-style (read ``room``,
select the picked lines, page after page) and reports the total.

``--rev`` measures the ``horma/context.py`` of another git revision on the
same workspace (for before/after figures), e.g.

    python bench/context_cost.py                 # the working tree
    python bench/context_cost.py --rev HEAD~1    # an older Context
"""

from __future__ import annotations

import argparse
import importlib.util
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from horma.workspace import Unit, Workspace

ROOT = Path(__file__).resolve().parent.parent
WORDS = ["the", "support", "group", "was", "inspiring", "and", "I", "want", "to", "study", "counseling", "next",
         "year,", "maybe", "in", "Boston;", "what", "do", "you", "think", "about", "it?", "ok!"]


def load_context(rev: str | None):
    """The ``horma.context`` module, or the one at git revision ``rev`` loaded beside it."""
    if rev is None:
        import horma.context as mod
        return mod
    src = subprocess.run(["git", "-C", str(ROOT), "show", f"{rev}:horma/context.py"],
                         check=True, capture_output=True, text=True).stdout
    path = Path(tempfile.mkdtemp()) / "context_at_rev.py"
    path.write_text(src)
    spec = importlib.util.spec_from_file_location("context_at_rev", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


def build_workspace(root: Path, segments: int, per_segment: int) -> tuple[Workspace, list[str]]:
    ws = Workspace.init(root)
    segs = []
    with ws.writer():
        for s in range(segments):
            units = []
            for i in range(1, per_segment + 1):
                k = (s * 7 + i * 3) % len(WORDS)
                text = " ".join(WORDS[k:] + WORDS[:k])[: 60 + (i * 13) % 40]
                units.append(Unit(f"D{s}:{i}", f"2023-{1 + s % 12:02d}-{1 + s % 28:02d} 10:{i % 60:02d}",
                                  ("Ann", "Bo")[i % 2], text))
            segs.append(ws.archive(units, f"session {s}"))
    return ws, segs


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rev", help="git revision whose horma/context.py to measure (default: the working tree)")
    ap.add_argument("--sizes", default="0,250,500,1000,2000", help="context sizes in lines (checkpoints)")
    ap.add_argument("--probe", type=int, default=50, help="timed one-line selects per checkpoint")
    ap.add_argument("--segments", type=int, default=200)
    ap.add_argument("--per-segment", type=int, default=40)
    args = ap.parse_args()
    sizes = sorted(int(s) for s in args.sizes.split(","))
    mod = load_context(args.rev)
    real_count = mod.count_tokens
    scanned: list[int] = []

    def counting(text: str) -> int:
        scanned.append(len(text))
        return real_count(text)

    with tempfile.TemporaryDirectory() as tmp:
        ws, segs = build_workspace(Path(tmp) / "ws", args.segments, args.per_segment)
        slots = [(seg, n) for n in range(1, args.per_segment + 1) for seg in segs]  # spread over segments
        need = sizes[-1] + args.probe * len(sizes) + 2 * len(sizes)
        if need > len(slots):
            sys.exit(f"need {need} lines, the workspace has {len(slots)}: raise --segments")
        it = iter(slots)
        ctx = mod.Context("q", 10**9, ws)
        print(f"Context from {args.rev or 'the working tree'}; {args.segments} segments x {args.per_segment} lines")
        print(f"{'lines':>6} {'tokens':>7} {'select us':>10} {'room us':>9} {'text us':>9} "
              f"{'count_tokens calls/chars per select':>36}")
        for size in sizes:
            while len(ctx.items) < size:
                ctx.select(*_one(next(it)))
            lines, tokens = len(ctx.items), ctx.tokens
            t0 = time.perf_counter()
            for _ in range(args.probe):
                ctx.select(*_one(next(it)))
            select_us = (time.perf_counter() - t0) / args.probe * 1e6
            t0 = time.perf_counter()
            for _ in range(20):
                _ = ctx.room
            room_us = (time.perf_counter() - t0) / 20 * 1e6
            t0 = time.perf_counter()
            _ = ctx.text
            text_us = (time.perf_counter() - t0) * 1e6
            mod.count_tokens = counting
            scanned.clear()
            for _ in range(2):
                ctx.select(*_one(next(it)))
            mod.count_tokens = real_count
            print(f"{lines:>6} {tokens:>7} {select_us:>10.0f} {room_us:>9.1f} {text_us:>9.0f} "
                  f"{len(scanned) / 2:>25.1f} / {sum(scanned) / 2:>8.0f}")

        # a navigator-style fill of a 10,000-token budget: pages of ranked picks, room read per pick
        ctx = mod.Context("q", 10_000, ws)
        t0 = time.perf_counter()
        selects = 0
        for seg, n in slots:
            if ctx.room < 20:
                break
            if ctx.select(*_one((seg, n))).selected:
                selects += 1
        fill_ms = (time.perf_counter() - t0) * 1000
        print(f"fill a 10,000-token budget: {selects} one-line selects, {ctx.tokens} tokens, {fill_ms:.0f} ms")


def _one(slot: tuple[str, int]) -> tuple[str, int, int]:
    seg, n = slot
    return seg, n, n


if __name__ == "__main__":
    main()
