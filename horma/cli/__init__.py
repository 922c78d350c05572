"""The ``horma`` command: a thin typer app that parses, calls the library and renders with rich.

Each command group lives in its own module and registers itself here.
Errors the user can fix (bad input, a missing workspace, a refused request)
print one line on stderr and exit non-zero, never a traceback.
"""

from __future__ import annotations

import typer

from horma import __version__
from horma.cli import config_cmds, eval_cmds, index_cmds, memory_cmds, sandbox_cmds, skills_cmds, train_cmds, workspace_cmds

app = typer.Typer(
    name="horma",
    help="Hierarchical organize-then-retrieve memory for agents: a file tree they navigate with bash.",
    no_args_is_help=True,
    rich_markup_mode="rich",
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"horma {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True, help="Print the version."),
) -> None:
    """horma: give a long-horizon agent a working memory it can see and navigate."""


for _module in (workspace_cmds, index_cmds, sandbox_cmds, memory_cmds, eval_cmds, skills_cmds, config_cmds, train_cmds):
    _module.register(app)


def main() -> None:
    app()
