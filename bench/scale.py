#!/usr/bin/env python3
"""Scale benchmark: ingest and recall on LoCoMo archives of 10^3 to 10^6 turns.

Why: a memory that is fast on one 400-turn conversation can still fall over
on a year of an agent's life. This script answers how ingest speed, recall
latency, recall quality and the on-disk cost change as the archive grows by
orders of magnitude, with everything else held fixed (same questions, same
evidence, same budgets, same backend).

The archives are built from real LoCoMo dev turns, not synthetic text. The
dev conversations are laid end to end as *instances*: instance 0 is the first
conversation exactly as in the file (original ids, original dates); instance
k >= 1 is conversation ``k mod C`` (C conversations in the file) with every
unit id prefixed ``c<k>-`` (dia_ids repeat across conversations, so even a
conversation's first appearance needs one) and every date shifted by whole
days so that the instance starts the day after the previous one ended.
Sessions are recorded in time order, so an archive of N turns is the first N
turns of that stream (the last session may be cut short); it always holds the
whole original first conversation, and from about 4,000 turns on it also holds
verbatim copies of it with later dates, the hardest kind of distractor.

Each archive is ingested through the public API only, ``Memory.record`` once
per session (the heuristic manager archives the raw lines, writes notes and
updates the search index), then the first conversation's questions of
categories 2, 4 and 5 are recalled with ``Memory.recall`` at each budget
(``--reuse``: on the workspaces an earlier run kept, with no ingest: a ranking
change measured without building 10^5 turns again). Per
size it reports:

- ingest rate: units/s and archived text tokens/s (the project's token count),
  summed over the ``record`` calls only; also the rate over the last 10% of the
  turns, which shows whether ingest slows as the archive grows;
- recall latency p50/p95 (ms, nearest rank) around ``Memory.recall``, after
  one untimed warm-up recall that opens the retriever's sandbox; with
  ``--rounds N`` (and ``--reuse``) every size is recalled N times, the sizes
  alternating, the p50 is the median of the rounds' and the largest size's
  p50 over the smallest's is reported round by round: one run after another
  moved the 10^3 figure by a quarter on a shared machine;
- strict evidence recall: an evidence turn counts only if its text is verbatim
  in the context text (as in bench/retrieval.py). A verbatim copy of that turn
  from a later instance counts too, since its text is the same, so
  "original-id recall" is shown beside it: the share of the evidence ids (the
  original, unprefixed ones) among the context's source refs;
- where a recall's time goes, in this process (no sandbox, no fresh ``hsearch``): the p50 of the
  nearest-vector search and of ``Searcher.rank`` as ``hsearch --budget`` calls it, each question's the
  fastest of three, asked on today's date as a recall is; the parts that grow with the archive;
- disk: bytes of ``<ws>/.horma/index/``, its ratio to the raw archive
  (``<ws>/raw/``), and the bytes of ``<ws>/notes/``;
- peak RSS (MB) from ``resource.getrusage``: this process and its terminated
  children (the sandbox shells and the commands they ran; a docker
  container's processes are not our children and are not counted). Each size
  runs in its own forked process, so each figure belongs to that size alone.

Questions without evidence are timed but left out of both recall figures.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import multiprocessing as mp
import os
import re
import resource
import shutil
import statistics
import sys
import tempfile
import time
import traceback
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table

import horma
from horma import Unit
from horma.bench.locomo import Conversation, Session, load_locomo, questions
from horma.core import index as hi
from horma.core import search
from horma.vectors import nearest

console = Console(stderr=True)

BACKENDS = ("local", "bwrap", "docker")
TIME_FORMAT = "%Y-%m-%d %H:%M"
USER_ERRORS = ("DatasetError", "WorkspaceError", "SandboxError")  # shown as one line, not a traceback

try:
    from horma.core.text import count_tokens
except ImportError:  # the project's definition: a \w+ run or one punctuation character
    _TOKEN = re.compile(r"\w+|[^\w\s]")

    def count_tokens(text: str) -> int:
        return len(_TOKEN.findall(text))


class BenchError(ValueError):
    """Bad input: printed as one error line, exit status 1."""


# -- the replicated stream -------------------------------------------------------


@dataclass(frozen=True)
class Segment:
    """One session of one instance, ready for ``Memory.record``."""

    instance: int
    slug: str
    time: str
    units: tuple[Unit, ...]
    tokens: int


def schedule(convs: list[Conversation], size: int) -> Iterator[tuple[int, Conversation, Session, str, int]]:
    """(instance, conversation, session, shifted time, units taken) for the first ``size`` turns, in time order.

    Instance 0 is the first conversation unshifted; instance k is conversation
    ``k mod C`` moved by whole days to start the day after instance k-1 ended.
    """
    left = size
    prev_end: dt.date | None = None
    k = 0
    while left > 0:
        conv = convs[k % len(convs)]
        sessions = sorted(conv.sessions, key=lambda s: s.time)
        first = dt.datetime.strptime(sessions[0].time, TIME_FORMAT)
        days = 0 if prev_end is None else (prev_end - first.date()).days + 1
        for s in sessions:
            try:
                when = dt.datetime.strptime(s.time, TIME_FORMAT) + dt.timedelta(days=days)
            except OverflowError:
                raise BenchError(f"--sizes: {size} turns shift dates past the year 9999") from None
            take = min(left, len(s.units))
            yield k, conv, s, when.strftime(TIME_FORMAT), take
            left -= take
            prev_end = when.date()
            if left <= 0:
                return
        k += 1


def replicate(convs: list[Conversation], size: int, tokens: dict[tuple[str, str], int]) -> Iterator[Segment]:
    """The first ``size`` turns of the instance stream (see the module docstring), session by session."""
    for k, conv, s, stamp, take in schedule(convs, size):
        units = s.units[:take]
        if k == 0:
            out, slug = tuple(units), s.slug(conv.sample_id)
        else:
            out = tuple(Unit(f"c{k}-{u.id}", stamp, u.actor, u.text) for u in units)
            slug = f"c{k}-{s.slug(conv.sample_id)}"
        yield Segment(k, slug, stamp, out, sum(tokens[conv.sample_id, u.id] for u in units))


# -- measuring one size ------------------------------------------------------------


def tree_bytes(path: Path) -> int:
    if not path.exists():
        return 0
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file() and not p.is_symlink())


def percentile(sorted_ms: list[float], p: float) -> float | None:
    if not sorted_ms:
        return None
    return round(sorted_ms[min(len(sorted_ms) - 1, int(p * len(sorted_ms)))], 2)


def strict_hits(conv: Conversation, evidence: tuple[str, ...], text: str) -> int:
    """Evidence turns whose text is verbatim in ``text``."""
    return sum(1 for e in evidence if " ".join(conv.unit(e).text.split()) in text)


def measure(plan: dict, size: int, ws_path: Path) -> dict:
    """Build one archive of ``size`` turns, then recall every question at every budget."""
    convs, qs, budgets = plan["convs"], plan["questions"], plan["budgets"]
    first = convs[0]
    turns = size  # the instance stream is endless: an archive holds exactly ``size`` turns
    tail_from = turns - max(1, turns // 10)
    text_tokens = sessions = 0
    seg = None

    mem = horma.Memory(ws_path, sandbox=plan["backend"])
    try:
        with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                      TimeElapsedColumn(), TimeRemainingColumn(), console=console) as progress:
            task = progress.add_task(f"{size:>9,} turns: ingest", total=turns)
            ingest_s = tail_s = 0.0
            done = 0
            kept = plan["reuse"] and (ws_path / "raw").is_dir()
            for seg in replicate(convs, size, plan["tokens"]):  # streamed: 10^6 units never sit in memory
                if kept:  # --reuse: archived by an earlier run; counted, not recorded again
                    done += len(seg.units)
                    text_tokens += seg.tokens
                    sessions += 1
                    progress.advance(task, len(seg.units))
                    continue
                t0 = time.perf_counter()
                mem.record(seg.units, slug=seg.slug, time=seg.time)
                secs = time.perf_counter() - t0
                ingest_s += secs
                if done + len(seg.units) > tail_from:  # the session reaches into the last 10%
                    tail_s += secs * (done + len(seg.units) - max(done, tail_from)) / len(seg.units)
                done += len(seg.units)
                text_tokens += seg.tokens
                sessions += 1
                progress.advance(task, len(seg.units))

            mem.recall(qs[0].question, budgets[0])  # warm-up: opens the read-view sandbox
            task = progress.add_task(f"{size:>9,} turns: recall", total=len(qs) * len(budgets))
            per_budget = {b: {"ms": [], "strict": [], "ids": [], "tokens": [], "no_evidence": 0} for b in budgets}
            for qa in qs:
                for b in budgets:
                    t0 = time.perf_counter()
                    ctx = mem.recall(qa.question, b)
                    ms = (time.perf_counter() - t0) * 1000
                    text, refs, ntok = ctx.text, set(ctx.refs), ctx.tokens
                    r = per_budget[b]
                    r["ms"].append(ms)
                    r["tokens"].append(ntok)
                    if not qa.evidence:
                        r["no_evidence"] += 1
                    else:
                        r["strict"].append(strict_hits(first, qa.evidence, text) / len(qa.evidence))
                        r["ids"].append(sum(1 for e in qa.evidence if e in refs) / len(qa.evidence))
                    progress.advance(task)
        parts = time_parts(ws_path, [qa.question for qa in qs])
    finally:
        mem.close()

    def mean(xs: list[float]) -> float | None:
        return round(statistics.fmean(xs), 4) if xs else None

    recall = []
    for b, r in per_budget.items():
        lat = sorted(r["ms"])
        recall.append({"budget": b, "questions": len(r["ms"]), "no_evidence": r["no_evidence"],
                       "p50_ms": percentile(lat, 0.5), "p95_ms": percentile(lat, 0.95),
                       "strict_recall": mean(r["strict"]), "original_id_recall": mean(r["ids"]),
                       "mean_tokens": round(statistics.fmean(r["tokens"]), 1) if r["tokens"] else None})
    index_bytes = tree_bytes(ws_path / ".horma" / "index")
    raw_bytes = tree_bytes(ws_path / "raw")
    tail_turns = turns - tail_from
    kb_self = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    kb_children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return {
        "size": size, "turns": turns, "sessions": sessions, "instances": seg.instance + 1,
        "last_date": seg.time,
        "ingest": {"reused": kept, "seconds": round(ingest_s, 3), "text_tokens": text_tokens,
                   "units_per_s": round(turns / ingest_s, 1) if ingest_s else None,
                   "tokens_per_s": round(text_tokens / ingest_s, 1) if ingest_s else None,
                   "tail_units_per_s": round(tail_turns / tail_s, 1) if tail_s else None},
        "recall": recall, "parts": parts,
        "index_bytes": index_bytes, "raw_bytes": raw_bytes,
        "index_to_raw": round(index_bytes / raw_bytes, 3) if raw_bytes else None,
        "notes_bytes": tree_bytes(ws_path / "notes"),
        "peak_rss_mb": {"self": round(kb_self / 1024, 1), "children": round(kb_children / 1024, 1)},
        "workspace": str(ws_path),
    }


PART_REPEAT = 3


def time_parts(ws_path: Path, asked: list[str]) -> dict[str, float | None]:
    """p50 ms of the two parts of a recall that grow with the archive, in this process: the nearest-vector
    search and the ranking (``sessions=False``, today's date: as ``hsearch --budget`` runs it for a recall)."""
    folder = str(ws_path / ".horma" / "index")
    today = dt.date.today().isoformat()
    conn = hi.connect(folder, readonly=True)
    try:
        searcher = search.Searcher(conn, root=str(ws_path))
        near_ms, rank_ms = [], []
        for q in asked:  # each the fastest of PART_REPEAT: a few ms apart show through a shared machine's load
            near_s, rank_s = [], []
            for _ in range(PART_REPEAT):
                t0 = time.perf_counter()
                near = nearest(folder, q)
                t1 = time.perf_counter()
                searcher.rank(q, near, today, sessions=False)
                near_s.append(t1 - t0)
                rank_s.append(time.perf_counter() - t1)
            near_ms.append(min(near_s) * 1000)
            rank_ms.append(min(rank_s) * 1000)
    finally:
        conn.close()
    return {"nearest_p50_ms": percentile(sorted(near_ms), 0.5), "rank_p50_ms": percentile(sorted(rank_ms), 0.5)}


def _child(conn, plan: dict, size: int, ws_path: Path) -> None:
    try:
        conn.send({"ok": measure(plan, size, ws_path)})
    except BaseException as exc:  # reported by the parent
        conn.send({"error": type(exc).__name__, "message": str(exc), "traceback": traceback.format_exc()})
    finally:
        conn.close()


def run_size(plan: dict, size: int, ws_path: Path) -> dict:
    """``measure`` in a forked process, so peak RSS is this size's own."""
    ctx = mp.get_context("fork")
    parent, child = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child, args=(child, plan, size, ws_path))
    proc.start()
    child.close()
    try:
        msg = parent.recv()
    except EOFError:
        proc.join()
        raise BenchError(f"size {size}: the benchmark process died "
                         f"(exit status {proc.exitcode}; out of memory?)") from None
    proc.join()
    if "ok" in msg:
        return msg["ok"]
    if msg["error"] in USER_ERRORS:
        raise BenchError(f"size {size}: {msg['message']}")
    sys.stderr.write(msg["traceback"])
    raise BenchError(f"size {size}: crashed with {msg['error']}: {msg['message']} (traceback above)")


