"""`horma demo`: the offline tour, ingest a shipped conversation, show the tree, recall three queries."""

from __future__ import annotations

import time
from pathlib import Path

import typer

from horma.cli.common import console, demo_folder, shown
from horma.cli.ingest_cmds import IngestTotals, ingest_segments, print_totals
from horma.cli.options import BACKEND_OPT, progress_bar
from horma.cli.recall_cmds import print_context
from horma.cli.run_setup import setup
from horma.memory import Memory
from horma.resources import EXAMPLES

DEMO_CONVERSATION = EXAMPLES / "demo_conversation.jsonl"
DEMO_QUERIES = (
    "When did Priya adopt her cat, and what is its name?",
    "What does Tomás sell at the farmers market, and since when?",
    "Where is Jun travelling in June, and why?",
)


def register(app: typer.Typer) -> None:
    app.command("demo")(demo)


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
        print_totals(totals, str(target), False)
        console.rule("[bold]2. the workspace[/]")
        tree(target, depth=3, json_out=False)
        for n, query in enumerate(DEMO_QUERIES, 3):
            console.rule(f"[bold]{n}. recall[/] {shown(query)}")
            print_context(mem.recall(query, budget))
    console.print(f"done in {time.perf_counter() - t0:.1f} s. Explore it: [bold]horma tree {shown(str(target))}[/], "
                  f"[bold]horma recall {shown(str(target))} \"...\"[/], [bold]horma trace {shown(str(target))}[/]",
                  highlight=False)
