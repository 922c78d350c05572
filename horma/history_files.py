"""The files the notes history versions, on disk: read with their signatures, written back, indexed again.

Kept apart from :mod:`horma.history` (the repository) because this side
touches only the workspace: which files count (regular files under
``notes/`` and ``INDEX.md``, links never followed) and how a revision is put back.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterator

from horma.workspace import INDEX_FILE, NOTES_DIR, FileSig, FileWriter, Workspace

Snapshot = dict[str, bytes]  # workspace-relative path -> content, for notes/ and INDEX.md


def walk_notes(root: str, wanted: Callable[[str, FileSig], bool]) -> Iterator[tuple[str, FileSig, bytes | None]]:
    """``(path, signature, content or None when not wanted)`` of every file the history tracks under ``root``.

    One ``scandir`` per folder and one ``lstat`` per file, on plain strings: a commit after each record
    walks every note, so this is the one part of a commit that grows with the workspace.
    """
    yield from _read_files(root, [INDEX_FILE], wanted)
    folders = [NOTES_DIR]
    while folders:
        base = folders.pop()
        try:
            entries = sorted(os.scandir(f"{root}/{base}"), key=lambda e: e.name)
        except (FileNotFoundError, NotADirectoryError):
            continue
        files = []
        for e in entries:
            if e.is_dir(follow_symlinks=False):  # a linked folder is never entered
                folders.append(f"{base}/{e.name}")
            else:
                files.append(f"{base}/{e.name}")
        yield from _read_files(root, files, wanted)


def _read_files(root: str, rels: list[str], wanted: Callable[[str, FileSig], bool]
                ) -> Iterator[tuple[str, FileSig, bytes | None]]:
    for rel in rels:
        try:
            st = os.lstat(f"{root}/{rel}")
        except FileNotFoundError:
            continue
        if not stat.S_ISREG(st.st_mode):
            continue  # a link or anything else an agent left: not a note
        sig = (st.st_mtime_ns, st.st_size, st.st_ino)
        if not wanted(rel, sig):
            yield rel, sig, None
            continue
        try:
            fd = os.open(f"{root}/{rel}", os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        except FileNotFoundError:
            continue
        with os.fdopen(fd, "rb") as fh:
            yield rel, sig, fh.read()


def write_snapshot(workspace: Workspace, files: Snapshot, current: Snapshot) -> None:
    """Make ``notes/`` and ``INDEX.md`` hold exactly ``files``: changed ones written atomically, others deleted.

    Writes go through :class:`FileWriter` (never through a link); a deletion
    unlinks a regular file only. Emptied note folders are removed.
    """
    root = workspace.root
    with FileWriter(root) as out:
        for rel, data in files.items():
            if current.get(rel) != data:
                out.write(rel, data.decode("utf-8", "surrogateescape"))
    for rel in current:
        if rel not in files:
            path = root / rel
            if stat.S_ISREG(os.lstat(path).st_mode):
                path.unlink()
    for folder, _dirs, _names in os.walk(root / NOTES_DIR, topdown=False):
        if folder != str(root / NOTES_DIR) and not os.listdir(folder):
            os.rmdir(folder)


def sync_notes_index(workspace: Workspace) -> dict:
    """Bring the search index's note tables in line with the notes on disk (caller holds the lock)."""
    from horma.index import open_index

    with open_index(workspace) as idx:
        return idx.sync(str(workspace.root))


__all__ = ["Snapshot", "sync_notes_index", "walk_notes", "write_snapshot"]
