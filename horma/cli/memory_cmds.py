"""`horma ingest`, `recall`, `ask`, `demo`, `trace`: fill a memory, read it, replay what agents did.

Every input is validated before a workspace is created or touched, so bad
input ends with one error line and leaves the disk as it was.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import typer
from rich.progress import Progress
from rich.table import Table

from horma.agents.policies import policy_class
from horma.agents.retriever import Recall, check_query
from horma import trajectory_store
from horma.agents.trajectory import read_trajectory
from horma.cli.common import console, demo_folder, err_console, plain, plural, shown
from horma.cli.options import (
    BACKEND_OPT,
    BUDGET_OPT,
    CONFIG_OPT,
    DOMAIN_OPT,
    JSON_OPT,
    LLM_OPT,
    MANAGER_OPT,
    RETRIEVER_OPT,
    UNSAFE_OPT,
    progress_bar,
)
from horma.config import Settings, load_config
from horma.errors import NotFound
from horma.llm.accounting import Cost
from horma.memory import Memory
from horma.resources import EXAMPLES
from horma.sandbox import resolve_backend
from horma.sources import Segment
from horma.workspace import Workspace, WorkspaceError

DEMO_CONVERSATION = EXAMPLES / "demo_conversation.jsonl"
DEMO_QUERIES = (
    "When did Priya adopt her cat, and what is its name?",
    "What does Tomás sell at the farmers market, and since when?",
    "Where is Jun travelling in June, and why?",
)
NO_LLM = "no LLM available ({reason}); pass --llm SPEC or set the provider's key for an answer; showing the context only"

ingest_app = typer.Typer(help="Archive a dataset into workspaces and organize notes.", no_args_is_help=True)


def register(app: typer.Typer) -> None:
    app.add_typer(ingest_app, name="ingest")
    app.command("recall")(recall)
    app.command("ask")(ask)
    app.command("demo")(demo)
    app.command("trace")(trace)


# -- shared checks -------------------------------------------------------------
@dataclass
class Setup:
    """What a command runs with: the settings (defaults < file < env < flags) resolved once, the backend
    resolved (never ``auto``), so every Memory the command opens uses the same sandbox."""

    settings: Settings

    @property
    def backend(self) -> str:
        return self.settings.sandbox.backend

    @property
    def unsafe_local(self) -> bool:
        return self.settings.sandbox.unsafe_local

    def llm(self, role: str, spec: str | None) -> Any:
        """The model for a role: ``--llm`` or the settings' ``models.<role>``; LLMError when unusable."""
        return self.settings.llm_for(role, spec)


def setup(config: Path | None, backend: str | None, unsafe_local: bool, flags: dict[str, Any] | None = None) -> Setup:
    """The settings of a command: its ``--config`` file, then the environment, then its flags (dotted keys)."""
    cfg = load_config(config, {"sandbox.backend": backend, "sandbox.unsafe_local": unsafe_local or None,
                               **(flags or {})})
    trajectory_store.configure_from(cfg)
    resolved = resolve_backend(cfg.sandbox.backend)
    return Setup(cfg.override({"sandbox.backend": resolved}, source=cfg.sources["sandbox.backend"]))


def check_policy(role: str, run: Setup) -> bool:
    """Refuse an unknown policy, or an LLM policy in an unisolated sandbox, before anything runs.

    Returns whether an LLM drives the role's policy (then the command builds a model for it).
    """
    llm_driven = policy_class(role, run.settings.get(f"policies.{role}"), label=role).llm_driven
    if llm_driven and run.backend == "local" and not run.unsafe_local:
        raise WorkspaceError(
            f"refusing to run an LLM {role} in the local sandbox (no isolation): "
            "use --backend docker or bwrap, or pass --unsafe-local"
        )
    return llm_driven


@dataclass
class IngestTotals:
    units: int = 0
    archived: int = 0
    skipped: int = 0
    conflicts: int = 0  # of the skipped: ids archived with other content (a changed source), not archived
    segments: int = 0
    seconds: float = 0.0
    cost: Cost = field(default_factory=Cost)  # summed over every record

    def as_dict(self) -> dict:
        rate = self.units / self.seconds if self.seconds else 0.0
        return {"units": self.units, "archived": self.archived, "skipped": self.skipped, "conflicts": self.conflicts,
                "segments": self.segments, "seconds": round(self.seconds, 3), "units_per_s": round(rate, 1),
                "cost": self.cost.as_dict()}


