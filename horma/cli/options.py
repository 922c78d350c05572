"""What the commands that fill a memory share: their options and the progress bar.

Kept apart from the commands themselves so each command module (ingest,
import, add, reorganize) takes them from one place.
"""

from __future__ import annotations

from typing import Any

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from horma.cli.common import err_console
from horma.cli.interrupt import checkpoint

# a flag left out is None: the setting keeps its value from the config file or the environment
MANAGER_OPT = typer.Option(None, "--manager", "-m", help="Note-writing policy: heuristic (no LLM) or llm "
                                                         "(default: policies.manager, heuristic).")
RETRIEVER_OPT = typer.Option(None, "--retriever", "-r", help="Recall policy: heuristic (no LLM) or llm "
                                                             "(default: policies.retriever, heuristic).")
BUDGET_OPT = typer.Option(None, "--budget", help="Context budget in tokens (default: recall.budget, 1000).")
DOMAIN_OPT = typer.Option(None, "--domain", help="Skill domain for the manager's policy (default: policies.domain).")
LLM_OPT = typer.Option(None, "--llm", help="Model spec for LLM policies, e.g. openai:gpt-4o-mini "
                                           "(default: the config's).")
BACKEND_OPT = typer.Option(None, "--backend", "-b", help="Sandbox: auto, docker, bwrap or local "
                                                         "(default: config, auto).")
CONFIG_OPT = typer.Option(None, "--config", "-c", help="Config file (default: $HORMA_CONFIG or "
                                                       "~/.config/horma/config.yaml).")
UNSAFE_OPT = typer.Option(False, "--unsafe-local", help="Let an LLM agent run in the local sandbox (no isolation).")
JSON_OPT = typer.Option(False, "--json", help="Print one JSON object instead of text.")


class _Progress(Progress):
    """Each update is where a Ctrl-C that CPython swallowed stops the command (:mod:`horma.cli.interrupt`)."""

    def update(self, *args: Any, **kwargs: Any) -> None:
        checkpoint()
        super().update(*args, **kwargs)

    def advance(self, *args: Any, **kwargs: Any) -> None:
        checkpoint()
        super().advance(*args, **kwargs)


def progress_bar() -> Progress:
    """A bar on a terminal; nothing when stderr is a file or a pipe (the totals line says what was done,
    and a failed run leaves its one error line alone)."""
    return _Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                    TextColumn("{task.fields[rate]}"), TimeElapsedColumn(), console=err_console,
                    disable=not err_console.is_terminal)
