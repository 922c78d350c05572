"""The search index of a horma workspace: one SQLite FTS5 database, shared by host and sandbox.

Stdlib only (``sqlite3`` ships FTS5 with the ``porter unicode61`` tokenizer
and ``bm25()``), so ``hsearch``/``hindex`` run it inside the sandbox image as
it is and the host's manager writes the same file with the same code.

The database's tables, version and :func:`connect` are in
:mod:`horma.core.index_schema`; this module writes them.

Every change happens in one transaction: a crash leaves the previous state,
and ``sync`` (``hindex``) brings the index up to date with the files.
"""

from __future__ import annotations

import os
import sqlite3
import zlib
from collections.abc import Callable

from horma.core import index_schema as schema
from horma.core import talks
from horma.core import text as ht
from horma.core.dates import query_dates, says_when
from horma.core.index_schema import DB_NAME, ENV, PAGE_SIZE, SCHEMA_VERSION, TOKENIZER, IndexError_, connect
from horma.core.index_vectors import VectorWriter
from horma.core.layout import MANAGER_KINDS, NOTES_DIR, RAW_DIR, RawLines, inside, segment_file
from horma.core.notes import citations, front_matter, note_kind, search_text
from horma.core.own_notes import has_meaning
from horma.core.updates import says_change
from horma.core.vectors import Encoder, embed_text

# The schema's names stay reachable as ``index.X``: the sandbox helpers, the host's index and vector
# modules and the tests use the index module as one namespace (``hi.connect``, ``hi.DB_NAME``).
__all__ = ["DB_NAME", "ENV", "PAGE_SIZE", "SCHEMA_VERSION", "TOKENIZER", "IndexError_", "SearchIndex", "connect"]


