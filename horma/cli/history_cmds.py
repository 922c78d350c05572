"""`horma log`, `horma diff`, `horma revert`: the notes history (`horma forget` is in forget_cmds).

Host-side only: none of these runs inside a sandbox, and no sandbox helper
can reach the history (``.horma/`` is hidden from every agent command).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import typer

from horma.cli.common import console, plain, shown


def register(app: typer.Typer) -> None:
    app.command("log")(log)
    app.command("diff")(diff)
    app.command("revert")(revert)


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
    with _history(workspace) as history:
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
    with _history(workspace) as history:
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
    with _history(workspace) as history, history.workspace.writer():
        target = history.resolve(rev)  # a bad REV fails before anything is written
        new = history.revert(rev)
    out = {"workspace": str(workspace), "reverted_to": target.decode()[:12], "revision": new}
    if as_json:
        typer.echo(json.dumps(out))
    elif new is None:
        console.print(f"notes already as at {out['reverted_to']}: nothing to do", highlight=False)
    else:
        console.print(f"notes/ and INDEX.md are back as at {out['reverted_to']} (new revision {new}); raw/ is as it "
                      f"was: `horma reorganize {shown(str(workspace))}` rebuilds the notes from all of it",
                      highlight=False)
