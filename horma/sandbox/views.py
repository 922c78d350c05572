"""What the isolated backends share: the view's mounts and who the sandbox user is.

Both docker and bwrap show the workspace at ``/ws``. The read view mounts it
read-only. The write view mounts it writable but puts ``raw/`` and ``.horma/``
back read-only on top, except ``.horma/index/`` (the heuristic manager's
search index). The sandbox user is never root: it is the workspace owner when
that is a normal user, else a dedicated uid whose ownership of the writable
parts horma arranges, so the manager can write notes in a root-owned
workspace and the host user (root) can still read and change them afterwards.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

from horma.resources import SANDBOX_BIN
from horma.sandbox import View
from horma.workspace import META_DIR, RAW_DIR

SANDBOX_ROOT = "/ws"
SANDBOX_BIN_DIR = "/opt/horma/bin"
INDEX_DIR = "index"  # under .horma/: the one metadata folder the write view may change
SANDBOX_UID = 10001  # the image's `horma` user, for workspaces owned by root


@dataclass(frozen=True)
class Mount:
    host: Path
    target: str
    writable: bool


@dataclass(frozen=True)
class Identity:
    uid: int
    gid: int


def workspace_identity(workspace: Path) -> Identity:
    """The owner of the workspace, or the dedicated sandbox user when root owns it."""
    st = workspace.stat()
    if st.st_uid == 0:
        return Identity(SANDBOX_UID, SANDBOX_UID)
    return Identity(st.st_uid, st.st_gid)


def mounts(workspace: Path, view: View) -> list[Mount]:
    """The binds of a view, outermost first (later ones cover earlier ones)."""
    plan = [Mount(workspace, SANDBOX_ROOT, view is View.WRITE)]
    if view is View.WRITE:
        plan += [
            Mount(workspace / RAW_DIR, f"{SANDBOX_ROOT}/{RAW_DIR}", False),
            Mount(workspace / META_DIR, f"{SANDBOX_ROOT}/{META_DIR}", False),
            Mount(workspace / META_DIR / INDEX_DIR, f"{SANDBOX_ROOT}/{META_DIR}/{INDEX_DIR}", True),
        ]
    if SANDBOX_BIN.is_dir():
        plan.append(Mount(SANDBOX_BIN, SANDBOX_BIN_DIR, False))
    return plan


def prepare_write_view(workspace: Path, who: Identity) -> None:
    """Create the folders the write view mounts and, as root, hand the writable parts to ``who``.

    The walk goes through directory file descriptors and never follows a
    symlink, so a link the sandbox planted in an earlier session cannot turn
    this root-run chown onto a file outside the workspace; files with more
    than one hard link are left alone for the same reason.
    """
    (workspace / RAW_DIR).mkdir(exist_ok=True)
    (workspace / META_DIR / INDEX_DIR).mkdir(parents=True, exist_ok=True)
    if os.geteuid() != 0:
        return  # only root can change owners; a normal user's workspace is already theirs
    root_fd = os.open(workspace, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    try:
        _own(root_fd, who)
        for entry in os.listdir(root_fd):
            if entry not in (RAW_DIR, META_DIR):
                _hand_over(root_fd, entry, who)
        meta_fd = os.open(META_DIR, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=root_fd)
        try:
            _hand_over(meta_fd, INDEX_DIR, who)
        finally:
            os.close(meta_fd)
    finally:
        os.close(root_fd)


def _own(fd: int, who: Identity) -> None:
    st = os.fstat(fd)
    if (st.st_uid, st.st_gid) != (who.uid, who.gid):
        os.fchown(fd, who.uid, who.gid)


def _hand_over(dir_fd: int, name: str, who: Identity) -> None:
    st = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    if stat.S_ISREG(st.st_mode):
        if st.st_nlink == 1 and (st.st_uid, st.st_gid) != (who.uid, who.gid):
            os.chown(name, who.uid, who.gid, dir_fd=dir_fd, follow_symlinks=False)
    elif stat.S_ISDIR(st.st_mode):
        fd = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=dir_fd)
        try:
            _own(fd, who)
            for entry in os.listdir(fd):
                _hand_over(fd, entry, who)
        finally:
            os.close(fd)
