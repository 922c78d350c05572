"""The workspace's search index on the host: the same SQLite FTS5 code the sandbox helpers run.

``sandbox/bin/hormaindex.py`` is stdlib-only so that ``hsearch`` and ``hindex``
run it inside the sandbox image; the host loads that very file, so what the
manager writes is read with exactly the schema and tokenizer that built it.
"""

from __future__ import annotations

import importlib.util
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from types import ModuleType

from horma.resources import SANDBOX_BIN
from horma.sandbox.views import index_dir
from horma.workspace import Workspace, WorkspaceError

@lru_cache(maxsize=1)
def index_module() -> ModuleType:
    """``hormaindex`` loaded from the sandbox helpers (one copy of the index code for host and sandbox)."""
    path = SANDBOX_BIN / "hormaindex.py"
    spec = importlib.util.spec_from_file_location("horma_sandbox_hormaindex", path)
    if spec is None or spec.loader is None:
        raise WorkspaceError(f"{path}: the sandbox helper module is missing")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def index_folder(workspace: Workspace) -> Path:
    return index_dir(workspace.root)


@contextmanager
def open_index(workspace: Workspace, readonly: bool = False) -> Iterator:
    """The workspace's index for writing (a ``SearchIndex``) or, with ``readonly``, a ``Searcher``."""
    hi = index_module()
    folder = str(index_folder(workspace))
    try:
        if readonly:
            conn = hi.connect(folder, readonly=True)
            try:
                yield hi.Searcher(conn)
            finally:
                conn.close()
        else:
            with hi.SearchIndex.open(folder) as idx:
                yield idx
    except hi.IndexError_ as exc:
        raise WorkspaceError(str(exc)) from None
    except sqlite3.DatabaseError as exc:
        raise WorkspaceError(f"{folder}: search index unreadable ({exc}); run horma index --rebuild") from None
    except OSError as exc:
        raise WorkspaceError(f"{folder}: cannot open the search index ({exc.strerror or exc})") from None


def rebuild(workspace: Workspace, full: bool = True) -> dict:
    """Index every raw segment and note (from scratch with ``full``), under the writer lock.

    A full rebuild replaces a file it cannot use (not a database, damaged, or
    another index version) instead of failing on it: that is what it is for.
    """
    with workspace.writer():
        folder = index_folder(workspace)
        try:
            if full and _unusable(folder):
                for name in (index_module().DB_NAME, index_module().DB_NAME + "-journal"):
                    (folder / name).unlink(missing_ok=True)
        except OSError as exc:
            raise WorkspaceError(f"{folder}: cannot replace the search index ({exc.strerror or exc})") from None
        with open_index(workspace) as idx:
            return idx.sync(str(workspace.root), rebuild=full)


def _unusable(folder) -> bool:
    """The index file exists but is not a database, fails SQLite's quick check, or is another version."""
    hi = index_module()
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
        return (exc.sqlite_errorcode & 0xFF) in (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB)
