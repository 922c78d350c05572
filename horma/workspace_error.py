"""The error every workspace problem raises: a bad path, a malformed note, a locked or damaged workspace.

Its own module so that the note format, the file writers and the workspace,
each of which raises it, depend on it and not on one another.
"""

from __future__ import annotations

from horma.errors import HormaError


class WorkspaceError(HormaError):
    """A problem with a workspace or its files, worded for the user."""

    code = "workspace"
    exit_code = 4
