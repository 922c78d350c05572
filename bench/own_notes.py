#!/usr/bin/env python3
"""Notes someone wrote, recalled by words and by meaning: how often the line that answers opens the context.

Why: an agent keeps its own notes (a preferences file written through the
memory tool) and a question comes back in other words than the line used
("What should you leave out of a stir-fry for me?" against "- Allergic to
peanuts and cashews"). ``hsearch --own N`` opens a context with up to N such
lines (horma/core/own_notes.py): by words only before index version 15, by
words or meaning since. This script builds one workspace per notebook of a
fixture (bench/data/own_notes.json, the dev set; own_notes_check.json, written
apart and never used to choose), indexes it as the host does (each line's
vector), and asks each question the way the navigator's hsearch call does
(the query's likest lines handed in), for every floor and gap given:

- answered: questions whose answering line is among the lines returned;
- lines on unanswerable: lines returned, on average, for a question the
  notes cannot answer (each costs its tokens in a context);
- tokens: mean tokens of the lines returned, over all questions.

"words" is the rule before meaning; "flat dense" the N likest lines with no
floor, the plain baseline.

Example: python bench/own_notes.py --data bench/data/own_notes.json --sims 0.25,0.3,0.35 --gaps 0.1,0.2
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
from pathlib import Path

from rich.console import Console
from rich.table import Table

from horma.core import own_notes
from horma.core.text import count_tokens
from horma.index import index_folder, open_index, rebuild
from horma.vectors import meaning
from horma.workspace import Workspace

console = Console(stderr=True)


def build(root: Path, notebook: dict) -> Workspace:
    """A workspace holding the notebook's files, indexed with their vectors."""
    ws = Workspace.init(root / notebook["name"])
    for rel, text in notebook["files"].items():
        path = ws.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text if text.endswith("\n") else text + "\n", encoding="utf-8")
    rebuild(ws)
    return ws


def score(rows: list[tuple[dict, list[tuple[str, int, str]]]]) -> dict:
    answerable = [(q, got) for q, got in rows if q["answer"]]
    other = [got for q, got in rows if not q["answer"]]
    return {
        "answered": round(statistics.fmean(any(q["answer"][0] in t for _, _, t in got) for q, got in answerable), 3),
        "lines_on_unanswerable": round(statistics.fmean(len(got) for got in other), 2) if other else 0.0,
        "tokens": round(statistics.fmean(sum(count_tokens(t) for _, _, t in got) for _, got in rows), 1),
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", default="bench/data/own_notes.json", help="the notebooks and their questions")
    p.add_argument("-n", type=int, default=3, help="lines a context may open with (the navigator's OWN_LINES)")
    p.add_argument("--sims", default=str(own_notes.OWN_SIM), help="floors to try, comma-separated (OWN_SIM)")
    p.add_argument("--gaps", default=str(own_notes.OWN_GAP), help="gaps below the likest line to try (OWN_GAP)")
    p.add_argument("--json", action="store_true", help="print the results as JSON on stdout")
    args = p.parse_args()
    notebooks = json.loads(Path(args.data).read_text(encoding="utf-8"))["notebooks"]
    grid = [(float(s), float(g)) for s in args.sims.split(",") for g in args.gaps.split(",")]
    methods: dict[str, list] = {"words": [], "flat dense": []} | {f"words + meaning {s:g} / {g:g}": [] for s, g in grid}
    with tempfile.TemporaryDirectory() as tmp:
        for nb in notebooks:
            ws = build(Path(tmp), nb)
            folder = str(index_folder(ws))
            with open_index(ws, readonly=True) as searcher:
                for q in nb["questions"]:
                    near = meaning(folder, q["q"]).lines
                    methods["words"].append((q, searcher.own_lines(q["q"], args.n)))
                    for s, g in grid:
                        own_notes.OWN_SIM, own_notes.OWN_GAP = s, g
                        methods[f"words + meaning {s:g} / {g:g}"].append((q, searcher.own_lines(q["q"], args.n, near)))
                    own_notes.OWN_SIM, own_notes.OWN_GAP = -1.0, 2.0  # no floor: the likest n lines
                    dense = searcher.own_lines("", args.n, near)  # no words: meaning alone
                    methods["flat dense"].append((q, dense))
    results = [{"method": m, **score(rows)} for m, rows in methods.items()]
    asked = sum(len(nb["questions"]) for nb in notebooks)
    answerable = sum(1 for nb in notebooks for q in nb["questions"] if q["answer"])
    if args.json:
        print(json.dumps({"data": args.data, "n": args.n, "questions": asked, "answerable": answerable,
                          "results": results}, indent=2))
        return
    table = Table(title=f"{args.data}: {len(notebooks)} notebooks, {answerable} answerable and "
                        f"{asked - answerable} unanswerable questions, up to {args.n} lines")
    for col in ("method", "answered", "lines on unanswerable", "tokens"):
        table.add_column(col, justify="left" if col == "method" else "right")
    for r in results:
        table.add_row(r["method"], f"{r['answered']:.3f}", f"{r['lines_on_unanswerable']:.2f}", f"{r['tokens']:.1f}")
    Console().print(table)


if __name__ == "__main__":
    main()
