"""How host code writes workspace files: each atomically (a temp file, then a rename), so readers never lock.

:func:`atomic_write` writes one file; :class:`FileWriter` writes many under
the writer lock, through folders opened without following links;
:func:`file_sig` tells whether a file changed since it was last read or written.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

from horma.core.layout import INDEX_FILE, NOTES_DIR
from horma.workspace_error import WorkspaceError


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def atomic_write(path: Path, text: str, mode: int | None = None) -> None:
    """Write via a temp file in the same folder and rename: readers see old or new, never half."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        # mkstemp makes 0600 files; give the mode a plain open() would, so a
        # sandbox user other than the writer can still read notes and INDEX.md.
        os.chmod(tmp, mode if mode is not None else 0o666 & ~_umask())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


FileSig = tuple[int, int, int]  # (mtime ns, size, inode): what a file was when last read or written
_NOFOLLOW_DIR = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0)
_TMP_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)


def file_sig(path: str | os.PathLike[str]) -> FileSig | None:
    """``(mtime_ns, size, inode)`` of a file, None if missing: a change to any means someone rewrote it.

    The inode catches a rename-based rewrite and the size most in-place edits
    within one mtime tick (file systems stamp times at a few-ms granularity).
    """
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_mtime_ns, st.st_size, st.st_ino


class FileWriter:
    """Writes many workspace files, each atomically (temp file + rename), under the writer lock.

    For code that writes on the host (the heuristic manager). Each folder is
    opened once, component by component from the workspace root with
    ``O_NOFOLLOW`` (created when missing), and files are created and renamed
    relative to that folder: a link an agent planted under ``notes/`` from a
    sandbox cannot send a host write outside the workspace. Only ``notes/``
    and ``INDEX.md`` may be written. Files are not fsynced one by one: for
    derived notes, which a re-run rebuilds, a rename already gives readers old
    or new, never half, and per-file fsyncs would dominate ingest. Use as a
    context manager; folders stay open until exit.
    """

    def __init__(self, root: Path):
        self.root = Path(root)
        self._dirs: dict[str, int] = {}
        self._n = 0

    def __enter__(self) -> FileWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        for fd in self._dirs.values():
            os.close(fd)
        self._dirs.clear()

    def _dir(self, folder: str) -> int:
        fd = self._dirs.get(folder)
        if fd is not None:
            return fd
        if folder == "":
            fd = os.open(self.root, _NOFOLLOW_DIR)
        else:
            parent, _, name = folder.rpartition("/")
            pfd = self._dir(parent)
            try:
                fd = os.open(name, _NOFOLLOW_DIR, dir_fd=pfd)
            except FileNotFoundError:
                with contextlib.suppress(FileExistsError):
                    os.mkdir(name, dir_fd=pfd)
                fd = os.open(name, _NOFOLLOW_DIR, dir_fd=pfd)
            except OSError as exc:
                raise WorkspaceError(f"{folder}: not a plain folder inside the workspace ({exc.strerror})") from None
        self._dirs[folder] = fd
        return fd

    def write(self, rel: str, text: str) -> FileSig:
        """Write one file (``notes/...`` or ``INDEX.md``); returns its signature as written."""
        parts = rel.split("/")
        if (rel != INDEX_FILE and parts[0] != NOTES_DIR) or any(p in ("", ".", "..") for p in parts):
            raise WorkspaceError(f"{rel}: host writes go to {NOTES_DIR}/ or {INDEX_FILE} only")
        folder, name = "/".join(parts[:-1]), parts[-1]
        dfd = self._dir(folder)
        self._n += 1
        tmp = f".{name}.{os.getpid()}.{self._n}.tmp"
        data = text.encode("utf-8")
        fd = os.open(tmp, _TMP_FLAGS, 0o666, dir_fd=dfd)  # the umask applies, as for open()
        try:
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view):]
                st = os.fstat(fd)  # a rename keeps mtime and inode: this is the file's signature
            finally:
                os.close(fd)
            os.rename(tmp, name, src_dir_fd=dfd, dst_dir_fd=dfd)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp, dir_fd=dfd)
            raise
        return st.st_mtime_ns, st.st_size, st.st_ino
