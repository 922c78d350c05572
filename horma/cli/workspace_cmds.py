"""`horma init`, `horma tree`, `horma show`: create and inspect a workspace."""

from __future__ import annotations

import json
from pathlib import Path

import typer
from rich.markup import escape
from rich.tree import Tree

from horma.cli.common import console, fail, user_errors
from horma.workspace import META_DIR, Workspace


def register(app: typer.Typer) -> None:
    app.command("init")(init)
    app.command("tree")(tree)
    app.command("show")(show)


def init(workspace: Path = typer.Argument(..., help="Folder to create the workspace in.")) -> None:
    """Create an empty workspace: raw/, notes/, INDEX.md and .horma/.

    Example: [bold]horma init ./mem[/]
    """
    with user_errors():
        ws = Workspace.init(workspace)
    console.print(f"workspace ready at {escape(str(ws.root))}")


def _count(path: Path) -> tuple[int, int]:
    files = dirs = 0
    for p in path.rglob("*"):
        if p.is_dir():
            dirs += 1
        else:
            files += 1
    return files, dirs


def _add(node: Tree, path: Path, depth: int, max_depth: int) -> None:
    entries = sorted(p for p in path.iterdir() if p.name != META_DIR or depth > 0)
    for p in entries:
        if p.is_dir():
            files, _ = _count(p)
            child = node.add(f"[bold blue]{escape(p.name)}/[/] [dim]({files} files)[/]")
            if depth + 1 < max_depth:
                _add(child, p, depth + 1, max_depth)
        else:
            node.add(f"{escape(p.name)} [dim]{p.stat().st_size} B[/]")


def tree(
    workspace: Path = typer.Argument(..., help="Workspace folder."),
    depth: int = typer.Option(2, "--depth", "-d", min=1, help="How many folder levels to show."),
    json_out: bool = typer.Option(False, "--json", help="Print per-directory file counts as JSON."),
) -> None:
    """Show the workspace as a tree with per-directory file counts.

    Example: [bold]horma tree ./mem --depth 3[/]
    """
    with user_errors():
        ws = Workspace.open(workspace)
    if json_out:
        counts = {
            ws.rel(p): _count(p)[0]
            for p in sorted(ws.root.rglob("*"))
            if p.is_dir() and len(p.relative_to(ws.root).parts) <= depth and META_DIR not in p.parts
        }
        console.print_json(json.dumps(counts))
        return
    files, _ = _count(ws.root)
    root = Tree(f"[bold]{escape(str(ws.root))}[/] [dim]({files} files)[/]")
    _add(root, ws.root, 0, depth)
    console.print(root)


def show(
    workspace: Path = typer.Argument(..., help="Workspace folder."),
    path: str = typer.Argument(..., help="Note path inside the workspace, e.g. notes/people/caroline.md."),
    follow: bool = typer.Option(False, "--follow", "-f", help="Also print the raw lines the note's sources point to."),
) -> None:
    """Print a note; with --follow, also the raw lines it cites.

    Example: [bold]horma show ./mem notes/people/caroline.md --follow[/]
    """
    with user_errors():
        ws = Workspace.open(workspace)
        target = ws.resolve(path)
        if not target.is_file():
            fail(f"{path}: no such file in {workspace}")
        text = target.read_text(encoding="utf-8", errors="replace")
        if not follow:
            console.print(text, markup=False, highlight=False, end="")
            return
        note = ws.read_note(path)
        console.print(text, markup=False, highlight=False, end="")
        ids = [u for s in note.sources for u in s.get("units", [])] or ws.refs_in(note.body)
        lines = ws.raw_lines_for(ids)
        console.rule(f"raw sources ({len(lines)} of {len(set(ids))} units)")
        for r in lines:
            console.print(f"[dim]{escape(r.path)}:{r.lineno}[/] {escape(r.unit.line())}", highlight=False)
        missing = sorted(set(ids) - {r.unit.id for r in lines})
        if missing:
            fail(f"{path}: sources cite units not in the archive: {', '.join(missing[:10])}")