class SearchIndex(VectorWriter):
    """Writes to the index; every public method is meant to run inside :meth:`transaction`."""

    def __init__(self, conn: sqlite3.Connection, encoder: Encoder | None = None):
        self.conn = conn
        self.encoder = encoder
        self.embedded = 0  # vectors written through this object
        self._seg_ids: dict[str, int] = {}
        self._actors: set[str] | None = None
        self._written: set[str] = set()  # FTS5 tables written since the last tidy
        self._compact = False  # compact the file after the commit: a rebuild, or vectors re-coded in place

    @classmethod
    def open(cls, folder: str, encoder: Encoder | None = None) -> SearchIndex:
        """``encoder`` embeds every unit indexed through it (the host has one; a sandbox's ``hindex`` has
        none, and the host's next sync embeds what it indexed)."""
        return cls(connect(folder), encoder)

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> SearchIndex:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def transaction(self) -> _Transaction:
        """One write transaction: :meth:`tidy` before its commit, ``index_schema.compact`` after it if due."""
        return _Transaction(self.conn, self.tidy, self._after_commit)

    def _after_commit(self) -> None:
        if self._compact:
            self._compact = False
            schema.compact(self.conn)
        self.link_updates()

    def tidy(self) -> None:
        """Keep the file near its compacted size (``index_schema.compact``) at a bounded cost per transaction.

        Each FTS5 table written since the last tidy merges at most ``MERGE_PAGES`` pages of its segments
        (``index_schema.FTS_OPTIONS``: levels of two; the delete entries of dropped note lines go when a
        merge reaches the rows they delete), and at most ``VACUUM_PAGES`` free pages go back to the file
        system (a file made before incremental auto_vacuum has none to give: ``connect`` VACUUMs it once).
        """
        if self._written:
            # FTS5 writes a transaction's rows as a segment at its commit, too late for this merge, or when
            # a savepoint opens (its xSavepoint flushes them): open one, and the new segment merges now.
            self.conn.execute("SAVEPOINT tidy")
            for fts in sorted(self._written):
                self.conn.execute(f"INSERT INTO {fts}({fts}, rank) VALUES('merge', ?)", (schema.MERGE_PAGES,))
            self.conn.execute("RELEASE tidy")
            self._written.clear()
        free = self.conn.execute("PRAGMA freelist_count").fetchone()[0]
        if free and self.conn.execute("PRAGMA auto_vacuum").fetchone()[0] == 2:
            for _ in range(min(free, schema.VACUUM_PAGES)):  # sqlite3 steps a pragma once: one page per run
                self.conn.execute("PRAGMA incremental_vacuum(1)")

    # -- raw segments ---------------------------------------------------------
    def add_segment(self, rel: str, text: str) -> bool:
        """Index the units of ``raw/<seg>/units.log`` (its whole text); False when already indexed.

        Raw files are append-only, so a segment known at a smaller size gets
        only its new lines; one that shrank or changed under us is refused.
        """
        data = text.encode("utf-8")
        row = self.conn.execute("SELECT id, size, lines FROM segments WHERE path=?", (rel,)).fetchone()
        if row is not None and row[1] == len(data):
            return False
        seg_id, known_lines = (row[0], row[2]) if row else (None, 0)
        if row is not None and (row[1] > len(data)):
            raise IndexError_(f"{rel} shrank since it was indexed: run horma index --rebuild")
        new_segment = seg_id is None
        if seg_id is None:
            cur = self.conn.execute("INSERT INTO segments(path, size, lines) VALUES(?, 0, 0)", (rel,))
            seg_id = int(cur.lastrowid or 0)
        units, bodies, actors = [], [], set()
        offset = 0
        lineno = 0
        for lineno, line in enumerate(text.split("\n"), 1):
            width = len(line.encode("utf-8")) + 1
            if lineno > known_lines:
                unit = ht.parse_unit(line)
                if unit is not None:
                    uid, time, actor, body = unit
                    tokens = ht.words(body)
                    units.append((seg_id, lineno, offset, uid, actor, time, ht.count_tokens(f"{uid} {actor}: {body}"),
                                  zlib.crc32(body.encode("utf-8")), ht.person(tokens), ht.asks(body),
                                  says_when(tokens), says_change(tokens)))
                    bodies.append(body)
                    if actor:
                        actors.add(actor)
            offset += width
        if new_segment:
            talks.assign(self.conn, seg_id, rel, units[0][5] if units else None)
        lines = text.count("\n")  # the archive ends every line with one
        rowids: list[int] = []
        for values, body in zip(units, bodies, strict=True):
            rowid = self.conn.execute(
                "INSERT INTO units(seg, lineno, offset, uid, actor, time, cost, digest, person, asks, says_when, "
                "changes) VALUES(?,?,?,?,?,?,?,?,?,?,?,?)", values).lastrowid
            self.conn.execute("INSERT INTO unit_text(rowid, body) VALUES(?, ?)", (rowid, body))
            self._written.add("unit_text")
            rowids.append(int(rowid or 0))  # an INSERT into a rowid table always sets it
        if self.encoder is not None and rowids and self._vectors_current():
            self._put_vectors(rowids, [embed_text(u[4], b) for u, b in zip(units, bodies, strict=True)])
        self.conn.executemany("INSERT OR IGNORE INTO actors(name) VALUES(?)", [(a,) for a in actors])
        self.conn.execute("UPDATE segments SET size=?, lines=? WHERE id=?", (len(data), lines, seg_id))
        self._seg_ids[rel] = seg_id
        return True

    def fill_flags(self, root: str) -> None:
        """Read the flags an upgrade added to the units indexed before it (``index_schema.FILL_KEY``) from
        raw, once, in a transaction of its own: the links made after its commit read them."""
        if self.conn.execute("SELECT 1 FROM meta WHERE key=?", (schema.FILL_KEY,)).fetchone() is not None:
            with self.transaction():
                self._fill_persons(root)

    def _fill_persons(self, root: str) -> None:
        """The grammatical person (version 5), the question mark (version 7), the time expression
        (version 9) and the change said (version 13) of units indexed before them, read back from raw."""
        missing = self.conn.execute(
            "SELECT u.id, s.path, u.offset FROM units u JOIN segments s ON s.id = u.seg WHERE u.person IS NULL "
            "OR u.asks IS NULL OR u.says_when IS NULL OR u.changes IS NULL ORDER BY u.id").fetchall()
        with RawLines(root) as lines:
            for rowid, path, offset in missing:
                unit = ht.parse_unit(lines.read(path, offset))
                tokens = ht.words(unit[3]) if unit else []
                self.conn.execute("UPDATE units SET person=?, asks=?, says_when=?, changes=? WHERE id=?",
                                  (ht.person(tokens) if unit else ht.NO_PERSON,
                                   ht.asks(unit[3]) if unit else 0, says_when(tokens), says_change(tokens), rowid))
        self.conn.execute("DELETE FROM meta WHERE key=?", (schema.FILL_KEY,))

    # -- notes ----------------------------------------------------------------
    def put_note(self, rel: str, text: str) -> None:
        """(Re)index one note; a line whose text is unchanged keeps its row, even when it moved.

        A page that gains a source grows its front matter and shifts every body
        line: matched by text, those lines only get their new line number.
        A page the manager regenerates (``layout.MANAGER_KINDS``) is indexed only for the lines that date a
        unit they cite ("yesterday = 7 May 2023"): the rest of it points back at raw lines the index holds
        already, and is read as a file (docs/benchmarks.md, session 19). A note without such a line has no row.
        """
        title, sources, body_start = front_matter(text)
        kind = note_kind(rel)
        regenerated = kind in MANAGER_KINDS
        lines = text.split("\n")
        row = self.conn.execute("SELECT id, title FROM notes WHERE path=?", (rel,)).fetchone()
        old: dict[str, list[tuple[int, int]]] = {}  # text -> [(row id, line number)]
        note_id = row[0] if row else None
        if row is not None:
            for lid, n, t in self.conn.execute("SELECT id, lineno, text FROM note_lines WHERE note=?", (note_id,)):
                old.setdefault(t, []).append((lid, n))
            if row[1] != title:  # every row carries the title: re-index them all
                for t, rows in old.items():
                    for lid, _ in rows:
                        self._drop_line(lid, row[1], t)
                old = {}
                self.conn.execute("UPDATE notes SET title=?, kind=? WHERE id=?", (title, kind, note_id))
        single = sources[0] if len(sources) == 1 else None
        moved = []
        added: list[tuple[int, str]] = []  # (row id, text) of the new lines of a note someone wrote
        for n in range(body_start, len(lines)):
            t = lines[n]
            line = t.strip()
            if not line or not any(c.isalnum() for c in line):
                continue
            kept = old.get(t)
            if kept:
                lid, was = kept.pop()
                if was != n + 1:
                    moved.append((n + 1, lid))
                continue
            days = {f"{y:04d}-{mo:02d}" + (f"-{d:02d}" if d else "") for y, mo, d in query_dates(ht.words(t)) if y}
            if regenerated and not days:
                continue
            cited = self._cited_units(t, single)
            # a day the unit was said on is its own time already (units.time): only a date the note adds
            # ("yesterday = 7 May 2023") is worth a row
            dated = [(u, day) for u, when in cited for day in days if not when.startswith(day)]
            if regenerated and not dated:
                continue
            if note_id is None:
                note_id = self.conn.execute("INSERT INTO notes(path, kind, title) VALUES(?,?,?)",
                                            (rel, kind, title)).lastrowid
            lid = self.conn.execute("INSERT INTO note_lines(note, lineno, text) VALUES(?,?,?)",
                                    (note_id, n + 1, t)).lastrowid
            self.conn.execute("INSERT INTO note_text(rowid, title, body) VALUES(?,?,?)", (lid, title, search_text(t)))
            self._written.add("note_text")
            if not regenerated and has_meaning(t):
                added.append((int(lid or 0), t))
            self.conn.executemany("INSERT OR IGNORE INTO cites(line, unit) VALUES(?,?)", [(lid, u) for u, _ in cited])
            self.conn.executemany("INSERT OR IGNORE INTO unit_dates(line, unit, day) VALUES(?,?,?)",
                                  [(lid, u, day) for u, day in dated])
        for t, rows in old.items():  # lines no longer in the note
            for lid, _ in rows:
                self._drop_line(lid, title, t)
        if moved:
            self.conn.executemany("UPDATE note_lines SET lineno=? WHERE id=?", moved)
        if added and self.encoder is not None and self._vectors_current():
            self._put_line_vectors(added)
        if note_id is not None and not self.conn.execute("SELECT 1 FROM note_lines WHERE note=? LIMIT 1",
                                                         (note_id,)).fetchone():
            self.conn.execute("DELETE FROM notes WHERE id=?", (note_id,))

    def remove_note(self, rel: str) -> None:
        row = self.conn.execute("SELECT id, title FROM notes WHERE path=?", (rel,)).fetchone()
        if row is None:
            return
        for lid, t in self.conn.execute("SELECT id, text FROM note_lines WHERE note=?", (row[0],)).fetchall():
            self._drop_line(lid, row[1], t)
        self.conn.execute("DELETE FROM notes WHERE id=?", (row[0],))

    def _drop_line(self, lid: int, title: str, text: str) -> None:
        schema.drop_note_line(self.conn, lid, title, text)
        self._written.add("note_text")

    def _seg_id(self, rel: str) -> int | None:
        sid = self._seg_ids.get(rel)
        if sid is None:
            row = self.conn.execute("SELECT id FROM segments WHERE path=?", (rel,)).fetchone()
            if row is None:
                return None
            sid = self._seg_ids[rel] = row[0]
        return sid

    def _cited_units(self, line: str, single_source: str | None) -> list[tuple[int, str]]:
        """(id, time) of the units a note line cites: ``(raw/<seg>/units.log:N)``, or ``(line N)`` in a
        one-segment note."""
        out = []
        for path, n in citations(line, single_source):
            sid = self._seg_id(path)
            if sid is None:
                continue
            row = self.conn.execute("SELECT id, time FROM units WHERE seg=? AND lineno=?", (sid, n)).fetchone()
            if row is not None:
                out.append((row[0], row[1]))
        return out

    # -- whole workspace --------------------------------------------------------
    def indexed_notes(self) -> set[str]:
        return {r[0] for r in self.conn.execute("SELECT path FROM notes")}

    def sync(self, root: str, rebuild: bool = False, progress: Callable[[int, int], None] | None = None) -> dict:
        """Bring the index up to date with ``raw/`` and ``notes/`` (``hindex``); ``rebuild`` starts empty.

        With an encoder, every unit ends with a vector of its model (``embedded`` counts those written).
        """
        before = self.embedded
        with self.transaction():
            if rebuild:
                for table in ("segments", "units", "actors", "notes", "note_lines", "cites",
                              "unit_dates", "vectors"):
                    self.conn.execute(f"DELETE FROM {table}")
                self._unlink_all()
                for fts in schema.FTS_TABLES:
                    self.conn.execute(f"INSERT INTO {fts}({fts}) VALUES('delete-all')")
                self._seg_ids.clear()
            segments = 0
            known = dict(self.conn.execute("SELECT path, size FROM segments"))
            raw_dir = os.path.join(root, RAW_DIR)
            names = os.listdir(raw_dir) if os.path.isdir(raw_dir) else []
            have = {segment_file(n) for n in names}

            def archived(name: str) -> tuple[str, int]:  # ``x``, ``x-2`` ... ``x-10`` of one minute, in that order
                bare, copy = talks.archive_order(segment_file(name), have.__contains__)
                return bare.split("/")[1], copy

            for seg in sorted(names, key=archived):
                rel = segment_file(seg)
                src = os.path.join(root, rel)
                if inside(root, src) and os.path.isfile(src) and known.get(rel) != os.path.getsize(src):
                    with open(src, encoding="utf-8", errors="replace", newline="") as fh:
                        segments += self.add_segment(rel, fh.read())
            seen = set()
            notes_dir = os.path.join(root, NOTES_DIR)
            for d, dirs, names in os.walk(notes_dir):
                dirs.sort()
                for n in sorted(names):
                    full = os.path.join(d, n)
                    if n.endswith(".md") and inside(root, full) and os.path.isfile(full):
                        rel = os.path.relpath(full, root).replace(os.sep, "/")
                        with open(full, encoding="utf-8", errors="replace", newline="") as fh:
                            self.put_note(rel, fh.read())
                        seen.add(rel)
            gone = self.indexed_notes() - seen
            for rel in sorted(gone):
                self.remove_note(rel)
            self._fill_persons(root)
            self.embed_missing(root, progress)
            if rebuild:  # merge the b-trees a rebuild wrote piecemeal, and give back the pages it freed
                self._written.clear()  # compacted whole after the commit: no merge step before it
                self._compact = True
        return {"segments": segments, "notes": len(seen), "removed": len(gone), "embedded": self.embedded - before}


class _Transaction:
    """BEGIN IMMEDIATE ... COMMIT (ROLLBACK on an exception); nested ones join the outer one. ``before_commit``
    runs inside the outer transaction, so a writer killed during it leaves the previous state too;
    ``after_commit`` after the commit."""

    def __init__(self, conn: sqlite3.Connection, before_commit: Callable[[], None] | None = None,
                 after_commit: Callable[[], None] | None = None):
        self.conn = conn
        self.before_commit = before_commit
        self.after_commit = after_commit
        self.outer = False

    def __enter__(self) -> None:
        self.outer = not self.conn.in_transaction
        if self.outer:
            self.conn.execute("BEGIN IMMEDIATE")

    def __exit__(self, exc_type, *exc: object) -> None:
        if not self.outer:
            return
        if exc_type is None and self.before_commit is not None:
            try:
                self.before_commit()
            except BaseException:
                self.conn.execute("ROLLBACK")
                raise
        self.conn.execute("ROLLBACK" if exc_type else "COMMIT")
        if exc_type is None and self.after_commit is not None:
            self.after_commit()
