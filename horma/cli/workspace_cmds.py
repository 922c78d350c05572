"""`horma init`, `horma tree`, `horma show`: create and inspect a workspace."""

from __future__ import annotations

import json
import os
from pathlib import Path

import typer
from rich.tree import Tree

from horma.cli.common import console, plain, plural, shown
from horma.errors import NotFound
from horma.filecheck import file_problem
from horma.workspace import META_DIR, Workspace, WorkspaceError


def register(app: typer.Typer) -> None:
    app.command("init")(init)
    app.command("tree")(tree)
    app.command("show")(show)


def init(workspace: Path = typer.Argument(..., help="Folder to create the workspace in.")) -> None:
    """Create an empty workspace: raw/, notes/, INDEX.md and .horma/.

    Example: [bold]horma init ./mem[/]
    """
    ws = Workspace.init(workspace)
    console.print(f"workspace ready at {shown(str(ws.root))}")


def _entries(path: Path) -> list[os.DirEntry]:
    """A folder's entries, sorted; an unreadable folder has none (the tree says so, it does not stop)."""
    try:
        with os.scandir(path) as it:
            return sorted(it, key=lambda e: e.name)
    except OSError:
        return []


def _is_dir(entry: os.DirEntry) -> bool:
    """A real folder: a link is never followed, so nothing outside the workspace is listed or counted."""
    try:
        return entry.is_dir(follow_symlinks=False)
    except OSError:
        return False


def _count(path: Path) -> int:
    """Files (links included, as entries) under ``path``, links not followed."""
    return sum(_count(Path(e.path)) if _is_dir(e) else 1 for e in _entries(path))


def _link(entry: os.DirEntry) -> str:
    """``name -> target`` for a link, marked when its target is missing or outside the workspace."""
    try:
        target = os.readlink(entry.path)
    except OSError:
        target = "?"
    note = "" if os.path.exists(entry.path) else " [yellow](dangling)[/]"
    return f"{shown(entry.name)} [dim]-> {shown(target)}[/]{note}"


def _add(node: Tree, path: Path, depth: int, max_depth: int) -> None:
    for e in _entries(path):
        if e.name == META_DIR and depth == 0:
            continue
        if e.is_symlink():
            node.add(_link(e))
        elif _is_dir(e):
            child = node.add(f"[bold blue]{shown(e.name)}/[/] [dim]({plural(_count(Path(e.path)), 'file')})[/]")
            if depth + 1 < max_depth:
                _add(child, Path(e.path), depth + 1, max_depth)
        else:
            try:
                size = f"{e.stat(follow_symlinks=False).st_size} B"
            except OSError:
                size = "unreadable"
            node.add(f"{shown(e.name)} [dim]{size}[/]")


def _dir_counts(ws: Workspace, depth: int) -> dict[str, int]:
    """Per-folder file counts for ``--json``: real folders only, ``.horma/`` left out, links not followed."""
    counts: dict[str, int] = {}

    def walk(path: Path, level: int) -> None:
        for e in _entries(path):
            if _is_dir(e) and not (level == 0 and e.name == META_DIR):
                counts[Path(e.path).relative_to(ws.root).as_posix()] = _count(Path(e.path))
                if level + 1 < depth:
                    walk(Path(e.path), level + 1)

    walk(ws.root, 0)
    return dict(sorted(counts.items()))


def tree(
    workspace: Path = typer.Argument(..., help="Workspace folder."),
    depth: int = typer.Option(2, "--depth", "-d", min=1, help="How many folder levels to show."),
    json_out: bool = typer.Option(False, "--json", help="Print per-directory file counts as JSON."),
) -> None:
    """Show the workspace as a tree with per-directory file counts.

    Example: [bold]horma tree ./mem --depth 3[/]
    """
    ws = Workspace.open(workspace)
    if json_out:
        console.print_json(json.dumps(_dir_counts(ws, depth)))
        return
    files = _count(ws.root)
    root = Tree(f"[bold]{shown(str(ws.root))}[/] [dim]({plural(files, 'file')})[/]")
    _add(root, ws.root, 0, depth)
    console.print(root, soft_wrap=False)  # a tree lays out its own lines


FOLLOW_LINES = 200  # raw lines --follow prints; a hub over years of pages says how many more


def cited_units(ws: Workspace, rel: str) -> tuple[list[str], int]:
    """The unit ids a note cites, and how many linked notes were read to find them.

    A hub (``people/ana.md`` with one page per month, ``INDEX.md``-like lists)
    cites nothing itself; its units are those of the notes it links to, one
    level down, so --follow shows what the hub stands for.
    """
    note = ws.read_note(rel)
    ids = [u for s in note.sources for u in s.get("units", [])] or ws.refs_in(note.body)
    if ids:
        return ids, 0
    linked = [link for link in dict.fromkeys(note.links) if link != rel and ws.resolve(link).is_file()]
    for link in linked:
        child = ws.read_note(link)
        ids += [u for s in child.sources for u in s.get("units", [])] or ws.refs_in(child.body)
    return list(dict.fromkeys(ids)), len(linked)


def show(
    workspace: Path = typer.Argument(..., help="Workspace folder."),
    path: str = typer.Argument(..., help="Note path inside the workspace, e.g. notes/people/caroline.md."),
    follow: bool = typer.Option(False, "--follow", "-f", help="Also print the raw lines the note's sources point to "
                                                             "(for a hub note, those of the notes it links to)."),
) -> None:
    """Print a note; with --follow, also the raw lines it cites.

    Example: [bold]horma show ./mem notes/people/caroline.md --follow[/]
    """
    ws = Workspace.open(workspace)
    target = ws.resolve(path)
    if problem := file_problem(target):
        raise NotFound(f"{path}: {problem} in {workspace}")
    text = target.read_text(encoding="utf-8", errors="replace")
    if not follow:
        console.print(plain(text), markup=False, highlight=False, end="")
        return
    console.print(plain(text), markup=False, highlight=False, end="")
    ids, via = cited_units(ws, ws.rel(target))
    lines = ws.raw_lines_for(ids)
    hub = f" through {plural(via, 'linked note')}" if via else ""
    console.rule(f"raw sources ({len(lines)} of {plural(len(set(ids)), 'unit')}{hub})")
    for r in lines[:FOLLOW_LINES]:
        console.print(f"[dim]{shown(r.path)}:{r.lineno}[/] {shown(r.unit.line())}", highlight=False)
    if len(lines) > FOLLOW_LINES:
        console.print(f"[dim]… and {plural(len(lines) - FOLLOW_LINES, 'more line')}[/]", highlight=False)
    missing = sorted(set(ids) - {r.unit.id for r in lines})
    if missing:
        raise WorkspaceError(f"{path}: sources cite units not in the archive: {', '.join(missing[:10])}")
