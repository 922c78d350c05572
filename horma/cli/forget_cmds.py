"""`horma forget`: delete units for good, after showing which and asking.

The deletion itself is :mod:`horma.forget`; this module picks the units
(``--unit``, ``--match`` and the narrowing options), lists what would go,
asks before anything changes (``--yes`` for scripts), shows a bar while the
notes history is rewritten, and ends with one summary line of counts.
"""

from __future__ import annotations

import json
from pathlib import Path

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from horma.cli.common import console, err_console, plain, plural
from horma.errors import BadArgument, HormaError

SHOWN_UNITS = 20  # a dry run or a confirmation lists this many units, then says how many more


def register(app: typer.Typer) -> None:
    app.command("forget")(forget)


def _list_units(ws, ids: list[str]) -> None:
    lines = ws.raw_lines_for(ids[:SHOWN_UNITS])
    for line in lines:
        text = line.unit.line()
        console.print(plain(text if len(text) <= 140 else text[:139] + "…", newlines=False), markup=False,
                      highlight=False)
    if len(ids) > SHOWN_UNITS:
        console.print(f"… and {plural(len(ids) - SHOWN_UNITS, 'more unit')}", highlight=False)


def _confirmed(question: str) -> bool:
    try:
        return typer.confirm(question, default=False, err=True)
    except typer.Abort:  # end of input (a pipe, /dev/null) or Ctrl-C: no answer is no
        return False


def _counts(report) -> str:
    """What a forget touches, as counts: the lists of paths are in --json."""
    parts = [plural(len(report.raw_files) + len(report.raw_deleted), "raw file"),
             plural(len(report.notes_changed) + len(report.notes_deleted), "note"),
             plural(report.note_lines, "note line"),
             plural(len(report.meta_changed) + len(report.meta_deleted), ".horma log"),
             plural(report.revisions, "history revision")]
    return ", ".join(parts)


def forget(
    workspace: Path = typer.Argument(..., help="The workspace folder."),
    unit: list[str] = typer.Option([], "--unit", "-u", help="A unit id to forget (repeat for several)."),
    match: list[str] = typer.Option([], "--match", "-m", help="Forget units whose text holds this, any case "
                                                              "(repeat for several)."),
    actor: list[str] = typer.Option([], "--actor", help="Only units of this actor (repeat for several)."),
    before: str = typer.Option(None, "--before", help="Only units timed before this (e.g. 2024-03-01)."),
    after: str = typer.Option(None, "--after", help="Only units timed at or after this (e.g. 2024-03-01 18:00)."),
    segment: list[str] = typer.Option([], "--segment", help="Only units of this raw segment (folder name or "
                                                            "raw/ path; repeat for several)."),
    dry_run: bool = typer.Option(False, "--dry-run", help="List what would be removed; change nothing."),
    yes: bool = typer.Option(False, "--yes", "-y", help="Do not ask before deleting (for scripts)."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object for scripts (needs --yes or "
                                                       "--dry-run)."),
) -> None:
    """Delete units for good: from raw/, the notes, the search index, the notes history and every log.

    Lists the units first and asks (--yes skips the question, --dry-run stops there). Options narrow
    together (--match Lisbon --actor Ana forgets Ana's units that mention Lisbon); repeat one to name
    several. Removed: the raw lines (left blank, so other lines keep their numbers), every note line
    that names or cites them or carries a word only they had, notes left with no source, the index
    entries (rebuilt), every revision of the notes history (rewritten; the old objects are deleted),
    and the trajectories and logs under .horma/ that mention them. Host-side only: no agent can run it.

    Example: [bold]horma forget ./mem --match "door code" --dry-run[/]
    """
    from horma.forget import Selection
    from horma.forget import forget as run_forget
    from horma.workspace import Workspace

    ws = Workspace.open(workspace)
    selection = Selection.of(units=unit, actors=actor, before=before, after=after, segments=segment,
                             texts=match)
    if as_json and not (yes or dry_run):
        raise BadArgument("--json cannot ask: pass --yes to delete, or --dry-run to list")
    plan = run_forget(ws, selection, dry_run=True)
    if not as_json:
        _list_units(ws, plan.units)
        console.print(f"{'would forget' if dry_run else 'will forget'} {plural(len(plan.units), 'unit')} "
                      f"from {_counts(plan)}", highlight=False)
    if dry_run:
        report = plan
    else:
        if not yes and not _confirmed(f"Forget {plural(len(plan.units), 'unit')} for good?"):
            raise HormaError("nothing forgotten (not confirmed; --yes confirms without asking)")
        with Progress(TextColumn("rewriting the notes history"), BarColumn(), MofNCompleteColumn(),
                      TimeElapsedColumn(), console=err_console, disable=not err_console.is_terminal) as bar:
            task = bar.add_task("", total=plan.revisions)
            report = run_forget(ws, selection, progress=lambda done, total: bar.update(task, completed=done,
                                                                                        total=total))
    if as_json:
        typer.echo(json.dumps({"workspace": str(workspace), **report.as_dict()}))
    elif not dry_run:
        console.print(f"forgot {plural(len(report.units), 'unit')}: {_counts(report)} rewritten, search index "
                      f"rebuilt", highlight=False)
