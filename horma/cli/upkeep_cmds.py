"""`horma add` (one note to memory, now) and `horma reorganize` (notes rebuilt from raw).

Both write through :class:`horma.Memory`'s manager on the host, under the
workspace's writer lock, like every ingest.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from pathlib import Path

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from horma.cli.common import console, err_console, plural, shown
from horma.cli.options import BACKEND_OPT, CONFIG_OPT, JSON_OPT, LLM_OPT, MANAGER_OPT, UNSAFE_OPT
from horma.cli.run_setup import check_policy, setup
from horma.memory import Memory
from horma.workspace import Unit, Workspace


def register(app: typer.Typer) -> None:
    app.command("add")(add)
    app.command("reorganize")(reorganize)


def unit_id(time: str, actor: str, text: str) -> str:
    """``add:<time>:<hash>``: adding the same words by the same actor at the same time twice keeps one."""
    digest = hashlib.sha1(f"{actor}\n{text}".encode()).hexdigest()[:8]
    return f"add:{time.replace(' ', 'T')}:{digest}"


def add(
    workspace: Path = typer.Argument(..., help="The workspace folder (created if missing)."),
    text: str = typer.Argument(..., help="What to remember, e.g. \"Ana's flight lands at 9:15am on Friday\"."),
    actor: str = typer.Option("me", "--actor", "-a", help="Who said or wrote it."),
    time: str | None = typer.Option(None, "--time", "-t", help="When, e.g. 2024-03-02 or 2024-03-02 18:05 "
                                                               "(default: now, this machine's clock)."),
    session: str = typer.Option("notes", "--session", "-s",
                                help="The raw segment's name (raw/<time>__<session>); an add within 30 minutes of "
                                     "the session's last goes on in its segment: one conversation."),
    manager: str | None = MANAGER_OPT,
    llm: str | None = LLM_OPT,
    backend: str | None = BACKEND_OPT,
    unsafe_local: bool = UNSAFE_OPT,
    config: Path | None = CONFIG_OPT,
    json_out: bool = JSON_OPT,
) -> None:
    """Remember one thing now: one unit, archived and organized into the notes.

    Example: [bold]horma add ./mem "Priya's cat is called Miso" --actor Priya[/]
    """
    from horma.units import check_unit, normalize_time

    when = normalize_time(time, "--time") if time is not None else \
        dt.datetime.now().replace(microsecond=0).isoformat(sep=" ")
    unit = check_unit(Unit(unit_id(when, actor, text), when, actor, text))
    run = setup(config, backend, unsafe_local, {"policies.manager": manager})
    model = run.llm("manager", llm) if check_policy("manager", run) else None
    with Memory(workspace, llm=model, settings=run.settings) as mem:
        res = mem.record([unit], slug=session, time=unit.time, source="horma add")
    if json_out:
        console.print_json(json.dumps({"workspace": str(workspace), "unit": unit.id, "time": unit.time,
                                       "archived": res.archived, "segment": res.segment,
                                       "cost": res.cost.as_dict()}, ensure_ascii=False))
    elif res.archived:
        console.print(f"added {shown(unit.id)} to {shown(res.segment)} in {shown(str(workspace))}", highlight=False)
    else:
        console.print(f"already there: {shown(unit.id)} (the same words by {shown(actor)} at {unit.time})",
                      highlight=False)


def reorganize(
    workspace: Path = typer.Argument(..., help="The workspace folder."),
    manager: str | None = MANAGER_OPT,
    llm: str | None = LLM_OPT,
    backend: str | None = BACKEND_OPT,
    unsafe_local: bool = UNSAFE_OPT,
    config: Path | None = CONFIG_OPT,
    json_out: bool = JSON_OPT,
) -> None:
    """Rebuild the notes from raw/: after a revert, a manager change, or notes that drifted.

    The notes as they are go into the history first (horma revert brings them back); the pages the
    manager regenerates are rebuilt from every raw segment as one revision; notes someone wrote stay.

    Example: [bold]horma reorganize ./mem[/]   or with a model: [bold]horma reorganize ./mem -m llm --llm SPEC[/]
    """
    from horma.reorganize import reorganize as rebuild

    ws = Workspace.open(workspace)
    run = setup(config, backend, unsafe_local, {"policies.manager": manager})
    model = run.llm("manager", llm) if check_policy("manager", run) else None
    with Memory(ws, llm=model, settings=run.settings) as mem, \
            Progress(TextColumn("reorganizing"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                     console=err_console, disable=not err_console.is_terminal) as bar:
        task = bar.add_task("", total=None)
        done = rebuild(mem.manager, lambda n, total: bar.update(task, completed=n, total=total))
    if json_out:
        console.print_json(json.dumps({"workspace": str(workspace), **done.as_dict()}))
        return
    console.print(f"reorganized {plural(done.segments, 'segment')}: {plural(done.notes_removed, 'note')} rebuilt as "
                  f"{plural(done.notes_now, 'note')} (revision {done.revision or '-'}; the notes before are in "
                  f"`horma log`)", highlight=False)