# -- input -------------------------------------------------------------------------


def parse_counts(text: str, what: str) -> list[int]:
    """``"1000,1e4,100_000"`` -> [1000, 10000, 100000]; BenchError on anything else."""
    out: list[int] = []
    for item in (x.strip() for x in text.split(",")):
        if not item:
            raise BenchError(f"{what} {text!r}: empty item (expected a comma list like 1000,10000)")
        try:
            value = float(item.replace("_", "")) if re.fullmatch(r"[\d_]+(\.\d*)?([eE]\d+)?", item) else None
        except ValueError:
            value = None
        if value is None or value != int(value) or value <= 0:
            raise BenchError(f"{what} {text!r}: {item!r} is not a positive whole number")
        if int(value) in out:
            raise BenchError(f"{what} {text!r}: {int(value)} appears twice")
        out.append(int(value))
    return out


def make_plan(args: argparse.Namespace) -> dict:
    if args.backend not in BACKENDS:
        raise BenchError(f"--backend {args.backend!r}: choose one of {', '.join(BACKENDS)}")
    if args.questions < 0:
        raise BenchError(f"--questions {args.questions}: must be 0 (all) or more")
    sizes = parse_counts(args.sizes, "--sizes")
    budgets = parse_counts(args.budgets, "--budgets")
    if args.rounds < 1 or (args.rounds > 1 and not args.reuse):
        raise BenchError(f"--rounds {args.rounds}: 1, or more with --reuse (a round recalls; it does not ingest)")
    if args.reuse and not args.workdir:
        raise BenchError("--reuse needs --workdir: the folder an earlier run kept its workspaces in")
    if args.workdir:
        for size in sizes:
            ws = Path(args.workdir) / f"scale-{size}"
            if args.reuse and not (ws / "raw").is_dir():
                raise BenchError(f"--reuse: {ws} holds no archive; run once without --reuse to build it")
            if not args.reuse and ws.exists() and any(ws.iterdir()):
                raise BenchError(f"{ws} already exists and is not empty; remove it, choose another --workdir, "
                                 "or --reuse it to measure recall only")
    convs = load_locomo(args.data)
    first = convs[0]
    need = len(first.units())
    small = [s for s in sizes if s < need]
    if small:
        raise BenchError(f"--sizes: {small[0]} is smaller than the first conversation ({first.sample_id}, "
                         f"{need} turns), whose questions every archive must be able to answer")
    qs = questions(first, {2, 4, 5})
    if args.questions:
        qs = qs[: args.questions]
    if not qs:
        raise BenchError(f"{args.data}: {first.sample_id} has no questions of categories 2, 4, 5")
    for _ in schedule(convs, max(sizes)):  # cheap (no units built): refuses dates past 9999 up front
        pass
    tokens = {(c.sample_id, u.id): count_tokens(u.text) for c in convs for u in c.units()}
    return {"convs": convs, "questions": qs, "budgets": budgets, "sizes": sizes, "backend": args.backend,
            "tokens": tokens, "reuse": args.reuse}


