#!/usr/bin/env python3
"""Ranking sweeps on the dev sets: horma's ranking and the flat baselines over workspaces built once.

Why: a ranking change must be decided on every dev set (LoCoMo, LongMemEval,
the assistant chats) and a LongMemEval haystack takes minutes to organize
and embed. This script builds one workspace per conversation or question
with the heuristic manager (kept in --workdir, reused on later runs), then
scores the ranking ``hsearch`` prints (horma/core/search.py, run on the host
with the same inputs the navigator hands it: the query's nearest units and
the question's date) under each budget, filled as ``hsearch --budget`` fills
it. ``--set NAME=VALUE`` overrides a ranking constant of horma.core.search for
the run, so a sweep is one command per setting; ``--set MODULE.NAME=VALUE`` one of
another module of horma.core that the ranking reads (``updates.TOP=0``: no turn
gives its place to its update, the update links' ablation).

Evidence recall counts evidence unit ids among the context's units (the
navigator selects raw lines whole, so this equals bench/retrieval.py's strict
figure up to repeated texts); the evidence share is the part of the context's
tokens that are evidence turns. Flat baselines (horma/bench/flat.py: BM25,
dense, hybrid over single turns) run on the same questions; with several
budgets a second table compares evidence shares at equal recall (for each
baseline and budget, the smallest horma budget that recalls as much).

Examples:
  python bench/ranking.py locomo ../shared/data/locomo/locomo_dev.json --budget 300,1000
  python bench/ranking.py longmemeval /tmp/lme_dev_haystack.json --budget 3000 --per-type 8 --flat bm25,hybrid
  python bench/ranking.py locomo bench/data/assistant_chats.json --categories 11,12,13,14,15,16 --set SEM_WEIGHT=1
  python bench/ranking.py locomo ../shared/data/locomo/locomo_dev.json --layers none   (the notes ablation)
  python bench/ranking.py locomo bench/data/holdout_chats.json --categories 11,12,13,14,15,16,17 --set updates.TOP=0
      (the update links' ablation: a question about the present without its newer values)
  python bench/ranking.py locomo bench/data/user_chats.json --categories 11,12,13,14,15,16 \
      --budget 100,150,200,300,500,1000 --flat dense,hybrid   (evidence share at equal recall)
  python bench/ranking.py locomo bench/data/holdout_chats.json --categories 11,12,13,14,15,16 \
      --flat bm25,dense,hybrid   (the held-out chats: check a change there, never choose one by it)
  python bench/ranking.py locomo bench/data/assistant_chats.json --categories 11,12,13,14,15,16 --per-turn \
      --workdir /tmp/chats-per-turn   (recorded a message at a time, as horma add or an MCP client does)
  python bench/ranking.py locomo ../shared/data/locomo/locomo_dev.json --dump /tmp/new.json; cmp /tmp/old.json \
      /tmp/new.json   (a change meant to leave every ranking as it was: the best 60 of each question, scores exact)
"""

from __future__ import annotations

import argparse
import importlib
import json
import statistics
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from horma.agents.manager import Manager
from horma.core import index as hi
from horma.core import search, talks
from horma.core.text import count_tokens
from horma.vectors import nearest
from horma.workspace import Unit, Workspace

console = Console(stderr=True)
HEADER_COST, MIN_ROOM = 5, 8  # as hsearch --budget fills


def plan(kind: str, data: str, categories: set[str], per_type: int) -> list[tuple[str, list, list[dict]]]:
    """(workspace name, sessions as (slug, time, units), questions) for every conversation or question."""
    out = []
    if kind == "locomo":
        from horma.bench.locomo import load_locomo, questions

        for conv in load_locomo(data):
            qs = [dict(q=q.question, ev=list(q.evidence), cat=str(q.category), asked=q.asked)
                  for q in questions(conv, {int(c) for c in categories}) if q.evidence]
            sessions = [(s.slug(conv.sample_id), s.time, list(s.units)) for s in conv.sessions]
            out.append((conv.sample_id, sessions, qs))
    else:
        from horma.bench.longmemeval import load_longmemeval

        taken: Counter = Counter()
        for task in load_longmemeval(data):
            cat = task.items[0].category
            if per_type and taken[cat] >= per_type:
                continue
            taken[cat] += 1
            qs = [dict(q=q.question, ev=list(q.evidence), cat=q.category, asked=q.asked) for q in task.items
                  if q.evidence]
            out.append((task.id, [(s.slug, s.time, list(s.units)) for s in task.segments], qs))
    return out


