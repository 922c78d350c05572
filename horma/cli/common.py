"""What every command module shares: consoles and the one-line error exit."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import NoReturn

import typer
from rich.console import Console

console = Console()
err_console = Console(stderr=True)


def fail(message: str, code: int = 1) -> NoReturn:
    """Print one clear error line on stderr and exit non-zero."""
    err_console.print(f"[bold red]error:[/] {message}", highlight=False, soft_wrap=True)
    raise typer.Exit(code)


@contextmanager
def user_errors(*types: type[BaseException], code: int = 1) -> Iterator[None]:
    """Turn the library's user-facing exceptions into one error line."""
    from horma.sandbox import SandboxError
    from horma.workspace import WorkspaceError

    try:
        yield
    except (WorkspaceError, SandboxError, *types) as exc:
        fail(str(exc), code)
