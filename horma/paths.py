"""Paths a client names inside a workspace (MCP tools, the Anthropic memory tool), held to exact rules.

A client outside the sandbox names files by path, and the host opens them, so
the rules are enforced here, on every component, not by resolving and
comparing strings afterwards:

- ``..`` is refused; empty and ``.`` components are dropped (``notes//a``, ``./notes``);
- names starting with ``.`` are hidden: ``.horma/`` (other queries'
  trajectories, locks, the index) and writers' temp files read as absent;
- links are refused: every folder is opened relative to its parent's file
  descriptor with ``O_NOFOLLOW``, so a link planted anywhere on the path (by
  an agent in a sandbox, say) cannot send a read or a write outside the
  workspace, even if it appears between a check and an open.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path

from horma.errors import BadArgument
from horma.workspace import WorkspaceError

_DIR_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0)
_FILE_FLAGS = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
NO_SUCH = "no such file or folder"
LINKS = "links are refused"


class PathRefused(WorkspaceError):
    """A path a client named that horma will not act on; ``reason`` words it for the client."""

    code = "bad_path"
    exit_code = BadArgument.exit_code

    def __init__(self, path: str, reason: str):
        super().__init__(f"{path}: {reason}" if path else reason)
        self.path = path
        self.reason = reason


def split(path: str) -> list[str]:
    """The components of a workspace-relative path (a leading ``/`` also means the workspace root).

    Refuses ``..`` and NUL; a hidden name (``.horma``) reads as absent.
    """
    if not isinstance(path, str):
        raise PathRefused("", f"a path must be a string, got {type(path).__name__}")
    if "\x00" in path:
        raise PathRefused("", "a path may not contain a NUL character")
    parts = [p for p in path.split("/") if p not in ("", ".")]
    if ".." in parts:
        raise PathRefused(path, "'..' is not allowed (paths stay inside the workspace)")
    if any(p.startswith(".") for p in parts):
        raise PathRefused(path, NO_SUCH)
    return parts


def _refuse_os(path: str, exc: OSError) -> PathRefused:
    if exc.errno == errno.ELOOP:
        return PathRefused(path, LINKS)
    if exc.errno in (errno.ENOENT, errno.ENOTDIR):
        return PathRefused(path, NO_SUCH)
    return PathRefused(path, str(exc.strerror or exc))


def _is_link(name: str, dir_fd: int) -> bool:
    try:
        return stat.S_ISLNK(os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode)
    except OSError:
        return False


@contextmanager
def open_dir(root: Path, parts: list[str], *, create: bool = False, label: str = "") -> Iterator[int]:
    """A file descriptor of folder ``parts`` under ``root``, opened link-free component by component."""
    label = label or "/".join(parts) or "."
    fds = [os.open(root, _DIR_FLAGS)]
    try:
        for name in parts:
            try:
                fds.append(os.open(name, _DIR_FLAGS, dir_fd=fds[-1]))
            except FileNotFoundError:
                if not create:
                    raise
                with suppress(FileExistsError):
                    os.mkdir(name, dir_fd=fds[-1])
                fds.append(os.open(name, _DIR_FLAGS, dir_fd=fds[-1]))
            except OSError as exc:  # a link answers ELOOP, or ENOTDIR with O_DIRECTORY
                if exc.errno in (errno.ENOTDIR, errno.ELOOP) and _is_link(name, fds[-1]):
                    raise PathRefused(label, LINKS) from None
                raise
        yield fds[-1]
    except OSError as exc:
        raise _refuse_os(label, exc) from None
    finally:
        for fd in fds:
            os.close(fd)


def lstat(root: Path, parts: list[str]) -> os.stat_result | None:
    """The entry ``parts`` names (not followed if a link), or None when absent; links on the way are refused."""
    if not parts:
        return os.stat(root)
    try:
        with open_dir(root, parts[:-1], label="/".join(parts)) as fd:
            return os.stat(parts[-1], dir_fd=fd, follow_symlinks=False)
    except FileNotFoundError:
        return None
    except PathRefused as exc:
        if exc.reason == NO_SUCH:
            return None
        raise


def read_bytes(root: Path, parts: list[str]) -> bytes:
    """A regular file's content; links, folders and devices are refused."""
    label = "/".join(parts)
    if not parts:
        raise PathRefused(".", "is a folder, not a file")
    with open_dir(root, parts[:-1], label=label) as dfd:
        try:
            fd = os.open(parts[-1], _FILE_FLAGS, dir_fd=dfd)
        except OSError as exc:
            raise _refuse_os(label, exc) from None
        with os.fdopen(fd, "rb") as fh:
            if stat.S_ISDIR(os.fstat(fd).st_mode):
                raise PathRefused(label, "is a folder, not a file")
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise PathRefused(label, "is not a regular file")
            return fh.read()


def read_text(root: Path, parts: list[str]) -> str:
    return read_bytes(root, parts).decode("utf-8", errors="replace")


@dataclass(frozen=True)
class Entry:
    path: str  # relative to the listed folder, ``/``-separated
    kind: str  # "dir" | "file" | "link" | "other"
    size: int
    depth: int  # 1 for the folder's own entries


def listing(root: Path, parts: list[str], depth: int, limit: int = 2000) -> list[Entry]:
    """Entries of folder ``parts`` down to ``depth`` levels, sorted, hidden names left out; links listed, not
    followed."""
    out: list[Entry] = []

    def walk(fd: int, prefix: str, level: int) -> None:
        for name in sorted(os.listdir(fd)):
            if name.startswith(".") or len(out) >= limit:
                continue
            st = os.stat(name, dir_fd=fd, follow_symlinks=False)
            kind = ("dir" if stat.S_ISDIR(st.st_mode) else "file" if stat.S_ISREG(st.st_mode)
                    else "link" if stat.S_ISLNK(st.st_mode) else "other")
            rel = f"{prefix}{name}"
            out.append(Entry(rel, kind, st.st_size, level))
            if kind == "dir" and level < depth:
                try:
                    sub = os.open(name, _DIR_FLAGS, dir_fd=fd)
                except OSError:
                    continue  # replaced by a link since the stat: not followed
                try:
                    walk(sub, f"{rel}/", level + 1)
                finally:
                    os.close(sub)

    with open_dir(root, parts) as fd:
        walk(fd, "", 1)
    return out