def build(root: Path, sessions: list, per_turn: bool = False) -> None:
    """Organize and embed the sessions once: a record a session, or (``per_turn``) a record a turn, as a
    client that records each message as it comes (``horma add``, an MCP ``record`` a message)."""
    if (root / ".built").exists():
        return
    ws = Workspace.init(root)
    with Manager(ws, "heuristic", backend="local") as manager, manager.one_run():
        for slug, when, units in sessions:
            for batch in ([[u] for u in units] if per_turn else [units]):
                manager.record(batch, slug, batch[0].time if per_turn else when)
    (root / ".built").write_text("1")


def override(item: str) -> None:
    """Set the ranking constant ``item`` names (``NAME=VALUE`` of horma.core.search, ``MODULE.NAME=VALUE`` of
    another module of horma.core) for this run, as the type of its value; ValueError says what is wrong."""
    name, eq, value = item.partition("=")
    where, _, const = name.rpartition(".")
    if not eq or not const.isupper() or not const.replace("_", "").isalnum():
        raise ValueError(f"{item!r} is not NAME=VALUE (an upper-case constant, e.g. SEM_WEIGHT=1 or updates.TOP=0)")
    try:
        module = importlib.import_module(f"horma.core.{where}") if where else search
    except ImportError:
        raise ValueError(f"{where!r} is not a module of horma.core") from None
    if not hasattr(module, const):
        raise ValueError(f"{const!r} is not a ranking constant of {module.__name__}")
    old = getattr(module, const)
    if not isinstance(old, (int, float, str)) or isinstance(old, bool):
        raise ValueError(f"{module.__name__}.{const} is not a number or a string")
    if isinstance(old, str):
        setattr(module, const, value)
        return
    try:
        number = float(value)
    except ValueError:
        raise ValueError(f"{module.__name__}.{const}: {value!r} is not a number") from None
    if isinstance(old, int) and not number.is_integer():
        raise ValueError(f"{module.__name__}.{const}: {value!r} is not a whole number")
    setattr(module, const, type(old)(number))


def fill(ranked, budget: int, evidence: set[str], cut: float = 0.0, pad: bool = False,
         root: Path | None = None) -> tuple[list[str], int, int]:
    used, segs, chosen, ev_tokens = 0, set(), [], 0
    def exists(p: str) -> bool:
        return root is not None and (root / p).is_file()

    floor = cut / 100 * ranked[0].score if ranked and cut else 0.0
    for h in ranked:
        if floor and h.score < floor:
            break
        if h.score <= 0 and not pad:  # as hsearch --budget: the matches are spent (--fill goes on)
            break
        block = talks.block(h.path, h.time, exists)  # a header a day of a session, as a context shows
        cost = h.cost + (0 if block in segs else HEADER_COST)
        if used + cost > budget:
            if budget - used < MIN_ROOM:
                break
            continue
        used += cost
        segs.add(block)
        chosen.append(h.uid)
        ev_tokens += h.cost if h.uid in evidence else 0
    return chosen, used, ev_tokens


