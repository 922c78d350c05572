"""What every command module shares: consoles and the one-line error exit."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import NoReturn

import typer
from rich.console import Console
from rich.markup import escape

console = Console()
err_console = Console(stderr=True)


def fail(message: str, code: int = 1) -> NoReturn:
    """Print one clear error line on stderr and exit non-zero; the message is literal text, never markup."""
    err_console.print(f"[bold red]error:[/] {escape(message)}", highlight=False, soft_wrap=True)
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


def policy_llm_driven(policy: str) -> bool:
    """Check ``--policy`` (one name for the manager and the retriever); whether an LLM drives it.

    The names come from the policy registries, so a policy registered there is
    accepted here without touching the CLI.
    """
    from horma.agents.policies import PolicyError, shared_policy_llm_driven, shared_policy_names

    try:
        return shared_policy_llm_driven(policy)
    except PolicyError:
        names = shared_policy_names()
        choices = f"{', '.join(names[:-1])} or {names[-1]}" if len(names) > 1 else ", ".join(names)
        fail(f"--policy must be {choices}, got {policy!r}")
