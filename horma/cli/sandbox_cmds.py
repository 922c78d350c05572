"""`horma sandbox check` and `horma sandbox exec`: see and try the sandboxes agents run in."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import typer
from rich.table import Table

from horma.cli.common import console, plain, shown
from horma.cli.options import CONFIG_OPT
from horma.config import load_config
from horma.sandbox import SANDBOXES, Limits, View, check_backends, open_sandbox
from horma.workspace import Workspace

sandbox_app = typer.Typer(
    help="Check which sandboxes work here and run commands in a workspace view.",
    no_args_is_help=True,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def register(app: typer.Typer) -> None:
    app.add_typer(sandbox_app, name="sandbox")


@sandbox_app.command("check")
def check(json_out: bool = typer.Option(False, "--json", help="Print the statuses as JSON.")) -> None:
    """List each sandbox backend as available or not, with the reason.

    Exits 0 when at least one isolated backend (docker or bwrap) works, 1 otherwise.

    Example: [bold]horma sandbox check[/]
    """
    statuses = check_backends()
    if json_out:
        console.print_json(json.dumps([s.__dict__ for s in statuses]))
    else:
        table = Table("backend", "available", "why")
        for s in statuses:
            mark = "[green]yes[/]" if s.available else "[red]no[/]"
            table.add_row(s.name, mark, shown(s.reason))
        console.print(table)
    if not any(s.available for s in statuses if s.name != "local"):
        raise typer.Exit(1)


@sandbox_app.command("exec")
def exec_(
    workspace: Path = typer.Argument(..., help="Workspace folder."),
    command: list[str] = typer.Argument(..., help="Bash command (after --); several words are joined with spaces."),
    backend: str | None = typer.Option(None, "--backend", "-b", help=f"One of {SANDBOXES.choices()} "
                                                                     "(default: sandbox.backend, auto)."),
    write: bool = typer.Option(False, "--write", help="Use the manager's write view (notes writable, raw/ read-only)."),
    timeout: float | None = typer.Option(None, "--timeout", "-t", min=0.1,
                                         help="Seconds before the command is killed (default: sandbox.timeout, 10)."),
    config: Path | None = CONFIG_OPT,
    json_out: bool = typer.Option(False, "--json", help="Print the result (output, exit code, timing) as JSON."),
) -> None:
    """Run a command with bash at the workspace root inside a sandbox; exit with its exit code.

    The read view (default) is what the retriever sees; --write is the manager's.
    A timeout exits 124; a refused request (no such workspace, backend unavailable) exits with its error's
    code (docs/errors.md), and under --json prints an error object instead of a result.

    Example: [bold]horma sandbox exec ./mem --backend bwrap -- 'ls notes && grep -ri paris notes'[/]
    """
    box = load_config(config, {"sandbox.backend": backend, "sandbox.timeout": timeout}).sandbox
    ws = Workspace.open(workspace)
    sandbox = open_sandbox(ws.root, box.backend, View.WRITE if write else View.READ,
                           limits=Limits(timeout=box.timeout))
    with sandbox:
        # a subshell, so that `exit N` ends the command with N instead of ending the session's shell
        result = sandbox.exec("(\n" + " ".join(command) + "\n)")
    if json_out:
        record = {"backend": sandbox.backend, "view": sandbox.view.value, **result.as_dict()}
        record["command"] = " ".join(command)
        console.print_json(json.dumps(record))
    elif result.output:  # as the command printed it, or terminal-safe when a terminal shows it
        out = plain(result.output) if sys.stdout.isatty() else result.output
        typer.echo(out, nl=not out.endswith("\n"))
    raise typer.Exit(result.exit_code)

