"""The ``horma`` command: a thin typer app that parses, calls the library and renders with rich.

Each command group lives in its own module and registers itself here.
Errors the user can fix (bad input, a missing workspace, a refused request)
print one line on stderr and exit non-zero, never a traceback.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

import typer
from typer._click import exceptions as cli_errors  # typer >= 0.29 vendors click and does not re-export these

from horma import __version__
from horma.cli import (
    config_cmds,
    demo_cmds,
    eval_cmds,
    forget_cmds,
    history_cmds,
    import_cmds,
    index_cmds,
    ingest_cmds,
    mcp_cmds,
    model_cmds,
    recall_cmds,
    sandbox_cmds,
    skills_cmds,
    trace_cmds,
    train_cmds,
    upkeep_cmds,
    workspace_cmds,
)
from horma.cli.common import err_console, shown


def _flags_take_no_value() -> None:
    """Show on/off flags in --help without a type: typer 0.29's rich help prints ``<bool>`` beside
    every ``--json`` or ``--dry-run``, which reads as if the flag wanted a value."""
    from typer.core import TyperOption

    shown_type = TyperOption.display_type_rich
    TyperOption.display_type_rich = lambda self, ctx: None if self.is_flag else shown_type(self, ctx)


_flags_take_no_value()

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


for _module in (workspace_cmds, index_cmds, sandbox_cmds, ingest_cmds, recall_cmds, demo_cmds, trace_cmds, import_cmds,
                eval_cmds, skills_cmds, config_cmds, history_cmds, forget_cmds, mcp_cmds, model_cmds, train_cmds,
                upkeep_cmds):
    _module.register(app)


def run(args: Sequence[str] | None = None) -> int:
    """Run the CLI on ``args`` (default: the command line) and return the exit code.

    A usage error (unknown option, missing argument, bad value) is one line on stderr and exit 2, like
    every other bad input, instead of click's multi-line panel. Tests call this, so they see exactly
    what a user sees.
    """
    try:
        code = app(args=args, prog_name="horma", standalone_mode=False)
    except cli_errors.NoArgsIsHelpError as exc:
        exc.show()  # `horma` or a group alone: the help is the answer
        return exc.exit_code
    except cli_errors.UsageError as exc:
        where = exc.ctx.command_path if exc.ctx else "horma"
        message = exc.format_message().replace("\n", " ")
        err_console.print(f"[bold red]error:[/] {shown(message)} (see {shown(where)} --help)",
                          highlight=False, soft_wrap=True)
        return exc.exit_code
    except cli_errors.ClickException as exc:
        err_console.print(f"[bold red]error:[/] {shown(exc.format_message())}", highlight=False, soft_wrap=True)
        return exc.exit_code
    except typer.Abort:
        err_console.print("[bold red]error:[/] interrupted", highlight=False)
        return 130
    return code if isinstance(code, int) else 0


def main() -> None:
    sys.exit(run())
