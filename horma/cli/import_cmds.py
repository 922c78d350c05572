"""`horma import chatgpt|claude|markdown`: a user's own history into a workspace.

One command per importer of :mod:`horma.importers`, all with the same options:
the export is read and checked whole before the workspace is touched, then
recorded one segment per conversation (or file) under one notes revision.
"""

from __future__ import annotations

import json
from pathlib import Path

import typer

from horma.cli.common import console, plural, shown
from horma.cli.ingest_cmds import IngestTotals, ingest_segments
from horma.cli.options import (
    BACKEND_OPT,
    CONFIG_OPT,
    JSON_OPT,
    LLM_OPT,
    MANAGER_OPT,
    UNSAFE_OPT,
    progress_bar,
)
from horma.cli.run_setup import check_policy, setup
from horma.importers import Import, importer, importer_names
from horma.memory import Memory

import_app = typer.Typer(help="Import your own history: a ChatGPT or Claude data export, a folder of notes.",
                         no_args_is_help=True)

# what one unit and one segment are called in the summary line
_WORDS = {"markdown": ("paragraph", "file")}
_CHAT_WORDS = ("message", "conversation")


def register(app: typer.Typer) -> None:
    app.add_typer(import_app, name="import")


def summary(name: str, got: Import, totals: IngestTotals, where: str) -> dict:
    """The import in one object: what was archived, what was already there, what was left out and why."""
    return {"workspace": where, "importer": name, "segments_read": len(got.segments), "units_read": got.units,
            "left_out": dict(sorted(got.skipped.items())), **totals.as_dict()}


def summary_line(name: str, d: dict) -> str:
    unit, segment = _WORDS.get(name, _CHAT_WORDS)
    left = ", ".join(plural(n, why) for why, n in d["left_out"].items())
    return (f"imported {plural(d['archived'], 'new ' + unit)} from {plural(d['segments_read'], segment)} "
            f"({d['skipped']:,} already there) into {shown(d['workspace'])}"
            + (f"; left out: {shown(left)}" if left else ""))


def _command(name: str):
    imp = importer(name)

    def run(
        export: Path = typer.Argument(..., help=imp.what[0].upper() + imp.what[1:] + "."),
        workspace: Path = typer.Option(..., "--workspace", "-w", help="The workspace folder (created if missing)."),
        me: str = typer.Option("me", "--me", help="Your name as the speaker of your own messages (people/<me>.md)."),
        manager: str | None = MANAGER_OPT,
        llm: str | None = LLM_OPT,
        backend: str | None = BACKEND_OPT,
        unsafe_local: bool = UNSAFE_OPT,
        config: Path | None = CONFIG_OPT,
        json_out: bool = JSON_OPT,
    ) -> None:
        got = imp.load(export, me)
        run_with = setup(config, backend, unsafe_local, {"policies.manager": manager})
        model = run_with.llm("manager", llm) if check_policy("manager", run_with) else None
        totals = IngestTotals()
        with progress_bar() as progress, Memory(workspace, llm=model, settings=run_with.settings) as mem:
            ingest_segments(mem, got.segments, f"{name}:{export}", progress, export.name, totals)
        d = summary(name, got, totals, str(workspace))
        if json_out:
            console.print_json(json.dumps(d, ensure_ascii=False))
        else:
            console.print(summary_line(name, d), highlight=False)

    run.__doc__ = _DOCS[name]
    return run


_DOCS = {
    "chatgpt": """Import a ChatGPT data export (the zip, or its conversations.json).

    One segment per conversation, titled and dated; the branch you last saw of each (edited prompts and
    regenerated replies on other branches are left out); system prompts, tool calls and their output,
    hidden reasoning and attachments are counted and left out. Times are this machine's local time.
    Importing a newer export later archives only the new messages.

    Example: [bold]horma import chatgpt ~/Downloads/chatgpt-export.zip -w ./mem --me Ana[/]
    """,
    "claude": """Import a Claude data export (the zip, or its conversations.json).

    One segment per conversation, titled and dated; tool use and results, thinking blocks and attachments
    are counted and left out. Times are this machine's local time. Importing a newer export later archives
    only the new messages.

    Example: [bold]horma import claude ~/Downloads/data-2025-01-01.zip -w ./mem --me Ana[/]
    """,
    "markdown": """Import a folder of markdown notes or journal entries (or one file).

    One unit per paragraph, led by its heading; one segment per file, dated by its front matter (date:),
    a date in its name (2024-03-02.md), or its modification time. Importing again archives only new or
    changed paragraphs.

    Example: [bold]horma import markdown ~/notes/journal -w ./mem[/]
    """,
}

for _name in importer_names():
    import_app.command(_name)(_command(_name))