def run(args: argparse.Namespace) -> dict:
    plan = make_plan(args)
    keep = bool(args.workdir)
    root = Path(args.workdir) if keep else Path(tempfile.mkdtemp(prefix="horma-scale-"))
    root.mkdir(parents=True, exist_ok=True)
    rounds: list[list[dict]] = []
    try:
        for _ in range(args.rounds):  # the sizes alternate: the machine's load moves each size alike
            rounds.append([])
            for size in plan["sizes"]:
                rounds[-1].append(run_size(plan, size, root / f"scale-{size}"))
                if not keep:
                    shutil.rmtree(root / f"scale-{size}", ignore_errors=True)  # disk: 10^6 turns is large
    finally:
        if not keep:
            shutil.rmtree(root, ignore_errors=True)
    results = rounds[0]
    for i, r in enumerate(results):
        if not keep:
            r.pop("workspace")
        for j, rec in enumerate(r["recall"]):  # each round's p50, and their median
            rec["p50_ms_rounds"] = [rd[i]["recall"][j]["p50_ms"] for rd in rounds]
            rec["p50_ms"] = round(statistics.median(rec["p50_ms_rounds"]), 2)
        for key in list(r["parts"]):
            r["parts"][key + "_rounds"] = [rd[i]["parts"][key] for rd in rounds]
            r["parts"][key] = round(statistics.median(r["parts"][key + "_rounds"]), 2)
    ratio = {}
    if len(results) > 1:  # the largest size's p50 over the smallest's, round by round (issue 19: at most 2x)
        for j, b in enumerate(plan["budgets"]):
            each = [rd[-1]["recall"][j]["p50_ms"] / rd[0]["recall"][j]["p50_ms"] for rd in rounds]
            ratio[str(b)] = {"rounds": [round(x, 2) for x in each], "median": round(statistics.median(each), 2)}
    first = plan["convs"][0]
    return {"data": str(args.data), "backend": plan["backend"], "conversation": first.sample_id,
            "categories": [2, 4, 5], "questions": len(plan["questions"]), "budgets": plan["budgets"],
            "horma_version": horma.__version__, "cpus": os.cpu_count(), "rounds": args.rounds, "sizes": results,
            "p50_ratio": ratio}


