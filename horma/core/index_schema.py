"""The search index's database: its tables, its version, and how host and sandbox open it.

Stdlib only, like all of :mod:`horma.core`: ``hsearch`` opens the index
read-only in the sandbox with :func:`connect`; writers go through
:class:`horma.core.index.SearchIndex`.

Layout (``<index dir>/search.db``; the index dir is ``$HORMA_INDEX`` inside
a sandbox, ``<workspace>/.horma/index`` on the host):

- ``segments``/``units``: one row per archived unit (raw segment path, line
  number, byte offset of the line, id, actor, time, context cost in tokens);
  a segment's ``talk`` is the conversation it belongs to (``horma.core.talks``);
  ``unit_text`` is a *contentless* FTS5 table over the unit texts (rowid =
  ``units.id``): the text itself stays in ``raw/``, so the index holds only
  postings and a query reads the lines it prints at their byte offsets.
- ``notes``/``note_lines``/``cites``: one row per note line, the note's kind
  (its folder under ``notes/``), and the raw units each line cites; every
  line of a note someone wrote, and of a page the manager regenerates
  (people, entities, topics, sessions, timeline, state) only the lines that
  date a unit they cite (``unit_dates``); ``note_text`` indexes them, without
  their citations, with their note's title. Note lines keep their text
  because a contentless FTS5 row can only be deleted with the values it was
  built from. A line of a note someone wrote also keeps its sentence vector
  (``q``, the vectors' code; NULL until the host embeds it): such a line is
  found by meaning too (``hsearch --own``).
- ``vectors``: one sentence vector per unit, 4 bits a dimension, ``scale`` 0 (the codec named
  in ``meta`` as ``vector_codec``; an index without it holds the int8 code of
  versions 4-7, which the host's next write re-codes: ``horma.vector_codec``);
  ``units.person`` the grammatical person of its text (``persons`` is a view of it).
- ``updates``: for a unit, the latest later unit of its actor that is much like it
  (``horma.update_links``, written by the host with the vectors; ``links`` in ``meta`` says
  every vector has been linked).

Size (issue 19; docs/benchmarks.md, "index size"): pages of :data:`PAGE_SIZE`,
and no rowid table beside an index of it where a key does (``WITHOUT ROWID``);
FTS5 segments merged and free pages handed back as it is written
(:data:`MERGE_PAGES`, incremental auto_vacuum), compacted whole by :func:`compact`.
"""

from __future__ import annotations

import os
import sqlite3

from horma.core import talks
from horma.core.layout import INDEX_ENV, MANAGER_KINDS
from horma.core.notes import search_text
from horma.core.vectors import RULE_KEY

DB_NAME = "search.db"
# 2: years, unit_dates (date routing); 3: units.digest (repeated texts); 4: vectors; 5: persons;
# 6: smaller (2 KB pages, the person a column of units, cites and unit_dates keyed without a rowid);
# 7: units.asks (a turn that ends in a question); 8: vectors at 4 bits, the codec in meta;
# 9: units.says_when (a turn that holds a time expression); 10: updates (a unit's latest later likeness);
# 11: segments.talk (the conversation a segment belongs to: horma.core.talks); 12: note lines searched
# without their citations (horma.core.notes.search_text), vectors without their step (scale 0);
# 13: units.changes (a turn that says something changed: horma.core.updates.says_change); 14: of a page
# the manager regenerates, only the lines that date a unit (horma.core.index.SearchIndex.put_note), and
# no years table (horma.core.search.Searcher._years reads them off the time index); 15: note_lines.q, the
# vector of a line of a note someone wrote (horma.core.index_vectors: found by meaning, hsearch --own)
SCHEMA_VERSION = "15"
# Versions a write open brings up to date in place (:func:`_upgrade`): new tables start empty and ``sync``
# fills them; the rows of the old ones are kept (a vector is never embedded twice; 8's 4-bit code is made
# from an older index's int8 rows by the host's next write, which has numpy: a sandbox's hindex has not).
_UPGRADES = {v: SCHEMA_VERSION for v in ("3", "4", "5", "6", "7", "8", "9", "10", "11", "12", "13", "14")}
ENV = INDEX_ENV
FILL_KEY = "fill_flags"  # in meta while units indexed before a column came have it NULL
TOKENIZER = "porter unicode61 remove_diacritics 2"
# Bytes a database page holds. A workspace of a few sessions pays about 25 b-trees of at least a page
# each (tables, their indexes, FTS5's shadow tables): at SQLite's default 4 KB that fixed cost alone was
# larger than the raw text of a small workspace. 2 KB halves it and still holds nine 4-bit vectors a page
# (1 KB would hold four: a fifth of every page empty). Set when the file is made, and by every VACUUM
# (a rebuild, an upgrade).
PAGE_SIZE = 2048
# Keeping the index near its compacted size while it is written piecemeal (issue 19, "index size"): every
# write transaction leaves a new FTS5 segment per table it touched (and, for rewritten note lines, delete
# entries that stay until a merge reaches the oldest segment). After it, a writer merges at most MERGE_PAGES
# pages of segments (FTS5 'merge'), on any level that holds ``usermerge`` = 2 of them: a binary counter,
# about log2(transactions) segments, bounded work per transaction. Not a negative 'merge' (every segment,
# down to one): up to SQLite 3.4x each such merge stacks one more level, and 2,000 transactions later
# FTS5 reads its own structure as corrupt. A file made with ``auto_vacuum=INCREMENTAL`` hands pages back:
# at most VACUUM_PAGES free pages per transaction (:meth:`horma.core.index.SearchIndex.tidy`).
MERGE_PAGES = 64
VACUUM_PAGES = 256
FTS_TABLES = ("unit_text", "note_text")
FTS_OPTIONS = {"usermerge": 2}  # FTS5 keeps them in its config table: set when the file is made, and by compact

