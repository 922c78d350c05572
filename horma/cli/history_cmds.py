"""`horma log`, `horma diff`, `horma revert`: the notes history; `horma forget`: real deletion.

Host-side only: none of these runs inside a sandbox, and no sandbox helper
can reach the history (``.horma/`` is hidden from every agent command).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import typer

from horma.cli.common import console, plain, shown, user_errors


def register(app: typer.Typer) -> None:
    app.command("log")(log)
    app.command("diff")(diff)
    app.command("revert")(revert)
    app.command("forget")(forget)


def _history(workspace: Path):
    from horma.history import NotesHistory
    from horma.workspace import Workspace

    return NotesHistory(Workspace.open(workspace))


def log(
    workspace: Path = typer.Argument(..., help="The workspace folder."),
    limit: int = typer.Option(0, "--limit", "-n", min=0, help="Show at most this many revisions (0: all)."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object for scripts."),
) -> None:
    """The notes history, newest first: one revision per manager run (notes/ and INDEX.md).

    Each line: the revision (what `horma diff` and `horma revert` take), its
    time, files added/changed/deleted, and what the run did.

    Example: [bold]horma log ./ws/conv-26 -n 5[/]
    """
    with user_errors(), _history(workspace) as history:
        revs = history.log(limit or None)
    if as_json:
        typer.echo(json.dumps({"workspace": str(workspace), "revisions": [r.as_dict() for r in revs]}))
        return
    if not revs:
        console.print(f"{shown(str(workspace))}: no notes history yet (the next manager run starts it)",
                      highlight=False, soft_wrap=True)
        return
    for r in revs:
        console.print(f"[bold]{r.rev}[/] {r.time} +{r.added} ~{r.changed} -{r.deleted}  {shown(r.message)}",
                      highlight=False, soft_wrap=True)


def diff(
    workspace: Path = typer.Argument(..., help="The workspace folder."),
    rev_a: str = typer.Argument(..., metavar="REV", help="A revision as `horma log` prints it."),
    rev_b: str = typer.Argument(None, metavar="[REV]", help="A later revision (default: the notes as they are now)."),
) -> None:
    """What changed in notes/ and INDEX.md from REV to a second REV (or to now), as a unified diff.

    Example: [bold]horma diff ./ws/conv-26 3f2a9c1b07de[/]
    """
    with user_errors(), _history(workspace) as history:
        text = history.diff(rev_a, rev_b)
    typer.echo(plain(text) if sys.stdout.isatty() else text, nl=False)  # exact in a pipe (patch), safe on a terminal


def revert(
    workspace: Path = typer.Argument(..., help="The workspace folder."),
    rev: str = typer.Argument(..., metavar="REV", help="The revision to go back to, as `horma log` prints it."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object for scripts."),
) -> None:
    """Put notes/ and INDEX.md back as they were at REV (undo a manager that deleted or garbled notes).

    The revert is itself a new revision, so nothing is lost and it can be
    reverted too. raw/ is never touched (it is append-only). The search
    index's notes follow. A bad REV changes nothing.

    Example: [bold]horma revert ./ws/conv-26 3f2a9c1b07de[/]
    """
    with user_errors(), _history(workspace) as history, history.workspace.writer():
        target = history.resolve(rev)  # a bad REV fails before anything is written
        new = history.revert(rev)
    out = {"workspace": str(workspace), "reverted_to": target.decode()[:12], "revision": new}
    if as_json:
        typer.echo(json.dumps(out))
    elif new is None:
        console.print(f"notes already as at {out['reverted_to']}: nothing to do", highlight=False)
    else:
        console.print(f"notes/ and INDEX.md are back as at {out['reverted_to']} (new revision {new})",
                      highlight=False)


def forget(
    workspace: Path = typer.Argument(..., help="The workspace folder."),
    unit: list[str] = typer.Option([], "--unit", "-u", help="A unit id to forget (repeat for several)."),
    actor: list[str] = typer.Option([], "--actor", help="Forget units of this actor (repeat for several)."),
    before: str = typer.Option(None, "--before", help="Only units timed before this (e.g. 2024-03-01)."),
    after: str = typer.Option(None, "--after", help="Only units timed at or after this (e.g. 2024-03-01 18:00)."),
    segment: list[str] = typer.Option([], "--segment", help="Only units of this raw segment (folder name or "
                                                            "raw/ path; repeat for several)."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Say what would be removed; change nothing."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object for scripts."),
) -> None:
    """Delete units for good: from raw/, the notes, the search index, the notes history and every log.

    Options narrow together (--actor Ana --before 2024-03 forgets Ana's units
    before March 2024); repeat one to name several. Removed: the raw lines
    (left blank, so other lines keep their numbers), every note line that
    names or cites them or carries a word only they had, notes left with no
    source, the index entries (rebuilt), every revision of the notes history
    (rewritten; the old objects are deleted), and the trajectories and logs
    under .horma/ that mention them. Host-side only: no agent can run it.

    Example: [bold]horma forget ./ws/conv-26 --unit D3:7 --unit D3:8 --dry-run[/]
    """
    from horma.forget import Selection, forget as run_forget
    from horma.workspace import Workspace

    with user_errors():
        ws = Workspace.open(workspace)
        selection = Selection.of(units=unit, actors=actor, before=before, after=after, segments=segment)
        report = run_forget(ws, selection, dry_run=dry_run)
    if as_json:
        typer.echo(json.dumps({"workspace": str(workspace), **report.as_dict()}))
        return
    verb = "would remove" if dry_run else "removed"
    console.print(f"{verb} {len(report.units)} unit(s): {shown(', '.join(report.units))}", highlight=False,
                  soft_wrap=True)
    for label, items in (("raw files rewritten", report.raw_files), ("raw files deleted", report.raw_deleted),
                         ("notes changed", report.notes_changed), ("notes deleted", report.notes_deleted),
                         (".horma files changed", report.meta_changed), (".horma files deleted", report.meta_deleted)):
        if items:
            console.print(f"  {label} ({len(items)}): {shown(', '.join(items))}", highlight=False, soft_wrap=True)
    console.print(f"  note lines removed: {report.note_lines}; history revisions "
                  f"{'to rewrite' if dry_run else 'rewritten'}: {report.revisions}; search index "
                  f"{'to rebuild' if dry_run else 'rebuilt'}", highlight=False)
