"""File modes of a workspace: readable by the sandbox user, whoever creates it.

Agents run as a different user than the host process when root owns the
workspace (docker and bwrap drop to the image's ``horma`` user, uid 10001),
and as that user they must read ``raw/``, ``notes/`` and the search index. A
workspace written under a strict umask (root's ``077`` on many servers) would
be 0700/0600 and unreadable to them, so everything horma writes in a workspace
is written with group and others allowed to read (0755 folders, 0644 files,
0444 raw files), whatever the process umask. To keep a memory private from
other local users, put it in a folder only you can enter: the sandboxes mount
the workspace itself, so its parent's mode does not matter to them.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

SHARED_UMASK = 0o022  # at most this strict inside a workspace write: group and others may read


@contextmanager
def readable_writes() -> Iterator[None]:
    """Create files and folders (ours, SQLite's, dulwich's) readable by others while inside.

    The umask is per process: callers hold the workspace's writer lock, which
    one thread holds at a time, so the old mask is put back in order.
    """
    old = os.umask(SHARED_UMASK)
    os.umask(old & SHARED_UMASK)
    try:
        yield
    finally:
        os.umask(old)


def unreadable_part(root: Path, parts: tuple[str, ...]) -> Path | None:
    """The first of ``root`` and its ``parts`` that others cannot enter (or read); None when all can."""
    for path in (root, *(root / p for p in parts)):
        try:
            mode = path.stat().st_mode
        except FileNotFoundError:
            continue
        need = 0o005 if stat.S_ISDIR(mode) else 0o004  # enter and list a folder, read a file
        if mode & need != need:
            return path
    return None
