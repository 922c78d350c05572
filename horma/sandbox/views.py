"""What the isolated backends share: the view's mounts, its environment and the sandbox user.

Both docker and bwrap show the workspace at ``/ws``. The read view mounts it
read-only; the write view mounts it writable with ``raw/`` put back read-only
on top, and ``notes/agent/`` too (an agent's own files: no manager writes
them, see :mod:`horma.agent_files`). ``.horma/`` (trajectories of other queries with their answers, locks,
the ingest log) is covered by an empty, read-only tmpfs in both views, so no
agent command can read or list it: a retriever must not see other queries.
The one part of it the helpers need, the search index ``.horma/index/``, is
mounted on its own at ``/opt/horma/index`` (read-only in the read view,
writable in the write view) and named by ``HORMA_INDEX`` in the shell's
environment.

The sandbox user is never root: it is the workspace owner when that is a
normal user, else a dedicated uid whose ownership of the writable parts horma
arranges, so the manager can write notes in a root-owned workspace and the
host user (root) can still read and change them afterwards.
"""

from __future__ import annotations

import contextlib
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from horma.core.index_schema import DB_NAME
from horma.core.layout import AGENT_DIR
from horma.modes import unreadable_part
from horma.resources import CORE, SANDBOX_BIN
from horma.sandbox import SandboxError, View, safe_env
from horma.workspace import INDEX_FILE, META_DIR, NOTES_DIR, RAW_DIR

SANDBOX_ROOT = "/ws"
SANDBOX_BIN_DIR = "/opt/horma/bin"
SANDBOX_NEAR_SOCKET = "/opt/horma/run/near.sock"
NEAR_ENV = "HORMA_NEAR_SOCKET"
# horma.core for the helpers, as a namespace package: /opt/horma/lib/horma has no __init__.py
SANDBOX_CORE_DIR = "/opt/horma/lib/horma/core"
SANDBOX_INDEX_DIR = "/opt/horma/index"  # where the helpers find the index (``$HORMA_INDEX``)
INDEX_DIR = "index"  # under .horma/: the one metadata folder the sandbox sees (at SANDBOX_INDEX_DIR)
HIDDEN = (f"{SANDBOX_ROOT}/{META_DIR}",)  # covered by an empty read-only tmpfs in every view
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


def index_dir(workspace: Path) -> Path:
    """The host folder of the search index."""
    return workspace / META_DIR / INDEX_DIR


def mounts(workspace: Path, view: View, near_socket: str | None = None) -> list[Mount]:
    """The binds of a view, outermost first (later ones cover earlier ones), with the host's meaning
    socket (horma/near_service.py) when there is one.

    The backends add the :data:`HIDDEN` masks after these binds.
    """
    writable = view is View.WRITE
    plan = [Mount(workspace, SANDBOX_ROOT, writable)]
    if writable:
        plan.append(Mount(workspace / RAW_DIR, f"{SANDBOX_ROOT}/{RAW_DIR}", False))
        plan.append(Mount(workspace / NOTES_DIR / AGENT_DIR, f"{SANDBOX_ROOT}/{NOTES_DIR}/{AGENT_DIR}", False))
    plan.append(Mount(index_dir(workspace), SANDBOX_INDEX_DIR, writable))
    if SANDBOX_BIN.is_dir():
        plan.append(Mount(SANDBOX_BIN, SANDBOX_BIN_DIR, False))
    plan.append(Mount(CORE, SANDBOX_CORE_DIR, False))
    if near_socket:
        plan.append(Mount(Path(near_socket), SANDBOX_NEAR_SOCKET, False))  # connect() works on a read-only bind
    return plan


def shell_env(near: bool = False) -> dict[str, str]:
    """The environment of an isolated sandbox's shell: safe_env, the helpers first on PATH, the index,
    and where hsearch asks for meaning when the host gave the sandbox a socket."""
    extra = {"HORMA_INDEX": SANDBOX_INDEX_DIR}
    if near:
        extra[NEAR_ENV] = SANDBOX_NEAR_SOCKET
    env = safe_env(SANDBOX_ROOT, extra)
    env["PATH"] = f"{SANDBOX_BIN_DIR}:{env['PATH']}"
    return env


def prepare_index(workspace: Path) -> None:
    """Create the index folder, which every view mounts (a bind needs an existing source), and check
    that the sandbox user can read the workspace: one error line saying what to run, not a failed search."""
    try:
        index_dir(workspace).mkdir(parents=True, exist_ok=True)
        for folder in (workspace / META_DIR, index_dir(workspace)):  # the sandbox user passes through to the index
            mode = folder.stat().st_mode
            if mode & 0o055 != 0o055:
                os.chmod(folder, mode | 0o055)
    except OSError as exc:
        raise SandboxError(f"cannot create the index folder {index_dir(workspace)}: {exc}") from exc
    who = workspace_identity(workspace)
    if os.geteuid() == 0 and who.uid != workspace.stat().st_uid:
        parts = (RAW_DIR, NOTES_DIR, INDEX_FILE, f"{META_DIR}/{INDEX_DIR}/{DB_NAME}")
        bad = unreadable_part(workspace, parts)
        if bad is not None:
            raise SandboxError(
                f"{bad}: the sandbox user (uid {who.uid}) cannot read it (mode {stat.S_IMODE(bad.stat().st_mode):o}, "
                f"made under a strict umask); run `chmod -R a+rX {workspace}` once")


def prepare_write_view(workspace: Path, who: Identity) -> None:
    """Create the folders the write view mounts and, as root, hand the writable parts to ``who``.

    The walk goes through directory file descriptors and never follows a
    symlink, so a link the sandbox planted in an earlier session cannot turn
    this root-run chown onto a file outside the workspace; files with more
    than one hard link are left alone for the same reason.
    """
    (workspace / RAW_DIR).mkdir(exist_ok=True)
    _agent_folder(workspace)
    prepare_index(workspace)
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


def _agent_folder(workspace: Path) -> None:
    """Make ``notes/agent/`` a plain folder for its read-only bind: a bind follows links, so one planted
    there (or at ``notes``) would mount a host folder into the sandbox; it is refused instead."""
    fds = [os.open(workspace, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)]
    try:
        for name in (NOTES_DIR, AGENT_DIR):
            with contextlib.suppress(FileExistsError):
                os.mkdir(name, dir_fd=fds[-1])
            try:
                fds.append(os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=fds[-1]))
            except OSError:
                raise SandboxError(f"{workspace}/{NOTES_DIR}/{AGENT_DIR}: not a plain folder (a link or a file); "
                                   "the write view mounts the agent's folder read-only and follows no link") from None
    finally:
        for fd in fds:
            os.close(fd)


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
