"""The workspace's search index on the host: open it, rebuild it, under the workspace's rules.

The index itself (schema, writer, ranking) is ``horma.core``, the very code
``hsearch`` and ``hindex`` run inside a sandbox, so what the manager writes
is read with exactly the schema and tokenizer that built it.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from horma.core import index as hi
from horma.core import index_schema
from horma.core.search import Searcher
from horma.embed import EmbedError, default_embedder
from horma.sandbox.views import index_dir
from horma.workspace import Workspace, WorkspaceError


def index_folder(workspace: Workspace) -> Path:
    return index_dir(workspace.root)


@contextmanager
def open_index(workspace: Workspace, readonly: bool = False) -> Iterator:
    """The workspace's index for writing (a ``SearchIndex`` that embeds what it indexes) or, with
    ``readonly``, a ``Searcher``."""
    folder = str(index_folder(workspace))
    try:
        if readonly:
            conn = hi.connect(folder, readonly=True)
            try:
                yield Searcher(conn, root=str(workspace.root))
            finally:
                conn.close()
        else:
            with hi.SearchIndex.open(folder, default_embedder()) as idx:
                idx.fill_flags(str(workspace.root))
                yield idx
    except (hi.IndexError_, EmbedError) as exc:
        raise WorkspaceError(str(exc)) from None
    except (sqlite3.DatabaseError, UnicodeDecodeError) as exc:  # damaged pages: text that is not UTF-8
        raise WorkspaceError(f"{folder}: search index unreadable ({exc}); run horma index --rebuild") from None
    except OSError as exc:
        raise WorkspaceError(f"{folder}: cannot open the search index ({exc.strerror or exc})") from None


def rebuild(workspace: Workspace, full: bool = True, progress: Callable[[int, int], None] | None = None) -> dict:
    """Index every raw segment and note (from scratch with ``full``), under the writer lock.

    A full rebuild replaces a file it cannot use (not a database, damaged, or
    another index version) instead of failing on it: that is what it is for.
    """
    with workspace.writer():
        folder = index_folder(workspace)
        try:
            if full and _unusable(folder):
                for name in (hi.DB_NAME, hi.DB_NAME + "-journal"):
                    (folder / name).unlink(missing_ok=True)
        except OSError as exc:
            raise WorkspaceError(f"{folder}: cannot replace the search index ({exc.strerror or exc})") from None
        with open_index(workspace) as idx:
            return idx.sync(str(workspace.root), rebuild=full, progress=progress)


def compact(workspace: Workspace) -> None:
    """Rewrite the index at its smallest (``index_schema.compact``), under the writer lock; no index, nothing.

    For the end of a bulk ingest: its many small transactions leave FTS5 segments a writer only merges a
    bounded amount at a time, and b-tree pages part filled (LoCoMo, built a session at a time: 4.02x ->
    3.85x the raw text; docs/benchmarks.md, session 13). Cost: one rewrite of the file.
    """
    folder = index_folder(workspace)
    with workspace.writer():
        if not (folder / hi.DB_NAME).is_file():
            return
        try:
            conn = index_schema.connect(str(folder))
            try:
                index_schema.compact(conn)
            finally:
                conn.close()
        except (hi.IndexError_, sqlite3.DatabaseError) as exc:  # a full disk, a damaged file: VACUUM rolls back
            raise WorkspaceError(f"{folder}: cannot compact the search index ({exc})") from None


def _unusable(folder: Path) -> bool:
    """The index file exists but is not a database, fails SQLite's quick check, or is another version."""
    if not (folder / hi.DB_NAME).is_file():
        return False
    try:
        conn = hi.connect(str(folder))
        try:
            return conn.execute("PRAGMA quick_check").fetchone()[0] != "ok"
        finally:
            conn.close()
    except hi.IndexError_:
        return True  # another index version
    except sqlite3.DatabaseError as exc:  # a busy or locked index is not a damaged one
        return damaged(exc)
    except UnicodeDecodeError:  # damaged pages: SQLite's own message quotes bytes that are not text
        return True


_SQLITE_CORRUPT, _SQLITE_NOTADB = 11, 26  # sqlite3 names them from Python 3.11 on
_DAMAGED_MESSAGES = ("database disk image is malformed", "file is not a database")


def damaged(exc: sqlite3.DatabaseError) -> bool:
    """Whether SQLite's error says the file is damaged or not a database (not busy, locked, ...).

    The error code came to sqlite3's exceptions in Python 3.11; on 3.10 SQLite's
    message for those two codes is all there is.
    """
    code = getattr(exc, "sqlite_errorcode", None)
    if code is None:
        return str(exc) in _DAMAGED_MESSAGES
    return (code & 0xFF) in (_SQLITE_CORRUPT, _SQLITE_NOTADB)
