"""The agent's own files: ``notes/agent/``, which no manager run ever writes.

The heuristic manager regenerates its folders (``notes/people``,
``notes/sessions``... see :data:`horma.core.layout.MANAGER_KINDS`) from
``raw/``: a line an agent added there would be gone after the next record.
So what an agent writes (the Anthropic memory tool's ``/memories``) lives in
a folder of its own, ``notes/agent/``, which an LLM manager's write view
mounts read-only (:mod:`horma.sandbox.views`). Ownership is by folder, not by a
front-matter flag: an agent's file is plain text in whatever form it likes
(Claude writes markdown without front matter), and a folder is a rule every
writer (code, an LLM manager in the sandbox, a person) can see with ``ls``.
Its lines are the agent's, so recall quotes them (``hsearch --own``), and
every change is a revision of the notes history (``horma revert`` undoes it).

Files are created with the workspace's mode (the root folder's read and
write bits, so a private 0700 workspace gets 0600 files, a group 0770 one
0660; new folders get the root's bits whole) and written atomically with an
fsync: unlike derived notes, nothing can rebuild them.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from pathlib import Path

from horma import paths
from horma.core.layout import AGENT_DIR
from horma.history import NotesHistory
from horma.index import open_index
from horma.workspace import NOTES_DIR, Workspace

AGENT_PARTS = [NOTES_DIR, AGENT_DIR]
_TMP_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
_DIR_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0)


def file_mode(root: Path) -> int:
    """The mode the workspace's files get: its root folder's permission bits without execute."""
    return os.stat(root).st_mode & 0o666


def make_folders(root: Path, parts: list[str]) -> None:
    """Create the missing folders of ``parts`` with the root's permission bits (the umask would narrow a
    group workspace's), each opened link-free from its parent."""
    mode = os.stat(root).st_mode & 0o777
    for i in range(len(parts)):
        with paths.open_dir(root, parts[:i]) as fd:
            try:
                os.mkdir(parts[i], mode, dir_fd=fd)
            except FileExistsError:
                continue
            made = os.open(parts[i], _DIR_FLAGS, dir_fd=fd)
            try:
                os.fchmod(made, mode)
            finally:
                os.close(made)


def write(root: Path, parts: list[str], text: str) -> None:
    """Write ``parts`` (workspace components) atomically with the workspace's mode; folders are made link-free."""
    mode = file_mode(root)
    data = text.encode("utf-8")
    tmp = f".{parts[-1]}.{os.getpid()}.{secrets.token_hex(4)}.tmp"  # a name a killed writer's leftover never takes
    make_folders(root, parts[:-1])
    with paths.open_dir(root, parts[:-1]) as dfd:
        fd = os.open(tmp, _TMP_FLAGS, mode, dir_fd=dfd)
        try:
            try:
                os.fchmod(fd, mode)  # the umask must not narrow a group workspace's files
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view):]
                os.fsync(fd)
            finally:
                os.close(fd)
            os.rename(tmp, parts[-1], src_dir_fd=dfd, dst_dir_fd=dfd)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp, dir_fd=dfd)
            raise


def committed(ws: Workspace, message: str) -> None:
    """After a change by an agent, under the writer lock: one revision of the notes history (so ``horma
    revert`` undoes it) and the search index brought up to date (so recall and hsearch see it at once)."""
    with NotesHistory(ws) as history:
        history.commit(message)
    with open_index(ws) as idx:
        idx.sync(str(ws.root), rebuild=False)


__all__ = ["AGENT_DIR", "AGENT_PARTS", "committed", "file_mode", "make_folders", "write"]