def ingest_segments(mem: Memory, segments: list[Segment], source: str, progress: Progress, label: str,
                    totals: IngestTotals) -> None:
    """Record each segment in order, advancing one bar by units."""
    task = progress.add_task(label, total=sum(len(s.units) for s in segments), rate="")
    t0 = time.perf_counter()
    with mem.manager.one_run():  # one commit in the notes history for the whole source
        for seg in segments:
            res = mem.record(seg.units, slug=seg.slug, time=seg.time, source=source)
            totals.units += len(seg.units)
            totals.archived += res.archived
            totals.skipped, totals.conflicts = totals.skipped + res.skipped, totals.conflicts + len(res.conflicts)
            totals.segments += 1 if res.segment else 0
            totals.cost += res.cost
            done = progress.tasks[task].completed + len(seg.units)
            rate = done / max(time.perf_counter() - t0, 1e-9)
            progress.update(task, advance=len(seg.units), rate=f"{rate:,.0f} units/s")
    totals.seconds += time.perf_counter() - t0


def _print_totals(totals: IngestTotals, where: str, json_out: bool) -> None:
    if json_out:
        console.print_json(json.dumps({"workspace": where, **totals.as_dict()}))
        return
    d = totals.as_dict()
    clash = f", {d['conflicts']} of them with other text: not archived" if d["conflicts"] else ""
    console.print(
        f"archived {plural(d['archived'], 'new unit')} in {plural(d['segments'], 'segment')} "
        f"({d['skipped']} already there{clash}) into {shown(where)} at {d['units_per_s']:,.0f} units/s",
        highlight=False,
    )


# -- ingest --------------------------------------------------------------------
@ingest_app.command("locomo")
def ingest_locomo(
    path: Path = typer.Argument(..., help="A LoCoMo file (locomo10.json format)."),
    workspace: Path = typer.Option(..., "--workspace", "-w", help="Folder holding one workspace per conversation."),
    sample: list[str] = typer.Option([], "--sample", "-s", help="Only these sample ids (repeatable)."),
    manager: str | None = MANAGER_OPT,
    llm: str | None = LLM_OPT,
    backend: str | None = BACKEND_OPT,
    domain: str = typer.Option("locomo", "--domain", help="Skill domain for the manager's policy (policies.domain)."),
    unsafe_local: bool = UNSAFE_OPT,
    config: Path | None = CONFIG_OPT,
    json_out: bool = JSON_OPT,
) -> None:
    """Build one workspace per LoCoMo conversation under WORKSPACE/<sample_id>/.

    Session dates come from session_<n>_date_time; image turns keep their
    caption. Re-running adds nothing new; a killed run re-run completes.

    Example: [bold]horma ingest locomo data/locomo10.json --workspace ./ws --sample conv-26[/]
    """
    from horma.bench.locomo import load_locomo

    convs = load_locomo(path)
    if sample:
        known = {c.sample_id for c in convs}
        unknown = [s for s in sample if s not in known]
        if unknown:
            raise NotFound(f"{path}: no sample {unknown[0]!r} (samples: {', '.join(sorted(known))})")
        convs = [c for c in convs if c.sample_id in set(sample)]
    if workspace.exists() and not workspace.is_dir():
        raise WorkspaceError(f"{workspace}: exists and is not a directory")
    run = setup(config, backend, unsafe_local, {"policies.manager": manager, "policies.domain": domain})
    model = run.llm("manager", llm) if check_policy("manager", run) else None
    for conv in convs:  # refuse a non-workspace folder in the way before writing any
        target = workspace / conv.sample_id
        if target.exists() and not (target / ".horma").is_dir() and (not target.is_dir() or any(target.iterdir())):
            raise WorkspaceError(f"{target}: exists and is not a horma workspace")
    totals = IngestTotals()
    with progress_bar() as progress:
        for conv in convs:
            segments = [Segment(s.slug(conv.sample_id), s.time, s.units) for s in conv.sessions]
            with Memory(workspace / conv.sample_id, llm=model, settings=run.settings) as mem:
                ingest_segments(mem, segments, f"{path}#{conv.sample_id}", progress, conv.sample_id, totals)
    _print_totals(totals, str(workspace), json_out)