def equal_recall(rows: list[dict]) -> list[dict]:
    """For each flat baseline and budget: the smallest horma budget run that recalls at least as much,
    and the two evidence shares. "At equal recall" is how compact contexts are compared: a share
    measured at the same budget rewards whichever method recalls less."""
    horma = sorted((r for r in rows if r["method"] == "horma"), key=lambda r: r["budget"])
    out = []
    for r in rows:
        if r["method"] == "horma":
            continue
        match = next((h for h in horma if h["recall"] >= r["recall"]), None)
        if match is None or not r["evidence_share"]:
            continue
        out.append({"baseline": r["method"], "budget": r["budget"], "recall": r["recall"],
                    "share": r["evidence_share"], "horma_budget": match["budget"], "horma_recall": match["recall"],
                    "horma_share": match["evidence_share"],
                    "ratio": round(match["evidence_share"] / r["evidence_share"], 2)})
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("kind", choices=("locomo", "longmemeval"), help="the file's format")
    p.add_argument("data", help="the dataset file")
    p.add_argument("--budget", default="1000", help="comma list of context budgets in tokens")
    p.add_argument("--categories", default="2,4,5", help="LoCoMo-format categories to ask")
    p.add_argument("--per-type", type=int, default=0, help="LongMemEval: at most N questions per type (0 = all)")
    p.add_argument("--workdir", default="", help="where the workspaces are kept (default ~/.cache/horma-bench/<file>)")
    p.add_argument("--semantic", default="on", choices=("on", "off"), help="hand the ranking the nearest units")
    p.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                   help="override a ranking constant of horma.core.search, or MODULE.NAME one of another "
                        "module of horma.core (updates.TOP=0) (repeatable)")
    p.add_argument("--flat", default="", help="comma list of flat baselines to run beside: bm25,dense,hybrid")
    p.add_argument("--cut", type=float, default=0.0, help="stop at lines scoring under PCT percent of the best")
    p.add_argument("--fill", action="store_true",
                   help="fill the budget past the matches with the best sessions' other turns (hsearch --fill)")
    p.add_argument("--layers", default="default",
                   help="note layers the ranking routes through: default (" + ",".join(search.DEFAULT_LAYERS)
                        + "), none, or a comma list of " + ",".join(search.LAYERS) + " (the notes ablation)")
    p.add_argument("--per-turn", action="store_true",
                   help="build each workspace a record a turn (a client recording each message as it comes); "
                        "give it a --workdir of its own")
    p.add_argument("--json", action="store_true", help="print the report as one JSON object")
    p.add_argument("--dump", default="", metavar="FILE",
                   help="write each question's 60 best turns with their exact scores, and the ranking's length, "
                        "as JSON: two versions' files are equal when no ranking changed")
    args = p.parse_args(argv)
    for item in args.set:
        try:
            override(item)
        except ValueError as exc:
            p.error(f"--set: {exc}")
    layers = search.DEFAULT_LAYERS if args.layers == "default" else tuple(
        x for x in args.layers.split(",") if x and x != "none")
    if unknown := set(layers) - set(search.LAYERS):
        p.error(f"--layers: unknown {', '.join(sorted(unknown))}; choose from {', '.join(search.LAYERS)}")
    budgets = [int(b) for b in args.budget.split(",")]
    cats = {c for c in args.categories.split(",") if c}
    work = Path(args.workdir or Path.home() / ".cache" / "horma-bench" / Path(args.data).stem)
    tasks = plan(args.kind, args.data, cats, args.per_type)
    recall: dict = defaultdict(list)
    dumped: dict[str, list] = {}
    tokens: dict = defaultdict(list)
    share: dict = defaultdict(list)
    t_build = time.perf_counter()
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=console, transient=True) as bar:
        job = bar.add_task("organize + embed", total=len(tasks))
        for name, sessions, _ in tasks:
            build(work / name, sessions, args.per_turn)
            bar.advance(job)
    t_build = time.perf_counter() - t_build
    for name, sessions, qs in tasks:
        folder = str(work / name / ".horma" / "index")
        conn = hi.connect(folder, readonly=True)
        try:
            searcher = search.Searcher(conn, layers=layers, root=str(work / name))
            for q in qs:
                near = nearest(folder, q["q"]) if args.semantic == "on" else None
                ranked = searcher.rank(q["q"], near, q["asked"][:10] if q["asked"] else None, sessions=args.fill)
                if args.dump:
                    dumped[f"{name}/{len(dumped)}"] = [[h.uid, h.score.hex()] for h in ranked[:60]] + [len(ranked)]
                ev = set(q["ev"])
                for b in budgets:
                    chosen, used, ev_tokens = fill(ranked, b, ev, args.cut, args.fill, work / name)
                    got = len(ev & set(chosen)) / len(ev)
                    for key in (("horma", b, "all"), ("horma", b, q["cat"])):
                        recall[key].append(got)
                    tokens["horma", b].append(used)
                    share["horma", b].append(ev_tokens / used if used else 0.0)
        finally:
            conn.close()
        flat = [m for m in args.flat.split(",") if m]
        if flat:
            from horma.bench.flat import FlatIndex

            units: list[Unit] = [u for _, _, us in sessions for u in us]
            costs = {u.id: count_tokens(f"{u.id} {u.actor}: {u.text}") for u in units}
            index = FlatIndex(units, flat, cache=work / f"{name}.flat-dense.npz")  # dense and hybrid share it
            index.prepare([q["q"] for q in qs])
        for method in flat:
            for q in qs:
                ev = set(q["ev"])
                for b in budgets:
                    fc = index.context(q["q"], method, b)
                    got = len(ev & set(fc.refs)) / len(ev)
                    for key in ((f"flat {method}", b, "all"), (f"flat {method}", b, q["cat"])):
                        recall[key].append(got)
                    tokens[f"flat {method}", b].append(fc.tokens)
                    share[f"flat {method}", b].append(
                        sum(costs[u] for u in fc.refs if u in ev) / fc.tokens if fc.tokens else 0.0)
    if args.dump:
        Path(args.dump).write_text(json.dumps(dumped, indent=0))
    methods = list(dict.fromkeys(k[0] for k in recall))
    categories = sorted({k[2] for k in recall if k[2] != "all"})
    rows = []
    for m in methods:
        for b in budgets:
            rows.append({"method": m, "budget": b, "questions": len(recall[m, b, "all"]),
                         "recall": round(statistics.fmean(recall[m, b, "all"]), 4),
                         "by_category": {c: round(statistics.fmean(recall[m, b, c]), 4) for c in categories
                                         if recall.get((m, b, c))},
                         "mean_tokens": round(statistics.fmean(tokens[m, b]), 1),
                         "evidence_share": round(statistics.fmean(share[m, b]), 4)})
    equal = equal_recall(rows)
    report = {"data": args.data, "kind": args.kind, "semantic": args.semantic, "set": args.set, "layers": layers,
              "per_turn": args.per_turn, "workspaces": len(tasks), "organize_s": round(t_build, 1), "results": rows,
              "equal_recall": equal}
    if args.json:
        print(json.dumps(report))
        return 0
    out = Console(width=None if sys.stdout.isatty() else 160)
    table = Table(title=f"{Path(args.data).name}: {rows[0]['questions'] if rows else 0} questions, "
                        f"{len(tasks)} workspaces (semantic {args.semantic}"
                        + (f"; {', '.join(args.set)}" if args.set else "") + ")")
    for col in ("method", "budget", "recall", "by category", "mean tokens", "evidence share"):
        table.add_column(col, justify="left" if col in ("method", "by category") else "right")
    for r in rows:
        table.add_row(r["method"], str(r["budget"]), f"{r['recall']:.3f}",
                      "  ".join(f"{c}: {v:.3f}" for c, v in r["by_category"].items()),
                      f"{r['mean_tokens']:.0f}", f"{r['evidence_share']:.3f}")
    out.print(table)
    if equal:
        table = Table(title="evidence share at equal recall: the smallest horma budget that recalls as much")
        for col in ("baseline", "budget", "recall", "share", "horma budget", "horma recall", "horma share",
                    "share ratio"):
            table.add_column(col, justify="left" if col == "baseline" else "right")
        for e in equal:
            table.add_row(e["baseline"], str(e["budget"]), f"{e['recall']:.3f}", f"{e['share']:.3f}",
                          str(e["horma_budget"]), f"{e['horma_recall']:.3f}", f"{e['horma_share']:.3f}",
                          f"{e['ratio']:.2f}x")
        out.print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
