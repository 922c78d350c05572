#!/usr/bin/env python3
"""Retrieval benchmark on LoCoMo: the heuristic manager + navigator against flat retrieval over turns.

One workspace per conversation is built with the heuristic manager (its
ingest throughput is measured), then every question of the chosen categories
is recalled under a token budget by the heuristic navigator in a read-only
sandbox, and by flat BM25 / dense / hybrid over single turns. Metrics:

- evidence_recall (strict): an evidence turn counts only if its text appears
  verbatim in the context text, so notes that merely cite ids earn nothing;
- Jaccard of the context's unit ids vs the evidence ids (the paper's reward);
- mean context tokens, and the evidence share: the part of the context's
  tokens that are evidence turns (a context that stops when the evidence
  ends scores high; one padded to the budget, low);
- p50/p95 recall latency (navigator: including every
  sandbox command; flat: ranking and filling, index built beforehand).

Questions without evidence are left out of recall and Jaccard (the count is shown).

Example: python bench/retrieval.py --data ../shared/data/locomo/locomo_dev.json --budget 300,1000
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from horma.agents.manager import Manager
from horma.agents.navigator import navigate
from horma.agents.trajectory import Trajectory
from horma.bench.flat import METHODS as FLAT_METHODS
from horma.bench.flat import FlatError, FlatIndex
from horma.bench.locomo import QA, Conversation, DatasetError, load_locomo, questions
from horma.context import Context
from horma.core.text import count_tokens
from horma.errors import HormaError
from horma.sandbox import View, open_sandbox
from horma.workspace import Workspace

console = Console(stderr=True)
ALL_METHODS = ("horma", *FLAT_METHODS)


def strict_hits(conv: Conversation, evidence: tuple[str, ...], text: str) -> int:
    """Evidence turns whose text is verbatim in ``text``."""
    return sum(1 for e in evidence if " ".join(conv.unit(e).text.split()) in text)


def jaccard(selected: list[str], evidence: tuple[str, ...]) -> float:
    a, b = set(selected), set(evidence)
    return len(a & b) / len(a | b) if a | b else 0.0


@dataclass
class Score:
    recall: list[float] = field(default_factory=list)
    jaccard: list[float] = field(default_factory=list)
    tokens: list[int] = field(default_factory=list)
    share: list[float] = field(default_factory=list)
    latency_ms: list[float] = field(default_factory=list)
    by_category: dict[int, list[float]] = field(default_factory=dict)
    no_evidence: int = 0

    def add(self, conv: Conversation, qa: QA, text: str, ids: list[str], tokens: int, ms: float) -> None:
        self.tokens.append(tokens)
        self.latency_ms.append(ms)
        if not qa.evidence:
            self.no_evidence += 1
            return
        r = strict_hits(conv, qa.evidence, text) / len(qa.evidence)
        self.recall.append(r)
        found = [conv.unit(e) for e in qa.evidence if " ".join(conv.unit(e).text.split()) in text]
        self.share.append(min(1.0, sum(count_tokens(f"{u.id} {u.actor}: {u.text}") for u in found) / tokens)
                          if tokens else 0.0)
        self.jaccard.append(jaccard(ids, qa.evidence))
        self.by_category.setdefault(qa.category, []).append(r)

    def summary(self) -> dict:
        def mean(xs):
            return round(statistics.fmean(xs), 4) if xs else None

        lat = sorted(self.latency_ms)
        pct = (lambda p: round(lat[min(len(lat) - 1, int(p * len(lat)))], 2)) if lat else (lambda p: None)
        return {"questions": len(self.tokens), "no_evidence": self.no_evidence,
                "evidence_recall": mean(self.recall), "jaccard": mean(self.jaccard),
                "mean_tokens": round(statistics.fmean(self.tokens), 1) if self.tokens else None,
                "evidence_share": mean(self.share),
                "p50_ms": pct(0.5), "p95_ms": pct(0.95),
                "recall_by_category": {str(k): mean(v) for k, v in sorted(self.by_category.items())}}


def build_workspace(conv: Conversation, root: Path, backend: str) -> tuple[Workspace, int, float]:
    """Archive and manage every session; returns (workspace, turns, seconds)."""
    ws = Workspace.init(root / conv.sample_id)
    turns = 0
    t0 = time.perf_counter()
    with Manager(ws, "heuristic", backend=backend) as manager, manager.one_run():  # as `horma ingest`: one commit
        for s in conv.sessions:
            turns += manager.record(list(s.units), s.slug(conv.sample_id), s.time).archived
    return ws, turns, time.perf_counter() - t0


def run(args: argparse.Namespace) -> dict:
    convs = load_locomo(args.data)
    cats = {int(c) for c in args.categories.split(",")}
    plan: list[tuple[Conversation, list[QA]]] = []
    left = args.limit if args.limit else None
    for conv in convs:
        qs = questions(conv, cats)
        if left is not None:
            qs = qs[:left]
            left -= len(qs)
        if qs:
            plan.append((conv, qs))
        if left == 0:
            break
    methods = [m for m in args.methods.split(",") if m]
    unknown = [m for m in methods if m not in ALL_METHODS]
    if unknown:
        raise DatasetError(f"unknown method {unknown[0]!r}; choose from {', '.join(ALL_METHODS)}")
    budgets = [int(b) for b in str(args.budget).split(",")]
    if any(b <= 0 for b in budgets):
        raise DatasetError("--budget must be positive")
    layers = None if args.layers == "default" else tuple(x for x in args.layers.split(",") if x and x != "none")
    scores = {(m, b): Score() for m in methods for b in budgets}
    ingest_turns, ingest_s = 0, 0.0
    skipped: dict[str, str] = {}
    workdir = Path(args.workdir) if args.workdir else Path(tempfile.mkdtemp(prefix="horma-bench-"))
    total = sum(len(qs) for _, qs in plan)
    try:
        with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                      console=console, transient=not args.json) as progress:
            task = progress.add_task("questions", total=total)
            for conv, qs in plan:
                progress.update(task, description=f"{conv.sample_id}: ingest")
                if "horma" in methods:
                    if (workdir / conv.sample_id).exists():
                        shutil.rmtree(workdir / conv.sample_id)
                    ws, n, secs = build_workspace(conv, workdir, args.backend)
                    ingest_turns += n
                    ingest_s += secs
                flat_methods = [m for m in methods if m in FLAT_METHODS and m not in skipped]
                index = None
                if flat_methods:
                    try:
                        index = FlatIndex(conv.units(), flat_methods)
                        index.prepare([q.question for q in qs])
                    except FlatError as exc:
                        for m in flat_methods:
                            if m != "bm25":
                                skipped[m] = str(exc)
                        index = FlatIndex(conv.units(), ["bm25"]) if "bm25" in flat_methods else None
                progress.update(task, description=f"{conv.sample_id}: recall")
                box = open_sandbox(ws.root, args.backend, View.READ) if "horma" in methods else None
                try:
                    for qa in qs:
                        for b in budgets:
                            if box is not None:
                                t0 = time.perf_counter()
                                ctx = Context(qa.question, b, ws)
                                traj = Trajectory(ws.trajectories, "retriever", qa.question, policy="heuristic",
                                                  budget=b, backend=box.backend)
                                navigate(box, ctx, traj, layers=layers, cut=args.cut,
                                         semantic=args.semantic == "on")
                                traj.end("done", tokens=ctx.tokens, refs=ctx.refs)
                                ms = (time.perf_counter() - t0) * 1000
                                scores["horma", b].add(conv, qa, ctx.text, ctx.refs, ctx.tokens, ms)
                            for m in methods:
                                if m in FLAT_METHODS and m not in skipped and index is not None:
                                    t0 = time.perf_counter()
                                    fc = index.context(qa.question, m, b)
                                    ms = (time.perf_counter() - t0) * 1000
                                    scores[m, b].add(conv, qa, fc.text, fc.refs, fc.tokens, ms)
                        progress.advance(task)
                finally:
                    if box is not None:
                        box.close()
    finally:
        if not args.workdir:
            shutil.rmtree(workdir, ignore_errors=True)
    return {
        "data": str(args.data), "categories": sorted(cats), "backend": args.backend, "layers": args.layers,
        "cut": args.cut, "semantic": args.semantic,
        "conversations": len(plan), "questions": total,
        "ingest": {"turns": ingest_turns, "seconds": round(ingest_s, 3),
                   "turns_per_s": round(ingest_turns / ingest_s, 1) if ingest_s else None},
        "skipped": skipped,
        "results": [{"method": m, "budget": b, **scores[m, b].summary()}
                    for m in methods if m not in skipped for b in budgets],
    }


def render(report: dict) -> None:
    out = Console(width=None if sys.stdout.isatty() else 140)
    table = Table(title=f"LoCoMo retrieval: {report['questions']} questions of categories "
                        f"{','.join(map(str, report['categories']))}, {report['conversations']} conversations "
                        f"(navigator sandbox: {report['backend']}; note layers: {report['layers']}"
                        + (f"; cut {report['cut']}%" if report['cut'] else "") + ")")
    for col in ("method", "budget", "evidence recall", "recall by category", "Jaccard", "mean tokens",
                "evidence share", "p50 ms", "p95 ms"):
        table.add_column(col, justify="left" if col == "method" else "right")
    for r in report["results"]:
        name = "heuristic navigator (horma)" if r["method"] == "horma" else f"flat {r['method']}"
        cats = "  ".join(f"{k}: {v:.3f}" for k, v in r["recall_by_category"].items())
        table.add_row(name, str(r["budget"]), f"{r['evidence_recall']:.3f}", cats, f"{r['jaccard']:.3f}",
                      f"{r['mean_tokens']:.0f}", f"{r['evidence_share']:.3f}", f"{r['p50_ms']:.1f}",
                      f"{r['p95_ms']:.1f}")
    out.print(table)
    ing = report["ingest"]
    if ing["turns"]:
        out.print(f"heuristic manager ingest: {ing['turns']} turns in {ing['seconds']:.2f} s = "
                  f"{ing['turns_per_s']:.0f} turns/s")
    no_ev = report["results"][0]["no_evidence"] if report["results"] else 0
    out.print(f"questions without evidence (left out of recall and Jaccard): {no_ev}")
    for m, why in report["skipped"].items():
        out.print(f"[yellow]skipped {m}:[/] {why}")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                epilog="Example: python bench/retrieval.py --data locomo_dev.json --budget 300,1000")
    p.add_argument("--data", required=True, help="LoCoMo file in the locomo10.json format")
    p.add_argument("--budget", default="1000", help="context budget in tokens; a comma list runs several")
    p.add_argument("--limit", type=int, default=0, help="only the first N questions (0 = all)")
    p.add_argument("--backend", default="local", choices=("local", "bwrap", "docker", "auto"),
                   help="sandbox for the manager and navigator")
    p.add_argument("--methods", default=",".join(ALL_METHODS), help="comma list of horma,bm25,dense,hybrid")
    p.add_argument("--categories", default="2,4,5", help="LoCoMo categories to ask (default 2,4,5)")
    p.add_argument("--layers", default="default",
                   help="note layers hsearch routes through: default (its own: dates) or none (raw lines only): "
                        "the notes ablation")
    p.add_argument("--cut", type=int, default=0,
                   help="stop at lines scoring below PCT percent of the best one (0: fill the budget)")
    p.add_argument("--semantic", default="on", choices=("on", "off"),
                   help="hand hsearch the query's nearest units in embedding space (off: words and dates only)")
    p.add_argument("--workdir", default="", help="keep the workspaces here (default: a temporary folder)")
    p.add_argument("--json", action="store_true", help="print the report as one JSON object")
    args = p.parse_args(argv)
    try:
        report = run(args)
    except (HormaError, ValueError) as exc:
        console.print(f"[bold red]error:[/] {exc}", highlight=False)
        return 1
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        render(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