@ingest_app.command("jsonl")
def ingest_jsonl(
    path: Path = typer.Argument(..., help='Units as JSON lines: {"id", "time", "actor", "text"} (+ optional "session").'),
    workspace: Path = typer.Option(..., "--workspace", "-w", help="The workspace folder (created if missing)."),
    manager: str | None = MANAGER_OPT,
    llm: str | None = LLM_OPT,
    backend: str | None = BACKEND_OPT,
    domain: str | None = DOMAIN_OPT,
    unsafe_local: bool = UNSAFE_OPT,
    config: Path | None = CONFIG_OPT,
    json_out: bool = JSON_OPT,
) -> None:
    """Archive generic units into one workspace, one segment per session (or per day).

    Example: [bold]horma ingest jsonl examples/demo_conversation.jsonl --workspace ./mem[/]
    """
    from horma.sources.jsonl import load_jsonl

    segments = load_jsonl(path)
    run = setup(config, backend, unsafe_local, {"policies.manager": manager, "policies.domain": domain})
    model = run.llm("manager", llm) if check_policy("manager", run) else None
    totals = IngestTotals()
    with progress_bar() as progress, Memory(workspace, llm=model, settings=run.settings) as mem:
        ingest_segments(mem, segments, str(path), progress, path.name, totals)
    _print_totals(totals, str(workspace), json_out)


# -- recall / ask ----------------------------------------------------------------
def print_context(ctx: Recall) -> None:
    """Each selected piece under a rule naming its file, lines and source units."""
    if not ctx.items:
        console.print("[dim](nothing selected)[/]")
    for item in ctx.items:
        refs = ", ".join(item.refs[:12]) + (" ..." if len(item.refs) > 12 else "")
        console.rule(f"[bold]{shown(item.path)}:{item.start}-{item.end}[/] [dim]{item.tokens} tokens"
                     f"{' · ' + shown(refs) if refs else ''}[/]", align="left")
        console.print(plain(item.text), markup=False, highlight=False)
    console.print(
        f"[dim]{ctx.tokens}/{ctx.budget} tokens · {plural(len(ctx.refs), 'source unit')} · {plural(ctx.steps, 'step')}"
        f" · {plural(ctx.cost.llm_calls, 'LLM call')} · {plural(ctx.cost.sandbox_commands, 'sandbox command')} · "
        f"{ctx.cost.wall_ms:.0f} ms{_dollars(ctx.cost)} · stop {shown(ctx.stop)}{_faults(ctx.faults)} · trace "
        f"{shown(ctx.trace or '-')}[/]", highlight=False,
    )


def _dollars(cost: Cost) -> str:
    """`` · $0.0012`` when a priced model ran, else nothing."""
    return f" · ${cost.cost_usd:.4f}" if cost.llm_calls and cost.cost_usd is not None else ""


def _faults(faults: dict[str, int]) -> str:
    bad = ", ".join(f"{n} {kind}" for kind, n in faults.items() if n)
    return f" ({shown(bad)})" if bad else ""


@contextmanager
def _reader(workspace: Path, query: str, llm: str | None, run: Setup) -> Iterator[Memory]:
    check_query(query, run.settings.recall.budget)
    ws = Workspace.open(workspace)
    model = run.llm("retriever", llm) if check_policy("retriever", run) else None
    with Memory(ws, llm=model, settings=run.settings) as mem:
        yield mem


def recall(
    workspace: Path = typer.Argument(..., help="Workspace folder."),
    query: str = typer.Argument(..., help="What to look for."),
    budget: int | None = BUDGET_OPT,
    asked: str | None = typer.Option(None, "--asked", help="When the question is asked, YYYY-MM-DD (default "
                                                           "today): '10 days ago', 'last Saturday' count from it."),
    retriever: str | None = RETRIEVER_OPT,
    llm: str | None = LLM_OPT,
    backend: str | None = BACKEND_OPT,
    unsafe_local: bool = UNSAFE_OPT,
    config: Path | None = CONFIG_OPT,
    json_out: bool = JSON_OPT,
) -> None:
    """Build the context for QUERY within the budget and print it with its sources.

    The question's words, their meaning (sentence embeddings) and the dates it
    names, absolute or relative to --asked, pick the turns.

    Example: [bold]horma recall ./mem "When did Priya adopt her cat?" --budget 500[/]
    """
    run = setup(config, backend, unsafe_local, {"recall.budget": budget, "policies.retriever": retriever})
    with _reader(workspace, query, llm, run) as mem:
        ctx = mem.recall(query, asked=asked)
    if json_out:
        d = ctx.as_dict()
        keep = ("query", "context", "tokens", "items", "steps", "trace", "stop", "faults", "cost")
        console.print_json(json.dumps({**{k: d[k] for k in keep}, "budget": ctx.budget}, ensure_ascii=False))
        return
    print_context(ctx)


