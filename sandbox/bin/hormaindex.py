"""The search index of a horma workspace: one SQLite FTS5 database, shared by host and sandbox.

Stdlib only (``sqlite3`` ships FTS5 with the ``porter unicode61`` tokenizer
and ``bm25()``), so ``hsearch``/``hindex`` run it inside the sandbox image as
it is and the host's manager writes the same file with the same code.

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

Every change happens in one transaction: a crash leaves the previous state,
and ``sync`` (``hindex``) brings the index up to date with the files.
"""

from __future__ import annotations

import errno
import os
import sqlite3
import sys
import zlib

sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
import hormatext as ht  # noqa: E402

DB_NAME = "search.db"
SCHEMA_VERSION = "3"  # 2: years and unit_dates (date routing); 3: units.digest (repeated texts)
ENV = "HORMA_INDEX"
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
"""


class IndexError_(Exception):
    """The index cannot be opened or is from another version; the message says what to run."""


def workspace_root() -> str:
    """The workspace a helper runs in: the nearest folder up from the cwd holding raw/ or .horma/."""
    d = os.getcwd()
    while True:
        if os.path.isdir(os.path.join(d, "raw")) or os.path.isdir(os.path.join(d, ".horma")):
            return d
        parent = os.path.dirname(d)
        if parent == d:
            return os.environ.get("HOME", ".")
        d = parent


def index_dir(root: str) -> str:
    """Where the index lives: ``$HORMA_INDEX`` (set inside sandboxes) or ``<root>/.horma/index``."""
    return os.environ.get(ENV) or os.path.join(root, ".horma", "index")


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
            elif row[0] != SCHEMA_VERSION:
                raise IndexError_(f"{path} is index version {row[0]}, this horma writes {SCHEMA_VERSION}: "
                                  "run horma index --rebuild")
        except BaseException:
            conn.close()
            raise
    return conn


class SearchIndex:
    """Writes to the index; every public method is meant to run inside :meth:`transaction`."""

    def __init__(self, conn: sqlite3.Connection):
        self.conn = conn
        self._seg_ids: dict[str, int] = {}
        self._actors: set[str] | None = None

    @classmethod
    def open(cls, folder: str) -> "SearchIndex":
        return cls(connect(folder))

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> "SearchIndex":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def transaction(self) -> "_Transaction":
        return _Transaction(self.conn)

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
        if seg_id is None:
            seg_id = self.conn.execute("INSERT INTO segments(path, size, lines) VALUES(?, 0, 0)", (rel,)).lastrowid
        units, bodies, actors = [], [], set()
        offset = 0
        lineno = 0
        for lineno, line in enumerate(text.split("\n"), 1):
            width = len(line.encode("utf-8")) + 1
            if lineno > known_lines:
                unit = ht.parse_unit(line)
                if unit is not None:
                    uid, time, actor, body = unit
                    units.append((seg_id, lineno, offset, uid, actor, time, ht.count_tokens(f"{uid} {actor}: {body}"),
                                  zlib.crc32(body.encode("utf-8"))))
                    bodies.append(body)
                    if actor:
                        actors.add(actor)
            offset += width
        lines = text.count("\n")  # the archive ends every line with one
        for values, body in zip(units, bodies):
            rowid = self.conn.execute(
                "INSERT INTO units(seg, lineno, offset, uid, actor, time, cost, digest) VALUES(?,?,?,?,?,?,?,?)", values
            ).lastrowid
            self.conn.execute("INSERT INTO unit_text(rowid, body) VALUES(?, ?)", (rowid, body))
        self.conn.executemany("INSERT OR IGNORE INTO actors(name) VALUES(?)", [(a,) for a in actors])
        years = {u[5][:4] for u in units if u[5][:4].isdigit()}
        self.conn.executemany("INSERT OR IGNORE INTO years(year) VALUES(?)", [(int(y),) for y in years])
        self.conn.execute("UPDATE segments SET size=?, lines=? WHERE id=?", (len(data), lines, seg_id))
        self._seg_ids[rel] = seg_id
        return True

    # -- notes ----------------------------------------------------------------
    def put_note(self, rel: str, text: str) -> None:
        """(Re)index one note; a line whose text is unchanged keeps its row, even when it moved.

        A page that gains a source grows its front matter and shifts every body
        line: matched by text, those lines only get their new line number.
        """
        title, sources, body_start = _front_matter(text)
        kind = note_kind(rel)
        lines = text.split("\n")
        row = self.conn.execute("SELECT id, title FROM notes WHERE path=?", (rel,)).fetchone()
        old: dict[str, list[tuple[int, int]]] = {}  # text -> [(row id, line number)]
        if row is None:
            note_id = self.conn.execute("INSERT INTO notes(path, kind, title) VALUES(?,?,?)",
                                        (rel, kind, title)).lastrowid
        else:
            note_id = row[0]
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
        for n in range(body_start, len(lines)):
            t = lines[n]
            line = t.strip()
            if not line or not any(c.isalnum() for c in line):
                continue
            rows = old.get(t)
            if rows:
                lid, was = rows.pop()
                if was != n + 1:
                    moved.append((n + 1, lid))
                continue
            lid = self.conn.execute("INSERT INTO note_lines(note, lineno, text) VALUES(?,?,?)",
                                    (note_id, n + 1, t)).lastrowid
            self.conn.execute("INSERT INTO note_text(rowid, title, body) VALUES(?,?,?)", (lid, title, t))
            cited = self._cited_units(t, single)
            if cited:
                self.conn.executemany("INSERT INTO cites(line, unit) VALUES(?,?)", [(lid, u) for u in cited])
                days = {f"{y:04d}-{mo:02d}" + (f"-{d:02d}" if d else "")
                        for y, mo, d in query_dates(ht.words(t)) if y}
                self.conn.executemany("INSERT INTO unit_dates(line, unit, day) VALUES(?,?,?)",
                                      [(lid, u, day) for u in cited for day in days])
        for t, rows in old.items():  # lines no longer in the note
            for lid, _ in rows:
                self._drop_line(lid, title, t)
        if moved:
            self.conn.executemany("UPDATE note_lines SET lineno=? WHERE id=?", moved)

    def remove_note(self, rel: str) -> None:
        row = self.conn.execute("SELECT id, title FROM notes WHERE path=?", (rel,)).fetchone()
        if row is None:
            return
        for lid, t in self.conn.execute("SELECT id, text FROM note_lines WHERE note=?", (row[0],)).fetchall():
            self._drop_line(lid, row[1], t)
        self.conn.execute("DELETE FROM notes WHERE id=?", (row[0],))

    def _drop_line(self, lid: int, title: str, text: str) -> None:
        self.conn.execute("INSERT INTO note_text(note_text, rowid, title, body) VALUES('delete', ?, ?, ?)",
                          (lid, title, text))
        self.conn.execute("DELETE FROM note_lines WHERE id=?", (lid,))
        self.conn.execute("DELETE FROM cites WHERE line=?", (lid,))
        self.conn.execute("DELETE FROM unit_dates WHERE line=?", (lid,))

    def _seg_id(self, rel: str) -> int | None:
        sid = self._seg_ids.get(rel)
        if sid is None:
            row = self.conn.execute("SELECT id FROM segments WHERE path=?", (rel,)).fetchone()
            if row is None:
                return None
            sid = self._seg_ids[rel] = row[0]
        return sid

    def _cited_units(self, line: str, single_source: str | None) -> list[int]:
        """Units a note line cites: ``(raw/<seg>/units.log:N)``, or ``(line N)`` in a one-segment note."""
        out = []
        for path, n in _citations(line, single_source):
            sid = self._seg_id(path)
            if sid is None:
                continue
            row = self.conn.execute("SELECT id FROM units WHERE seg=? AND lineno=?", (sid, n)).fetchone()
            if row is not None:
                out.append(row[0])
        return out

    # -- whole workspace --------------------------------------------------------
    def indexed_notes(self) -> set[str]:
        return {r[0] for r in self.conn.execute("SELECT path FROM notes")}

    def sync(self, root: str, rebuild: bool = False) -> dict:
        """Bring the index up to date with ``raw/`` and ``notes/`` (``hindex``); ``rebuild`` starts empty."""
        with self.transaction():
            if rebuild:
                for table in ("segments", "units", "actors", "years", "notes", "note_lines", "cites",
                              "unit_dates"):
                    self.conn.execute(f"DELETE FROM {table}")
                for fts in ("unit_text", "note_text"):
                    self.conn.execute(f"INSERT INTO {fts}({fts}) VALUES('delete-all')")
                self._seg_ids.clear()
            segments = 0
            known = dict(self.conn.execute("SELECT path, size FROM segments"))
            raw_dir = os.path.join(root, "raw")
            for seg in sorted(os.listdir(raw_dir)) if os.path.isdir(raw_dir) else []:
                src = os.path.join(raw_dir, seg, "units.log")
                rel = f"raw/{seg}/units.log"
                if _inside(root, src) and os.path.isfile(src) and known.get(rel) != os.path.getsize(src):
                    with open(src, encoding="utf-8", errors="replace", newline="") as fh:
                        segments += self.add_segment(rel, fh.read())
            seen = set()
            notes_dir = os.path.join(root, "notes")
            for d, dirs, names in os.walk(notes_dir):
                dirs.sort()
                for n in sorted(names):
                    full = os.path.join(d, n)
                    if n.endswith(".md") and _inside(root, full) and os.path.isfile(full):
                        rel = os.path.relpath(full, root).replace(os.sep, "/")
                        with open(full, encoding="utf-8", errors="replace", newline="") as fh:
                            self.put_note(rel, fh.read())
                        seen.add(rel)
            gone = self.indexed_notes() - seen
            for rel in sorted(gone):
                self.remove_note(rel)
        if rebuild:  # merge the b-trees a rebuild wrote piecemeal, and give back the pages it freed
            for fts in ("unit_text", "note_text"):
                self.conn.execute(f"INSERT INTO {fts}({fts}) VALUES('optimize')")
            self.conn.execute("VACUUM")
        return {"segments": segments, "notes": len(seen), "removed": len(gone)}


class _Transaction:
    def __init__(self, conn: sqlite3.Connection):
        self.conn = conn
        self.outer = False

    def __enter__(self) -> None:
        self.outer = not self.conn.in_transaction
        if self.outer:
            self.conn.execute("BEGIN IMMEDIATE")

    def __exit__(self, exc_type, *exc: object) -> None:
        if not self.outer:
            return
        self.conn.execute("ROLLBACK" if exc_type else "COMMIT")


def note_kind(rel: str) -> str:
    """``notes/people/ada.md`` -> ``people``; ``notes/timeline.md`` -> ``timeline``."""
    parts = rel.split("/")
    if len(parts) >= 3:
        return parts[1]
    return parts[-1][:-3] if parts[-1].endswith(".md") else parts[-1]


def _unquote(value: str) -> str:
    """A front-matter scalar: JSON-quoted (what Note.render writes), YAML single-quoted, or plain."""
    value = value.strip()
    if value.startswith('"'):
        import json  # only writers parse front matter; a search never imports it

        try:
            return str(json.loads(value))
        except ValueError:
            return value.strip('"')
    if len(value) >= 2 and value[0] == value[-1] == "'":
        return value[1:-1].replace("''", "'")
    return value


def _front_matter(text: str) -> tuple[str, list[str], int]:
    """(title, raw source paths, index of the first body line) of a note; tolerant of hand edits."""
    lines = text.split("\n")
    if not lines or lines[0].strip() != "---":
        return "", [], 0
    title, sources = "", []
    for i in range(1, len(lines)):
        line = lines[i]
        if line.strip() == "---":
            return title, sources, i + 1
        if line.startswith("title:"):
            title = _unquote(line[6:])
        else:
            s = line.strip()
            if s.startswith("- path:"):
                sources.append(_unquote(s[7:]))
    return title, [], 0  # no closing line: the whole file is body


def _citations(line: str, single_source: str | None) -> list[tuple[str, int]]:
    out = []
    start = 0
    while True:
        i = line.find("raw/", start)
        if i < 0:
            break
        j = line.find("/units.log:", i)
        if j < 0:
            break
        k = j + len("/units.log:")
        e = k
        while e < len(line) and line[e].isdigit():
            e += 1
        if e > k and " " not in line[i:j]:
            out.append((line[i:j] + "/units.log", int(line[k:e])))
        start = max(e, i + 4)
    if single_source and not out:
        i = line.find("(line ")
        if i >= 0:
            k = i + 6
            e = k
            while e < len(line) and line[e].isdigit():
                e += 1
            if e > k:
                out.append((single_source, int(line[k:e])))
    return out


# -- searching ------------------------------------------------------------------
# Ranking weights. A reply usually answers the turn before it, so a turn also
# scores from its neighbours; sessions about the query lift their turns; a
# question naming a speaker leans toward that speaker's own turns; a note line
# that matches the query lends its score to the raw lines it cites.
PREV_WEIGHT = 0.7
NEXT_WEIGHT = 0.3
SESSION_WEIGHT = 1.5
SPEAKER_BOOST = 1.2
DATE_WEIGHT = 1.0
EXPAND_SESSIONS = 30  # after the matches, the rest of the best sessions (their other turns give context)
RECENCY = 0.3  # "latest", "currently", "still": later turns lean ahead (a knowledge update)
_LATEST = frozenset(("latest", "current", "currently", "now", "recent", "recently", "newest", "anymore", "still"))
MATCH_LIMIT = 2000  # best BM25 matches a query considers: its cost stays flat as the archive grows
DATE_CAP = 400  # a date naming more units than this (a whole busy month) only re-ranks matches
COST_POWER = 0.5
# Note layers: "dates" are the dates notes anchor ("yesterday = 7 May 2023"), each tied to the raw
# units the note line cites; the folder names lend a matching note line's score to the units it cites.
# Measured on both dev splits (docs/benchmarks.md, "note layers"): dates help LoCoMo's dated questions
# and change nothing where no question names a date; lending words dilutes the ranking (people,
# topics, sessions: LoCoMo -0.01 to -0.15 at 300 tokens) or helps LoCoMo a little and hurts
# LongMemEval (entities: +0.008 / -0.015), so only dates are on by default.
LAYERS = ("dates", "people", "entities", "topics", "sessions", "timeline")
DEFAULT_LAYERS = ("dates",)
LEND_WEIGHT = 0.2


MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
          "november", "december")
_MONTH = {m: i + 1 for i, m in enumerate(MONTHS)}
_MONTH.update({m[:3]: i + 1 for i, m in enumerate(MONTHS) if m != "may"})
_MONTH["sept"] = 9
_VERBS = frozenset(("may", "march", "mar"))
_BEFORE_MONTH = frozenset(("in", "of", "during", "since", "until", "early", "late", "mid", "last", "this", "next"))


def _year(w: str) -> int | None:
    return int(w) if len(w) == 4 and w.isdigit() and 1900 <= int(w) <= 2199 else None


def _dayn(w: str) -> int | None:
    w = w[:-2] if w[-2:] in ("st", "nd", "rd", "th") and w[:-2].isdigit() else w
    return int(w) if w.isdigit() and len(w) <= 2 and 1 <= int(w) <= 31 else None


def query_dates(words: list[str]) -> list[tuple[int | None, int, int | None]]:
    """(year or None, month, day or None) for each date the words name: "October 24, 2023",
    "24 Oct 2023", "2023-10-24", "May 2023", "in June"; a bare year is left to the words."""
    out = []
    i = 0
    while i < len(words):
        w = words[i]
        y = _year(w)
        if y and i + 2 < len(words) and words[i + 1].isdigit() and words[i + 2].isdigit():
            mo, d = int(words[i + 1]), int(words[i + 2])
            if 1 <= mo <= 12 and 1 <= d <= 31:  # ISO 2023-10-24
                out.append((y, mo, d))
                i += 3
                continue
        mo = _MONTH.get(w)
        if mo:
            day = _dayn(words[i - 1]) if i > 0 else None
            nxt = words[i + 1] if i + 1 < len(words) else ""
            if day is None and _dayn(nxt):
                day = _dayn(nxt)
                nxt = words[i + 2] if i + 2 < len(words) else ""
            year = _year(nxt)
            # "may" and "march" are verbs too: only a day, a year or "in May" makes them a date
            if w not in _VERBS or day or year or (i > 0 and words[i - 1] in _BEFORE_MONTH):
                out.append((year, mo, day))
        i += 1
    return out


def _ranges(dates, years: list[int]) -> list[tuple[str, str]]:
    """ISO time ranges [lo, hi) for the dates; a date without a year spans every year the archive has."""
    out = []
    for y, mo, d in dates:
        for year in ([y] if y else years):
            if d:
                lo = f"{year:04d}-{mo:02d}-{d:02d}"
                hi = lo + "~"  # every time on that day sorts before it
            else:
                lo = f"{year:04d}-{mo:02d}"
                hi = f"{year:04d}-{mo:02d}~"
            out.append((lo, hi))
    return out


class Hit:
    __slots__ = ("id", "seg", "path", "lineno", "offset", "uid", "actor", "time", "cost", "digest", "score")

    def __init__(self, row: tuple):
        self.id, self.seg, self.lineno, self.offset, self.uid, self.actor, self.time, self.cost, self.digest = row
        self.path = ""
        self.score = 0.0


def query_words(query: str) -> list[str]:
    """Distinct lower-cased words of the query without stop words."""
    return [w for w in dict.fromkeys(ht.words(query)) if w not in ht.STOPWORDS]


def _match(words: list[str]) -> str:
    return " OR ".join('"' + w.replace('"', '""') + '"' for w in words)


def _ids(ids) -> str:
    return "[" + ",".join(str(i) for i in ids) + "]"


def _distinct(hits: list[Hit]) -> list[Hit]:
    """Each text once (the best-ranked copy): a repeated line spends budget and tells nothing new."""
    seen: set[int] = set()
    out = []
    for h in hits:
        if h.digest not in seen:  # CRC-32 of the text: a clash among one query's few hundred hits is unlikely
            seen.add(h.digest)
            out.append(h)
    return out


class Searcher:
    """Ranks raw lines for a query; reads only the postings the query's words match."""

    def __init__(self, conn: sqlite3.Connection, layers: tuple[str, ...] = DEFAULT_LAYERS,
                 note_weights: dict[str, float] | None = None):
        self.conn = conn
        self.layers = layers
        self.weights = {k: LEND_WEIGHT for k in LAYERS if k != "dates"}
        self.weights.update(note_weights or {})
        self._actor_words: dict[str, str] | None = None

    def actor_words(self) -> dict[str, str]:
        if self._actor_words is None:
            self._actor_words = {}
            for (name,) in self.conn.execute("SELECT name FROM actors"):
                for w in ht.words(name):
                    self._actor_words.setdefault(w, name)
        return self._actor_words

    def rank(self, query: str) -> list[Hit]:
        """Raw lines, best first: the scored matches, then the rest of the best sessions (score 0)."""
        words = query_words(query)
        actors = self.actor_words()
        named = {actors[w] for w in words if w in actors}
        rest = [w for w in words if w not in actors]
        if rest:
            words = rest
        if not words:
            return []
        match = _match(words)
        base: dict[int, float] = {}
        for rowid, score in self.conn.execute(
                "SELECT rowid, -bm25(unit_text) FROM unit_text WHERE unit_text MATCH ? ORDER BY rank LIMIT ?",
                (match, MATCH_LIMIT)):
            base[rowid] = score
        scale = max(base.values(), default=1.0)
        routed = self._routed(match, scale)
        dated = self._dated(query)
        if len(dated) > DATE_CAP:
            dated &= set(base)
        wanted = set(base) | set(routed) | dated
        wanted |= {i + 1 for i in base} | {i - 1 for i in base}
        if not wanted:
            return []
        hits: dict[int, Hit] = {}
        for row in self.conn.execute(
                "SELECT id, seg, lineno, offset, uid, actor, time, cost, digest FROM units "
                "WHERE id IN (SELECT value FROM json_each(?))", (_ids(wanted),)):
            hits[row[0]] = Hit(row)
        session: dict[int, float] = {}
        for rowid, score in base.items():
            h = hits.get(rowid)
            if h is not None:
                session[h.seg] = session.get(h.seg, 0.0) + score
        top = max(session.values(), default=0.0) or 1.0
        costs = sorted(h.cost for h in hits.values())
        typical = max(costs[len(costs) // 2], 1)
        ranked = []
        for h in hits.values():
            lent = 0.0
            prev, nxt = hits.get(h.id - 1), hits.get(h.id + 1)
            if prev is not None and prev.seg == h.seg:
                lent += PREV_WEIGHT * base.get(prev.id, 0.0)
            if nxt is not None and nxt.seg == h.seg:
                lent += NEXT_WEIGHT * base.get(nxt.id, 0.0)
            s = base.get(h.id, 0.0) + (lent + routed.get(h.id, 0.0)) / max(1.0, h.cost / typical) ** COST_POWER
            if h.id in dated:
                s += DATE_WEIGHT * scale
            if s <= 0:
                continue
            if h.actor in named:
                s *= SPEAKER_BOOST
            h.score = s + SESSION_WEIGHT * session.get(h.seg, 0.0) / top
            ranked.append(h)
        if RECENCY and _LATEST & set(ht.words(query)) and ranked:
            times = sorted({h.time for h in ranked})
            order = {t: i / max(len(times) - 1, 1) for i, t in enumerate(times)}
            for h in ranked:
                h.score *= 1.0 + RECENCY * order[h.time]
        paths = dict(self.conn.execute("SELECT id, path FROM segments WHERE id IN (SELECT value FROM json_each(?))",
                                       (_ids({h.seg for h in ranked}),)))
        for h in ranked:
            h.path = paths[h.seg]
        ranked.sort(key=lambda h: (-h.score, h.path, h.lineno))
        return _distinct(ranked + self._rest_of_sessions(ranked, session, paths))

    def _rest_of_sessions(self, ranked: list[Hit], session: dict[int, float], paths: dict[int, str]) -> list[Hit]:
        """The unmatched turns of the best-scoring sessions, best session first, each in archive order.

        They rank below every match, so they only fill a budget the matches
        leave free; what a session says around a match is often the answer.
        """
        best = sorted(session, key=lambda sid: -session[sid])[:EXPAND_SESSIONS]
        if not best:
            return []
        have = {h.id for h in ranked}
        order = {sid: i for i, sid in enumerate(best)}
        rest = []
        for row in self.conn.execute(
                "SELECT id, seg, lineno, offset, uid, actor, time, cost, digest FROM units "
                "WHERE seg IN (SELECT value FROM json_each(?))", (_ids(best),)):
            if row[0] not in have:
                h = Hit(row)
                h.path = paths.get(h.seg) or self.conn.execute(
                    "SELECT path FROM segments WHERE id=?", (h.seg,)).fetchone()[0]
                paths[h.seg] = h.path
                rest.append(h)
        rest.sort(key=lambda h: (order[h.seg], h.lineno))
        return rest

    def _dated(self, query: str) -> set[int]:
        """Units from the days or months the query names (a question about a date leans toward it)."""
        dates = query_dates(ht.words(query))
        if not dates:
            return set()
        years = [r[0] for r in self.conn.execute("SELECT year FROM years ORDER BY year")]
        out: set[int] = set()
        for lo, hi in _ranges(dates, years):
            out.update(r[0] for r in self.conn.execute(
                "SELECT id FROM units WHERE time >= ? AND time < ? LIMIT ?", (lo, hi, DATE_CAP + 1)))
            if "dates" in self.layers:  # dates the notes anchored ("yesterday = 7 May 2023") cite units too
                out.update(r[0] for r in self.conn.execute(
                    "SELECT unit FROM unit_dates WHERE day >= ? AND day < ? LIMIT ?", (lo, hi, DATE_CAP + 1)))
        return out

    def _routed(self, match: str, scale: float) -> dict[int, float]:
        """Score each raw unit gets from the note lines (of the active layers) that cite it.

        A note line's score is taken relative to the best note line and then
        to the best raw line (``scale``), so a weight means the same whatever
        the two indexes' score ranges are.
        """
        active = [k for k in self.layers if self.weights.get(k, 0.0) > 0]
        if not active:
            return {}
        out: dict[int, float] = {}
        lines: dict[int, float] = {}
        for rowid, score in self.conn.execute(
                "SELECT rowid, -bm25(note_text) FROM note_text WHERE note_text MATCH ?", (match,)):
            lines[rowid] = score
        if not lines:
            return out
        top = (max(lines.values()) or 1.0) / scale
        for lid, kind, unit in self.conn.execute(
                "SELECT c.line, n.kind, c.unit FROM cites c JOIN note_lines l ON l.id = c.line "
                "JOIN notes n ON n.id = l.note WHERE c.line IN (SELECT value FROM json_each(?))", (_ids(lines),)):
            w = self.weights.get(kind, 0.0) if kind in active else 0.0
            if w:
                out[unit] = out.get(unit, 0.0) + w * lines[lid] / top
        return out

    def note_lines(self, query: str, n: int) -> list[tuple[str, int, str]]:
        """The ``n`` best-matching note lines as (path, line number, text)."""
        words = query_words(query)
        if not words or n <= 0:
            return []
        return self.conn.execute(
            "SELECT n.path, l.lineno, l.text FROM note_text f JOIN note_lines l ON l.id = f.rowid "
            "JOIN notes n ON n.id = l.note WHERE note_text MATCH ? ORDER BY bm25(note_text), n.path, l.lineno "
            "LIMIT ?", (_match(words), n)).fetchall()


def _inside(root: str, path: str) -> bool:
    """Whether ``path``, links followed, lies in ``root``: the index reads nothing a link points elsewhere."""
    real, base = os.path.realpath(path), os.path.realpath(root)
    return real.startswith(base.rstrip(os.sep) + os.sep)


def read_line(root: str, path: str, offset: int, cache: dict) -> str:
    """The raw line at ``offset`` of ``root/path`` (files stay open for the process's life)."""
    fh = cache.get(path)
    if fh is None:
        full = os.path.join(root, path)
        if not _inside(root, full):
            raise OSError(errno.ELOOP, "a link out of the workspace")
        fh = cache[path] = open(full, "rb")
    fh.seek(offset)
    return fh.readline().decode("utf-8", errors="replace").rstrip("\n")