_SCHEMA = f"""
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS segments(id INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE, size INTEGER NOT NULL,
                                    lines INTEGER NOT NULL, talk INTEGER);
CREATE TABLE IF NOT EXISTS units(id INTEGER PRIMARY KEY, seg INTEGER NOT NULL, lineno INTEGER NOT NULL,
                                 offset INTEGER NOT NULL, uid TEXT NOT NULL, actor TEXT NOT NULL,
                                 time TEXT NOT NULL, cost INTEGER NOT NULL, digest INTEGER NOT NULL,
                                 person INTEGER, asks INTEGER, says_when INTEGER,
                                 changes INTEGER);
CREATE INDEX IF NOT EXISTS units_by_line ON units(seg, lineno);
CREATE INDEX IF NOT EXISTS units_by_time ON units(time);
CREATE VIEW IF NOT EXISTS persons(unit, person) AS SELECT id, person FROM units WHERE person IS NOT NULL;
CREATE TABLE IF NOT EXISTS actors(name TEXT PRIMARY KEY) WITHOUT ROWID;
CREATE VIRTUAL TABLE IF NOT EXISTS unit_text USING fts5(body, content='', tokenize='{TOKENIZER}');
CREATE TABLE IF NOT EXISTS notes(id INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE, kind TEXT NOT NULL,
                                 title TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS note_lines(id INTEGER PRIMARY KEY, note INTEGER NOT NULL, lineno INTEGER NOT NULL,
                                      text TEXT NOT NULL, q BLOB);
CREATE INDEX IF NOT EXISTS note_lines_by_note ON note_lines(note);
CREATE TABLE IF NOT EXISTS cites(line INTEGER NOT NULL, unit INTEGER NOT NULL, PRIMARY KEY(line, unit)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS unit_dates(day TEXT NOT NULL, unit INTEGER NOT NULL, line INTEGER NOT NULL,
                                      PRIMARY KEY(day, unit, line)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS unit_dates_by_line ON unit_dates(line);
CREATE VIRTUAL TABLE IF NOT EXISTS note_text USING fts5(title, body, content='', tokenize='{TOKENIZER}');
CREATE TABLE IF NOT EXISTS vectors(unit INTEGER PRIMARY KEY, q BLOB NOT NULL, scale REAL NOT NULL);
CREATE TABLE IF NOT EXISTS updates(unit INTEGER PRIMARY KEY, later INTEGER NOT NULL);
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
            conn.execute(f"PRAGMA page_size={PAGE_SIZE}")  # a new file only (and the next VACUUM)
            conn.execute("PRAGMA auto_vacuum=INCREMENTAL")  # likewise
            conn.execute("PRAGMA journal_mode=DELETE")  # one file at rest: a read-only view can open it
            # No fsync: a killed process still leaves a journal that rolls its transaction back; only
            # an OS crash could damage the file, and the index is derived: horma index --rebuild.
            conn.execute("PRAGMA synchronous=OFF")
            try:
                row = conn.execute("SELECT value FROM meta WHERE key='version'").fetchone()
            except sqlite3.OperationalError:  # a new file: no tables yet
                row = None
            if row is not None and row[0] in _UPGRADES:
                _upgrade(conn, row[0])
            elif row is not None and row[0] != SCHEMA_VERSION:
                raise IndexError_(f"{path} is index version {row[0]}, this horma writes {SCHEMA_VERSION}: "
                                  "run horma index --rebuild")
            conn.executescript(_SCHEMA)
            if row is None:
                conn.execute("INSERT INTO meta VALUES('version', ?)", (SCHEMA_VERSION,))
                _fts_options(conn)
            elif conn.execute("PRAGMA auto_vacuum").fetchone()[0] == 0:  # made before auto_vacuum: once
                compact(conn)
        except BaseException:
            conn.close()
            raise
    return conn


def _table_sql(conn: sqlite3.Connection, name: str) -> str:
    row = conn.execute("SELECT type, sql FROM sqlite_master WHERE name=?", (name,)).fetchone()
    return f"{row[0]} {row[1]}" if row else ""


def _upgrade(conn: sqlite3.Connection, version: str) -> None:
    """Bring an index of an older version (``_UPGRADES``) to this one in place, keeping every row.

    A version 7 to 10 file is not rewritten here: the host's next write re-codes a version 7 file's int8
    vectors and compacts the file then, and links every vector of a file from before 10, whose ``updates``
    start empty (``horma.core.index.SearchIndex._vectors_current``).
    Versions 7 and 9 added ``units.asks`` and ``units.says_when`` (the next sync fills them from raw), 11
    ``segments.talk`` (filled here, from the segments and their units' times); 12 indexes the note lines
    again without their citations (here, from ``note_lines``) and zeroes the vectors' steps, and the file
    is compacted after it; 13 added ``units.changes`` (the next sync fills it, and the host's next write
    links every unit again: ``horma.core.vectors.RULE``); 14 keeps, of the pages the manager regenerates,
    only the lines that date a unit (here; the file is compacted after it); 15 added ``note_lines.q`` (the
    host's next write embeds the lines of notes someone wrote; nothing to compact).
    Version 6 moved each unit's person into ``units``, keyed ``meta``, ``cites`` and ``unit_dates`` without
    a rowid, and pages of :data:`PAGE_SIZE`: the tables are copied over in one transaction and the file is
    rewritten (VACUUM) after it. Each step checks the table it changes, so a version
    that never had the table (persons came in 5, vectors in 4) simply gets it from the schema.
    """
    conn.execute("BEGIN IMMEDIATE")
    try:
        recreate = {"meta": "key, value", "cites": "line, unit", "unit_dates": "day, unit, line"}
        for table, cols in recreate.items():
            sql = _table_sql(conn, table)
            if sql and "WITHOUT ROWID" not in sql.upper():
                conn.execute(f"ALTER TABLE {table} RENAME TO old_{table}")
                for stmt in _SCHEMA.split(";"):  # its CREATE TABLE (and index) from this version's schema
                    if f" {table}(" in stmt or f"ON {table}(" in stmt:
                        conn.execute(stmt)
                conn.execute(f"INSERT OR IGNORE INTO {table}({cols}) SELECT {cols} FROM old_{table}")
                conn.execute(f"DROP TABLE old_{table}")  # its old indexes go with it
        units = _table_sql(conn, "units")
        if units and "person" not in units:
            conn.execute("ALTER TABLE units ADD COLUMN person INTEGER")
        columns = {r[1] for r in conn.execute("PRAGMA table_info(units)")}
        for column in ("asks", "says_when", "changes"):  # 7, 9 and 13: filled from raw by the host's next
            if units and column not in columns:  # write open (SearchIndex.fill_flags)
                conn.execute(f"ALTER TABLE units ADD COLUMN {column} INTEGER")
                conn.execute("INSERT OR REPLACE INTO meta VALUES(?, '1')", (FILL_KEY,))
        segments = _table_sql(conn, "segments")
        if segments and "talk" not in segments:  # 11: every segment's talk, from the rows as they are
            conn.execute("ALTER TABLE segments ADD COLUMN talk INTEGER")
            talks.assign_all(conn)
            if not conn.execute("SELECT 1 FROM segments WHERE talk != id LIMIT 1").fetchone():
                # a talk a segment: the links of version 10 are the ones rule 2 makes, kept (a relink of
                # 10^5 units takes minutes); an archive recorded a message at a time is linked anew
                conn.execute("INSERT OR REPLACE INTO meta VALUES(?, ?)", (RULE_KEY, "2"))
        if _table_sql(conn, "persons").startswith("table"):
            conn.execute("UPDATE units SET person = (SELECT p.person FROM persons p WHERE p.unit = units.id)")
            conn.execute("DROP TABLE persons")
        if int(version) < 12 and _table_sql(conn, "vectors"):  # 12: a step cancels in the reader's renormalization
            conn.execute("UPDATE vectors SET scale=0 WHERE scale != 0")
        if int(version) < 12 and _table_sql(conn, "note_text"):  # 12: every note line indexed again, uncited
            conn.execute("INSERT INTO note_text(note_text) VALUES('delete-all')")
            conn.executemany("INSERT INTO note_text(rowid, title, body) VALUES(?, ?, ?)", (
                (lid, title, search_text(text)) for lid, title, text in conn.execute(
                    "SELECT l.id, n.title, l.text FROM note_lines l JOIN notes n ON n.id = l.note").fetchall()))
        if int(version) < 14 and _table_sql(conn, "note_lines"):  # 14: a regenerated page keeps its dating lines
            kinds = ",".join(f"'{k}'" for k in sorted(MANAGER_KINDS))
            for lid, title, text in conn.execute(
                    "SELECT l.id, n.title, l.text FROM note_lines l JOIN notes n ON n.id = l.note "
                    f"WHERE n.kind IN ({kinds}) AND NOT EXISTS (SELECT 1 FROM unit_dates d WHERE d.line = l.id)"
                    ).fetchall():
                drop_note_line(conn, lid, title, text)
            conn.execute("DELETE FROM notes WHERE id NOT IN (SELECT note FROM note_lines)")
        conn.execute("DROP TABLE IF EXISTS years")  # 14: the time index steps through the years
        lines = _table_sql(conn, "note_lines")
        if lines and " q BLOB" not in lines:  # 15: filled by the host's next write (embed_missing)
            conn.execute("ALTER TABLE note_lines ADD COLUMN q BLOB")
        conn.execute("UPDATE meta SET value=? WHERE key='version'", (SCHEMA_VERSION,))
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    if version not in ("7", "8", "9", "10", "14"):
        compact(conn)


def drop_note_line(conn: sqlite3.Connection, lid: int, title: str, text: str) -> None:
    """One note line out of the index: its postings (deleted with the values they were built from), its row,
    the units it cites and the dates it anchors. In the caller's transaction."""
    conn.execute("INSERT INTO note_text(note_text, rowid, title, body) VALUES('delete', ?, ?, ?)",
                 (lid, title, search_text(text)))
    conn.execute("DELETE FROM note_lines WHERE id=?", (lid,))
    conn.execute("DELETE FROM cites WHERE line=?", (lid,))
    conn.execute("DELETE FROM unit_dates WHERE line=?", (lid,))


def compact(conn: sqlite3.Connection) -> None:
    """Rewrite the file at its smallest, outside a transaction: each FTS5 table merged into one segment
    ('optimize'), then VACUUM, which also brings the page size and incremental auto_vacuum to a file made
    without them. A rebuild and an upgrade end with it; a writer keeps the file near it (``tidy``)."""
    have = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    for fts in FTS_TABLES:
        if fts in have:
            conn.execute(f"INSERT INTO {fts}({fts}) VALUES('optimize')")
    _fts_options(conn)
    conn.execute(f"PRAGMA page_size={PAGE_SIZE}")
    conn.execute("PRAGMA auto_vacuum=INCREMENTAL")
    conn.execute("VACUUM")


def _fts_options(conn: sqlite3.Connection) -> None:
    """FTS5's merge options (kept in its config table): set when the file is made and by ``compact``."""
    have = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    for fts in FTS_TABLES:
        if fts in have:
            for key, value in FTS_OPTIONS.items():
                conn.execute(f"INSERT INTO {fts}({fts}, rank) VALUES(?, ?)", (key, value))