def ask(
    workspace: Path = typer.Argument(..., help="Workspace folder."),
    question: str = typer.Argument(..., help="The question to answer from memory."),
    llm: str | None = typer.Option(None, "--llm", help="Model spec for the answer (default: the config's models.primary)."),
    budget: int | None = BUDGET_OPT,
    retriever: str | None = RETRIEVER_OPT,
    backend: str | None = BACKEND_OPT,
    unsafe_local: bool = UNSAFE_OPT,
    config: Path | None = CONFIG_OPT,
    json_out: bool = JSON_OPT,
) -> None:
    """Recall, then let the primary agent answer from the context only.

    Without an LLM it says so in one line and shows the context.

    Example: [bold]horma ask ./mem "Where is Jun going in June?" --llm anthropic:claude-sonnet-5-5[/]
    """
    from horma.agents.primary import answer
    from horma.llm import LLMError

    run = setup(config, backend, unsafe_local, {"recall.budget": budget, "policies.retriever": retriever})
    check_query(question, run.settings.recall.budget)
    primary, no_llm = None, ""
    try:
        primary = run.llm("primary", llm)
    except LLMError as exc:
        if llm:  # the user named a model: a problem with it is an error, not a fallback
            raise
        no_llm = NO_LLM.format(reason=exc)
    with _reader(workspace, question, llm, run) as mem:
        ctx = mem.recall(question)
        reply = answer(primary, question, ctx) if primary is not None else None
    if json_out:
        out = reply.as_dict() if reply else {"question": question, "answer": None, "error": no_llm,
                                             "context": ctx.as_dict()}
        console.print_json(json.dumps(out, ensure_ascii=False))
        return
    if reply is None:
        err_console.print(f"[yellow]{shown(no_llm)}[/]", highlight=False)
        print_context(ctx)
        return
    print_context(ctx)
    console.print(f"[bold]answer:[/] {shown(reply.text)}  [dim](the whole ask: {reply.cost.input_tokens} in / "
                  f"{reply.cost.output_tokens} out tokens, {reply.cost.llm_calls} LLM calls{_dollars(reply.cost)})[/]",
                  highlight=False)


# -- demo ------------------------------------------------------------------------
def demo(
    workspace: Path | None = typer.Option(None, "--workspace", "-w",
                                          help="Where to build the demo workspace (default: ~/.cache/horma/demo, "
                                               "replaced by each run)."),
    backend: str | None = BACKEND_OPT,
    budget: int = typer.Option(300, "--budget", help="Context budget per query, in tokens."),
) -> None:
    """Offline tour, no key needed: ingest a small shipped conversation, show the tree, answer three queries.

    Example: [bold]horma demo[/]
    """
    from horma.cli.workspace_cmds import tree
    from horma.sources.jsonl import load_jsonl

    segments = load_jsonl(DEMO_CONVERSATION)
    run = setup(None, backend, False, {"policies.manager": "heuristic", "policies.retriever": "heuristic"})
    target = workspace or demo_folder()
    t0 = time.perf_counter()
    console.rule(f"[bold]1. ingest[/] {DEMO_CONVERSATION.name} with the heuristic manager ({run.backend} sandbox)")
    totals = IngestTotals()
    with Memory(target, settings=run.settings) as mem:
        with progress_bar() as progress:
            ingest_segments(mem, segments, DEMO_CONVERSATION.name, progress, "demo", totals)
        _print_totals(totals, str(target), False)
        console.rule("[bold]2. the workspace[/]")
        tree(target, depth=3, json_out=False)
        for n, query in enumerate(DEMO_QUERIES, 3):
            console.rule(f"[bold]{n}. recall[/] {shown(query)}")
            print_context(mem.recall(query, budget))
    console.print(f"done in {time.perf_counter() - t0:.1f} s. Explore it: [bold]horma tree {shown(str(target))}[/], "
                  f"[bold]horma recall {shown(str(target))} \"...\"[/], [bold]horma trace {shown(str(target))}[/]",
                  highlight=False)


# -- trace -----------------------------------------------------------------------
def _runs(ws: Workspace, role: str | None) -> list[Path]:
    runs = sorted(ws.trajectories.glob("*.jsonl"))
    return [p for p in runs if role is None or f"__{role}__" in p.name]


def _pick(runs: list[Path], run: str) -> Path:
    if run.isdigit() and 1 <= int(run) <= len(runs):
        return runs[int(run) - 1]
    matches = [p for p in runs if p.name == run or p.name.startswith(run) or p.stem == run]
    if len(matches) != 1:
        what = "no run" if not matches else f"{len(matches)} runs"
        raise WorkspaceError(f"{what} matching {run!r}; list them with `horma trace WS --list`")
    return matches[0]


