"""`horma index`: bring a workspace's search index up to date, or rebuild it from the files."""

from __future__ import annotations

import json
import time
from pathlib import Path

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from horma.cli.common import console, err_console, plural, shown


def register(app: typer.Typer) -> None:
    app.command("index")(index)


def index(
    workspace: Path = typer.Argument(..., help="The workspace folder."),
    rebuild: bool = typer.Option(False, "--rebuild", help="Start from an empty index (after hand edits, a lost "
                                                          "or damaged index, or an index version change)."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object for scripts."),
) -> None:
    """Index raw/ and notes/ for `hsearch` and the retriever (SQLite FTS5 and unit vectors in .horma/index/).

    Without --rebuild only what changed is indexed: new raw segments, and note
    lines that differ from the indexed ones; notes deleted by hand are dropped;
    every unit without a vector of the current embedding model gets one (after
    a model change, all of them: vectors of two models are never mixed).
    The manager keeps the index current on its own; run this after editing
    notes by hand, or with --rebuild when the index was deleted or damaged.

    Example: [bold]horma index ./ws/conv-26 --rebuild[/]
    """
    from horma.core.index_schema import DB_NAME
    from horma.index import index_folder
    from horma.index import rebuild as sync
    from horma.workspace import Workspace

    ws = Workspace.open(workspace)
    t0 = time.perf_counter()
    with Progress(TextColumn("embedding units"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=err_console, transient=True, disable=as_json or not err_console.is_terminal) as bar:
        task = bar.add_task("embed", total=None)
        done = sync(ws, full=rebuild, progress=lambda n, total: bar.update(task, completed=n, total=total))
    db = index_folder(ws) / DB_NAME
    out = {**done, "rebuilt": rebuild, "index_bytes": db.stat().st_size if db.is_file() else 0,
           "seconds": round(time.perf_counter() - t0, 3)}
    if as_json:
        typer.echo(json.dumps(out))
        return
    console.print(f"{'rebuilt' if rebuild else 'updated'} {shown(str(db))}: {plural(out['segments'], 'raw segment')} "
                  f"indexed, {plural(out['notes'], 'note')}, {plural(out['removed'], 'deleted note')} dropped, "
                  f"{plural(out['embedded'], 'unit')} embedded, "
                  f"{out['index_bytes'] / 1e6:.1f} MB, {out['seconds']:.2f} s")
