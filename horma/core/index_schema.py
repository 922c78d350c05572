"""The search index's database: its tables, its version, and how host and sandbox open it.

Stdlib only, like all of :mod:`horma.core`: ``hsearch`` opens the index
read-only in the sandbox with :func:`connect`; writers go through
:class:`horma.core.index.SearchIndex`.

Layout (``<index dir>/search.db``; the index dir is ``$HORMA_INDEX`` inside
a sandbox, ``<workspace>/.horma/index`` on the host):

- ``segments``/``units``: one row per archived unit (raw segment path, line
  number, byte offset of the line, id, actor, time, context cost in tokens);
  ``unit_text`` is a *contentless* FTS5 table over the unit texts (rowid =
  ``units.id``): the text itself stays in ``raw/``, so the index holds only
  postings and a query reads the lines it prints at their byte offsets.
- ``notes``/``note_lines``/``cites``: one row per note line, the note's kind
  (its folder under ``notes/``: people, entities, topics, sessions; or
  ``timeline``), and the raw units each line cites; ``note_text`` indexes
  every line with its note's title. Note lines keep their text because a
  contentless FTS5 row can only be deleted with the values it was built from.
"""

from __future__ import annotations

import os
import sqlite3

from horma.core.layout import INDEX_ENV

DB_NAME = "search.db"
SCHEMA_VERSION = "5"  # 2: years, unit_dates (date routing); 3: units.digest (repeated texts); 4: vectors; 5: persons
# Versions a write open brings up to date in place: the new tables start empty and ``sync`` fills them.
_UPGRADES = {"3": "5", "4": "5"}
ENV = INDEX_ENV
TOKENIZER = "porter unicode61 remove_diacritics 2"

_SCHEMA = f"""
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS segments(id INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE, size INTEGER NOT NULL,
                                    lines INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS units(id INTEGER PRIMARY KEY, seg INTEGER NOT NULL, lineno INTEGER NOT NULL,
                                 offset INTEGER NOT NULL, uid TEXT NOT NULL, actor TEXT NOT NULL,
                                 time TEXT NOT NULL, cost INTEGER NOT NULL, digest INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS units_by_line ON units(seg, lineno);
CREATE INDEX IF NOT EXISTS units_by_time ON units(time);
CREATE TABLE IF NOT EXISTS actors(name TEXT PRIMARY KEY) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS years(year INTEGER PRIMARY KEY);
CREATE VIRTUAL TABLE IF NOT EXISTS unit_text USING fts5(body, content='', tokenize='{TOKENIZER}');
CREATE TABLE IF NOT EXISTS notes(id INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE, kind TEXT NOT NULL,
                                 title TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS note_lines(id INTEGER PRIMARY KEY, note INTEGER NOT NULL, lineno INTEGER NOT NULL,
                                      text TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS note_lines_by_note ON note_lines(note);
CREATE TABLE IF NOT EXISTS cites(line INTEGER NOT NULL, unit INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS cites_by_line ON cites(line);
CREATE TABLE IF NOT EXISTS unit_dates(line INTEGER NOT NULL, unit INTEGER NOT NULL, day TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS unit_dates_by_day ON unit_dates(day);
CREATE INDEX IF NOT EXISTS unit_dates_by_line ON unit_dates(line);
CREATE VIRTUAL TABLE IF NOT EXISTS note_text USING fts5(title, body, content='', tokenize='{TOKENIZER}');
CREATE TABLE IF NOT EXISTS vectors(unit INTEGER PRIMARY KEY, q BLOB NOT NULL, scale REAL NOT NULL);
CREATE TABLE IF NOT EXISTS persons(unit INTEGER PRIMARY KEY, person INTEGER NOT NULL);
"""


class IndexError_(Exception):
    """The index cannot be opened or is from another version; the message says what to run."""


def connect(folder: str, readonly: bool = False) -> sqlite3.Connection:
    """Open the database; read-only opens never write (no journal, no lock files: the read view is read-only)."""
    path = os.path.join(folder, DB_NAME)
    if readonly:
        if not os.path.isfile(path):
            raise IndexError_(f"no search index at {path} (run hindex in the write view, or horma index --rebuild)")
        uri = "file:" + path.replace("%", "%25").replace("?", "%3f").replace("#", "%23")  # a path, not URI syntax
        if not os.path.isfile(path + "-journal"):
            return sqlite3.connect(f"{uri}?mode=ro&immutable=1", uri=True, isolation_level=None)
        # A journal: a writer is mid-transaction or was killed in one, and the file may hold its
        # half-written pages. An immutable open would read them; a plain read-only one honours the
        # journal (waits for a live writer, refuses one that a killed writer left behind).
        conn = sqlite3.connect(f"{uri}?mode=ro", uri=True, isolation_level=None)
        try:
            conn.execute("SELECT count(*) FROM meta").fetchone()
        except sqlite3.DatabaseError as exc:
            conn.close()
            why = ("was left mid-update by a writer that stopped" if "readonly" in str(exc)
                   else f"cannot be read ({exc})")
            raise IndexError_(f"{path} {why}: run hindex in the write view, or horma index") from None
    else:
        os.makedirs(folder, exist_ok=True)
        conn = sqlite3.connect(path, isolation_level=None, timeout=30)
        try:
            conn.execute("PRAGMA journal_mode=DELETE")  # one file at rest: a read-only view can open it
            # No fsync: a killed process still leaves a journal that rolls its transaction back; only
            # an OS crash could damage the file, and the index is derived: horma index --rebuild.
            conn.execute("PRAGMA synchronous=OFF")
            conn.executescript(_SCHEMA)
            row = conn.execute("SELECT value FROM meta WHERE key='version'").fetchone()
            if row is None:
                conn.execute("INSERT INTO meta VALUES('version', ?)", (SCHEMA_VERSION,))
            elif row[0] in _UPGRADES:
                conn.execute("UPDATE meta SET value=? WHERE key='version'", (SCHEMA_VERSION,))
            elif row[0] != SCHEMA_VERSION:
                raise IndexError_(f"{path} is index version {row[0]}, this horma writes {SCHEMA_VERSION}: "
                                  "run horma index --rebuild")
        except BaseException:
            conn.close()
            raise
    return conn