def trace(
    workspace: Path = typer.Argument(..., help="Workspace folder."),
    run: str | None = typer.Argument(None, help="Run file name (or its prefix, or its number in --list); default the latest."),
    list_runs: bool = typer.Option(False, "--list", "-l", help="List the runs instead of replaying one."),
    role: str | None = typer.Option(None, "--role", help="Only runs of this role (manager, retriever)."),
    full: bool = typer.Option(False, "--full", help="Show whole observations, not the first lines."),
    json_out: bool = JSON_OPT,
) -> None:
    """Replay a retriever or manager trajectory step by step.

    Example: [bold]horma trace ./mem --list[/]  then  [bold]horma trace ./mem 3[/]
    """
    ws = Workspace.open(workspace)
    runs = _runs(ws, role)
    if list_runs:
        _list(runs, json_out)
        return
    if not runs:
        raise NotFound(f"{workspace}: no trajectories yet (run `horma recall` or an ingest first)")
    path = _pick(runs, run) if run else runs[-1]
    records = read_trajectory(path)
    if json_out:
        console.print_json(json.dumps({"run": path.name, "records": records}, ensure_ascii=False))
        return
    _replay(path, records, full)


def _list(runs: list[Path], json_out: bool) -> None:
    rows = []
    for i, p in enumerate(runs, 1):
        recs = read_trajectory(p)
        start = recs[0] if recs and recs[0].get("type") == "start" else {}
        end = recs[-1] if recs and recs[-1].get("type") == "end" else {}
        rows.append({"n": i, "run": p.name, "role": start.get("role", "?"), "task": start.get("task", ""),
                     "steps": sum(1 for r in recs if r.get("type") == "step"),
                     "status": end.get("status", "cut off")})
    if json_out:
        console.print_json(json.dumps(rows, ensure_ascii=False))
        return
    table = Table("#", "run", "role", "task", "steps", "status")
    for r in rows:
        table.add_row(str(r["n"]), shown(r["run"]), shown(r["role"]), shown(str(r["task"])[:60]), str(r["steps"]),
                      shown(r["status"]))
    console.print(table)


def _replay(path: Path, records: list[dict], full: bool) -> None:
    start = records[0] if records and records[0].get("type") == "start" else {}
    meta = {k: v for k, v in start.items() if k not in {"type", "task", "role"}}
    console.rule(f"[bold]{shown(path.name)}[/]")
    console.print(f"[bold]{shown(start.get('role', '?'))}[/]: {shown(start.get('task', ''), newlines=True)}",
                  highlight=False)
    if meta:
        console.print(f"[dim]{shown(json.dumps(meta, ensure_ascii=False)[:300])}[/]", highlight=False)
    for rec in records:
        if rec.get("type") == "step":
            _print_step(rec, full)
        elif rec.get("type") == "end":
            rest = {k: v for k, v in rec.items() if k not in {"type", "status"}}
            console.rule(f"[bold]end: {shown(str(rec.get('status')))}[/] [dim]{shown(json.dumps(rest)[:200])}[/]")
    if not records or records[-1].get("type") != "end":
        console.rule("[yellow]cut off: the run ended without an end record[/]")


def _print_step(rec: dict, full: bool) -> None:
    args = rec.get("args") or {}
    action = rec.get("action", "?")
    command = args.get("command") if action == "bash" and "command" in args else json.dumps(args, ensure_ascii=False)
    extra = [f"exit {rec['exit_code']}"] if rec.get("exit_code") not in (None, 0) else []
    if rec.get("elapsed_ms") is not None:
        extra.append(f"{rec['elapsed_ms']:.1f} ms")
    if rec.get("input_tokens"):
        extra.append(f"{rec['input_tokens']} in / {rec.get('output_tokens', 0)} out tokens")
    console.print(f"\n[bold cyan]{shown(rec.get('step', '?'))}. {shown(action)}[/] {shown(command, newlines=True)} "
                  f"[dim]{' · '.join(extra)}[/]", highlight=False)
    if rec.get("message"):
        console.print(f"[italic]{shown(rec['message'], newlines=True)}[/]", highlight=False)
    obs = str(rec.get("observation", ""))
    lines = obs.splitlines()
    if not full and len(lines) > 12:
        obs = "\n".join(lines[:12]) + f"\n[... {len(lines) - 12} more lines; --full shows all]"
    if obs:
        console.print(plain(obs), markup=False, highlight=False, style="dim")
