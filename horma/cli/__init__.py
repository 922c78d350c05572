"""The ``horma`` command: a thin typer app that parses, calls the library and renders with rich.

Each command group lives in its own module and registers itself here.
Errors the user can fix (bad input, a missing workspace, a refused request)
are raised as :class:`horma.errors.HormaError` and reported in one place,
:class:`HormaGroup`'s ``main``: one line on stderr, or one JSON object on stdout under ``--json``,
and the exit code of the error's class (docs/errors.md). Any other exception
is a bug and stays a traceback, so that it is seen and reported.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence
from typing import Any

import typer
from typer._click import exceptions as cli_errors  # typer >= 0.29 vendors click and does not re-export these
from typer.core import TyperGroup

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
    interrupt,
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
from horma.cli.common import os_error_message, report
from horma.errors import INTERRUPTED, IO, BadArgument, HormaError


def _flags_take_no_value() -> None:
    """Show on/off flags in --help without a type: typer 0.29's rich help prints ``<bool>`` beside
    every ``--json`` or ``--dry-run``, which reads as if the flag wanted a value."""
    from typer.core import TyperOption

    shown_type = TyperOption.display_type_rich
    # patched on purpose (typer has no setting for it); mypy refuses any assignment to a method
    TyperOption.display_type_rich = (  # type: ignore[method-assign]
        lambda self, ctx: None if self.is_flag else shown_type(self, ctx))


_flags_take_no_value()


def wants_json(args: Sequence[str]) -> bool:
    """Whether the command line asks for JSON: a ``--json`` before any ``--`` (after it, ``--json`` is a value).

    Read from the words rather than from the parsed options, so that a usage
    error, which happens before any option is parsed, answers in JSON too.
    """
    words = list(args)
    return "--json" in (words[: words.index("--")] if "--" in words else words)


def reported(command: Callable[[], Any], as_json: bool) -> int:
    """Run ``command`` (click's main, not standalone) and turn what it raises for the user into a report.

    A usage error (unknown option, missing argument, bad value) is a
    ``bad_argument`` like every other bad input, one line instead of click's
    multi-line panel.
    """
    try:
        code = command()
    except cli_errors.NoArgsIsHelpError as exc:
        exc.show()  # `horma` or a group alone: the help is the answer
        return exc.exit_code
    except cli_errors.UsageError as exc:
        where = exc.ctx.command_path if exc.ctx else "horma"
        message = exc.format_message().replace("\n", " ")
        return report(BadArgument.code, f"{message} (see {where} --help)", BadArgument.exit_code, as_json)
    except cli_errors.ClickException as exc:
        return report(BadArgument.code, exc.format_message(), BadArgument.exit_code, as_json)
    except typer.Abort:
        return report(INTERRUPTED[0], "interrupted", INTERRUPTED[1], as_json)
    except HormaError as exc:
        return report(exc.code, str(exc) or type(exc).__name__, exc.exit_code, as_json)
    except OSError as exc:  # the disk said no (permissions, a file where a folder must be, no space)
        return report(IO[0], os_error_message(exc), IO[1], as_json)
    return code if isinstance(code, int) else 0


class HormaGroup(TyperGroup):
    """The root command: every error is reported in its ``main``, so the console script, :func:`run` and a
    test's ``CliRunner`` all see the same one line (or JSON object) and exit code."""

    def invoke(self, ctx: Any) -> Any:
        try:
            result = super().invoke(ctx)
            interrupt.checkpoint()  # a Ctrl-C CPython swallowed in a command with no progress bar: still the interrupt
            return result
        except KeyboardInterrupt:  # typer would turn Ctrl-C into a silent exit 130: say it like any other stop
            raise typer.Abort() from None
        except Exception:
            if interrupt.pressed():  # the Ctrl-C in another form: numpy's import cut short raises ImportError
                raise typer.Abort() from None
            raise

    def main(self, args: Sequence[str] | None = None, prog_name: str | None = None, complete_var: str | None = None,
             standalone_mode: bool = True, windows_expand_args: bool = True, **extra: Any) -> Any:
        words = list(sys.argv[1:] if args is None else args)
        code = reported(lambda: super(HormaGroup, self).main(words, prog_name, complete_var, False,
                                                             windows_expand_args, **extra), wants_json(words))
        if standalone_mode:
            sys.exit(code)
        return code


app = typer.Typer(
    name="horma",
    cls=HormaGroup,
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
    """Run the CLI on ``args`` (default: the command line) and return the exit code; tests call this, so they
    see exactly what a user sees."""
    with interrupt.catching():  # a Ctrl-C CPython swallows still stops the command (horma.cli.interrupt)
        return int(app(args=args, prog_name="horma", standalone_mode=False))


def main() -> None:
    """The console script. An interrupted command leaves at once, with its code: under ``python -m``, a
    Ctrl-C that went through a native module running Python code (a pybind11 extension's import) leaves a
    flag in CPython that turns any later exit into death by SIGINT, after the report was printed."""
    code = run()
    if code == INTERRUPTED[1]:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)  # what the command wrote is closed already; a kill -9 here would leave no less
    sys.exit(code)
