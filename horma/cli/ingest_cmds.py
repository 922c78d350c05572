"""`horma ingest locomo|jsonl`: fill a memory from a dataset or a units file.

Every input is validated before a workspace is created or touched, so bad
input ends with one error line and leaves the disk as it was.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path

import typer
from rich.progress import Progress

from horma.cli.common import console, plural, shown
from horma.cli.options import (
    BACKEND_OPT,
    CONFIG_OPT,
    DOMAIN_OPT,
    JSON_OPT,
    LLM_OPT,
    MANAGER_OPT,
    UNSAFE_OPT,
    progress_bar,
)
from horma.cli.run_setup import check_policy, setup
from horma.errors import NotFound
from horma.llm.accounting import Cost
from horma.memory import Memory
from horma.sources import Segment
from horma.workspace import WorkspaceError

ingest_app = typer.Typer(help="Archive a dataset into workspaces and organize notes.", no_args_is_help=True)


def register(app: typer.Typer) -> None:
    app.add_typer(ingest_app, name="ingest")


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
            # each segment a source gives is a whole session: two conversations titled alike stay two
            res = mem.record(seg.units, slug=seg.slug, time=seg.time, source=source, goes_on=False)
            totals.units += len(seg.units)
            totals.archived += res.archived
            totals.skipped, totals.conflicts = totals.skipped + res.skipped, totals.conflicts + len(res.conflicts)
            totals.segments += 1 if res.segment else 0
            totals.cost += res.cost
            done = progress.tasks[task].completed + len(seg.units)
            rate = done / max(time.perf_counter() - t0, 1e-9)
            progress.update(task, advance=len(seg.units), rate=f"{rate:,.0f} units/s")
    totals.seconds += time.perf_counter() - t0


def print_totals(totals: IngestTotals, where: str, json_out: bool) -> None:
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
    print_totals(totals, str(workspace), json_out)


@ingest_app.command("jsonl")
def ingest_jsonl(
    path: Path = typer.Argument(...,
                                help='Units as JSON lines: {"id", "time", "actor", "text"} (+ optional "session").'),
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
    print_totals(totals, str(workspace), json_out)
