"""What every command module shares: consoles, terminal-safe text and the one way an error is reported.

Archived text is data from anyone (a dataset, a user's agent, an LLM's notes),
and a terminal obeys what it is sent: an ANSI or OSC escape sequence in a unit
could recolour, retitle or rewrite the user's screen. Every human-readable
output therefore passes archived text through :func:`plain` (text printed as
is) or :func:`shown` (text inside Rich markup); ``--json`` output is exact,
since JSON escapes control characters itself.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
from pathlib import Path

import typer
from rich.console import Console
from rich.markup import escape

from horma.errors import BadArgument

# Piped or redirected output is for grep and scripts: one logical line stays one line, never cut at 80
# columns; on a terminal rich wraps to its width.
console = Console(soft_wrap=not sys.stdout.isatty())
err_console = Console(stderr=True, soft_wrap=not sys.stderr.isatty())

# C0 and C1 controls (tab and newline aside), DEL, and the bidirectional overrides that reorder
# what a terminal shows ("Trojan source"); line and paragraph separators; lone surrogates (a path's
# undecodable bytes as Python holds them: no terminal encoding can write one)
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u2028-\u202e\u2066-\u2069\ud800-\udfff]")


def _visible(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def plain(text: object, newlines: bool = True) -> str:
    """``text`` safe for a terminal: control characters shown as ``\\x1b``-style escapes.

    Newlines and tabs stay (multi-line notes print as lines) unless ``newlines`` is False.
    """
    out = _UNSAFE.sub(_visible, str(text))
    return out if newlines else out.replace("\n", "\\n").replace("\t", "\\t")


def shown(text: object, newlines: bool = False) -> str:
    """``text`` for a place inside Rich markup: terminal-safe, ``[...]`` printed literally, one line
    unless ``newlines``."""
    return escape(plain(text, newlines))


def json_line(value: object) -> str:
    """``value`` as JSON for stdout, non-ASCII text kept readable; a lone surrogate (the undecodable byte of a
    path, as Python holds it) cannot be written as UTF-8, so then every non-ASCII character is escaped."""
    out = json.dumps(value, ensure_ascii=False)
    try:
        out.encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(value)
    return out


def report(code: str, message: str, exit_code: int, as_json: bool) -> int:
    """Say what went wrong once, the way the command was asked to speak, and return the exit code.

    Under ``--json`` a script reads stdout, so the error is one JSON object there
    (``{"error": {"code", "message"}}``, codes in docs/errors.md) and stderr
    stays empty; otherwise it is one ``error:`` line on stderr. The message is
    printed literally: a hint like ``pip install -e '.[alfworld]'`` keeps its
    brackets, and control characters from data in it are escaped.
    """
    if as_json:
        typer.echo(json_line({"error": {"code": code, "message": message}}))
    else:
        err_console.print(f"[bold red]error:[/] {shown(message)}", highlight=False, soft_wrap=True)
    return exit_code


def os_error_message(exc: OSError) -> str:
    """An OSError as the user's problem: the path and what the disk said, without errno numbers."""
    where = f"{exc.filename}: " if exc.filename else ""
    return f"{where}{exc.strerror or exc}"


def policy_llm_driven(policy: str) -> bool:
    """Check ``--policy`` (one name for the manager and the retriever); whether an LLM drives it.

    The names come from the policy registries, so a policy registered there is
    accepted here without touching the CLI.
    """
    from horma.agents.policies import (
        PolicyError,
        shared_policy_llm_driven,
        shared_policy_names,
    )

    try:
        return shared_policy_llm_driven(policy)
    except PolicyError:
        names = shared_policy_names()
        choices = f"{', '.join(names[:-1])} or {names[-1]}" if len(names) > 1 else ", ".join(names)
        raise BadArgument(f"--policy must be {choices}, got {policy!r}") from None


def plural(n: int, word: str, many: str | None = None) -> str:
    """``1 unit``, ``2 units``, ``0 units``: counts read as English in every summary line."""
    return f"{n:,} {word if n == 1 else many or word + 's'}"


def demo_folder() -> Path:
    """Where ``horma demo`` builds when no --workspace is named: one folder per user, replaced by each run.

    One place to explore after the demo (``horma tree`` it), and running the
    demo again does not leave another folder in /tmp each time.
    """
    from horma.workspace import WorkspaceError

    folder = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "horma" / "demo"
    if folder.exists() or folder.is_symlink():
        if folder.is_symlink() or not (folder / ".horma" / "workspace.yaml").is_file():
            raise WorkspaceError(f"{folder}: exists and is not a horma demo workspace; remove it or pass --workspace")
        shutil.rmtree(folder)
    return folder