# -- output ------------------------------------------------------------------------


def _mb(n: int) -> str:
    return f"{n / 1e6:,.1f} MB" if n >= 1e5 else f"{n / 1e3:,.1f} kB"


def render(report: dict) -> None:
    out = Console(width=None if sys.stdout.isatty() else 160)
    sizes = report["sizes"]
    table = Table(title=f"horma at scale: LoCoMo dev turns replicated; {report['questions']} questions of "
                        f"{report['conversation']} (categories 2,4,5); sandbox {report['backend']}")
    table.add_column("metric")
    for r in sizes:
        table.add_column(f"{r['turns']:,} turns", justify="right")

    def row(name: str, fn) -> None:
        table.add_row(name, *(fn(r) for r in sizes))

    def fmt(x, spec: str) -> str:
        return "-" if x is None else format(x, spec)

    row("ingest units/s", lambda r: fmt(r["ingest"]["units_per_s"], ",.0f"))
    row("  last 10% units/s", lambda r: fmt(r["ingest"]["tail_units_per_s"], ",.0f"))
    row("ingest text tokens/s", lambda r: fmt(r["ingest"]["tokens_per_s"], ",.0f"))
    row("ingest seconds", lambda r: fmt(r["ingest"]["seconds"], ",.1f"))
    for i, b in enumerate(report["budgets"]):
        table.add_section()
        row(f"recall p50 / p95 ms @{b}",
            lambda r, i=i: f"{fmt(r['recall'][i]['p50_ms'], ',.1f')} / {fmt(r['recall'][i]['p95_ms'], ',.1f')}")
        row(f"strict recall @{b}", lambda r, i=i: fmt(r["recall"][i]["strict_recall"], ".3f"))
        row(f"original-id recall @{b}", lambda r, i=i: fmt(r["recall"][i]["original_id_recall"], ".3f"))
        row(f"mean tokens @{b}", lambda r, i=i: fmt(r["recall"][i]["mean_tokens"], ",.0f"))
    table.add_section()
    row("in-process nearest p50 ms", lambda r: fmt(r["parts"]["nearest_p50_ms"], ",.1f"))
    row("in-process ranking p50 ms", lambda r: fmt(r["parts"]["rank_p50_ms"], ",.1f"))
    table.add_section()
    row("index size", lambda r: _mb(r["index_bytes"]))
    row("raw text", lambda r: _mb(r["raw_bytes"]))
    row("index / raw", lambda r: fmt(r["index_to_raw"], ".2f"))
    row("notes", lambda r: _mb(r["notes_bytes"]))
    row("peak RSS MB self / children",
        lambda r: f"{r['peak_rss_mb']['self']:,.0f} / {r['peak_rss_mb']['children']:,.0f}")
    out.print(table)
    for b, r in report["p50_ratio"].items():
        out.print(f"recall p50 @{b}, {sizes[-1]['turns']:,} turns over {sizes[0]['turns']:,}: {r['median']:.2f}x "
                  f"(median of {len(r['rounds'])} round(s): {', '.join(f'{x:.2f}' for x in r['rounds'])})")
    no_ev = sizes[0]["recall"][0]["no_evidence"] if sizes else 0
    out.print(f"questions without evidence (timed, left out of recall): {no_ev}; "
              f"last date in the largest archive: {sizes[-1]['last_date']}; {report['cpus']} CPUs")
    kept = [r["workspace"] for r in sizes if "workspace" in r]
    if kept:
        out.print("workspaces kept: " + ", ".join(kept))


class Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line and exit 1, like every other bad input
        console.print(f"[bold red]error:[/] {message} (see --help)", highlight=False, soft_wrap=True)
        sys.exit(1)


def main(argv: list[str] | None = None) -> int:
    p = Parser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter,
               epilog="Example:\n  .venv/bin/python bench/scale.py --data ../shared/data/locomo/locomo_dev.json "
                      "--sizes 1000,10000,100000 --budgets 1000,10000\n"
                      "  .venv/bin/python bench/scale.py --data ../shared/data/locomo/locomo_dev.json "
                      "--sizes 1000 --questions 20 --json")
    p.add_argument("--data", required=True, help="LoCoMo file in the locomo10.json format (the dev split)")
    p.add_argument("--sizes", default="1000,10000,100000",
                   help="archive sizes in turns, comma list (1e6 accepted); default 1000,10000,100000")
    p.add_argument("--budgets", default="1000,10000", help="context budgets in tokens, comma list")
    p.add_argument("--questions", type=int, default=0, help="ask only the first N questions (0 = all)")
    p.add_argument("--backend", default="local", help=f"sandbox: {', '.join(BACKENDS)} (default local)")
    p.add_argument("--workdir", default="",
                   help="keep the workspaces here as scale-<size>/ (default: a temporary folder, removed)")
    p.add_argument("--reuse", action="store_true",
                   help="recall on the workspaces an earlier run kept in --workdir, without ingesting again "
                        "(ingest figures: none)")
    p.add_argument("--rounds", type=int, default=1,
                   help="with --reuse: recall on every size this many times, the sizes alternating; each p50 is "
                        "the median of the rounds', and the largest size's over the smallest's is given per round")
    p.add_argument("--json", action="store_true", help="print the report as one JSON object")
    args = p.parse_args(argv)
    try:
        report = run(args)
    except (BenchError, ValueError, OSError) as exc:  # DatasetError is a ValueError
        console.print(f"[bold red]error:[/] {exc}", highlight=False, soft_wrap=True)
        return 1
    except KeyboardInterrupt:
        console.print("[bold red]interrupted[/]")
        return 130
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        render(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
