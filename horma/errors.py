"""The root of every error horma raises on purpose, and the codes a script or an MCP client can branch on.

Each class carries a short ``code`` (stable: docs/errors.md lists them) and the
``exit_code`` the CLI exits with. A caller that only wants to know "did horma
refuse this?" catches :class:`HormaError`; anything else that escapes is a bug
and should be seen as one (a traceback), not dressed up as a user error.

The module imports nothing of horma, so every module can derive its own error
class from here without an import circle. ``horma.core`` (stdlib only, copied
into the sandbox) does not: the host wraps its errors where it calls it.
"""

from __future__ import annotations


class HormaError(Exception):
    """Something horma refuses or cannot do, worded for the user; subclasses pick the code."""

    code = "failed"
    exit_code = 1


class BadArgument(HormaError):
    """An argument, an option or an input file the user gave is wrong; fixing the command line fixes it."""

    code = "bad_argument"
    exit_code = 2


class NotFound(HormaError):
    """Something the user named is not there: a file, a run, a sample."""

    code = "not_found"
    exit_code = 3


class MissingExtra(HormaError):
    """An optional dependency is not installed; the message says which ``pip install`` brings it."""

    code = "missing_extra"
    exit_code = 8


# Codes for what a user can cause that is not a HormaError; the CLI reports these with them (click's usage
# errors are reported as a BadArgument).
IO = ("io", 9)  # the disk said no (permissions, a file where a folder must be, no space): an OSError
INTERRUPTED = ("interrupted", 130)  # Ctrl-C, or end of input where the command asked a question

__all__ = ["INTERRUPTED", "IO", "BadArgument", "HormaError", "MissingExtra", "NotFound"]
