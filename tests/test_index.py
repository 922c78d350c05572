"""The SQLite FTS5 search index: incremental, crash-safe, read-only in the read view, routing through notes.

Every workspace here is written by the test itself (``Workspace.init`` +
``archive`` + small note files); the index is driven through the very module
the sandbox helpers run (``horma.core``).
"""

from __future__ import annotations

import hashlib
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest
from conftest import ISOLATED, archive, require_backend

from horma.core import index as HI
from horma.core.dates import query_dates
from horma.core.index_schema import compact
from horma.core.notes import citations, format_citation
from horma.core.search import PERSON_BOOST, Searcher
from horma.core.vectors import CODEC, CODEC_KEY, INT8
from horma.index import damaged, index_folder, open_index, rebuild
from horma.resources import CORE, SANDBOX_BIN
from horma.sandbox import Limits, open_sandbox
from horma.vector_codec import decode, encode
from horma.workspace import Unit, Workspace, WorkspaceError

HSEARCH = SANDBOX_BIN / "hsearch"
HINDEX = SANDBOX_BIN / "hindex"


# -- fixtures written by the tests ---------------------------------------------------------
def units(prefix: str, texts: list[str], day: str = "2023-01-02", actors=("Ann", "Bob")) -> list[Unit]:
    return [Unit(f"{prefix}:{i}", f"{day} 10:{i % 60:02d}", actors[(i - 1) % len(actors)], t)
            for i, t in enumerate(texts, 1)]


def note(title: str, sources: list[str], body: list[str]) -> str:
    src = "".join(f'- path: "{s}"\n  units: []\n' for s in sources)
    return f'---\ntitle: "{title}"\nsources:\n{src}links: []\n---\n' + "".join(line + "\n" for line in body)


def write(ws: Workspace, rel: str, text: str) -> None:
    p = ws.root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text, encoding="utf-8")


def lineno_of(text: str, line: str) -> int:
    return text.split("\n").index(line) + 1


def counts(conn: sqlite3.Connection) -> dict[str, int]:
    return {t: conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
            for t in ("segments", "units", "notes", "note_lines", "cites")}


def note_rows(conn: sqlite3.Connection, rel: str) -> dict[int, tuple[int, str]]:
    """lineno -> (row id, text) of one note's indexed lines."""
    return {n: (i, t) for i, n, t in conn.execute(
        "SELECT l.id, l.lineno, l.text FROM note_lines l JOIN notes n ON n.id = l.note WHERE n.path=?", (rel,))}


def cited(conn: sqlite3.Connection, rel: str) -> dict[int, list[str]]:
    """lineno -> unit ids the line cites, for one note."""
    out: dict[int, list[str]] = {}
    for n, uid in conn.execute(
            "SELECT l.lineno, u.uid FROM cites c JOIN note_lines l ON l.id = c.line JOIN notes n ON n.id = l.note "
            "JOIN units u ON u.id = c.unit WHERE n.path=? ORDER BY l.lineno, u.uid", (rel,)):
        out.setdefault(n, []).append(uid)
    return out


def fingerprint(conn: sqlite3.Connection) -> dict:
    """What the index says, independent of row ids: units, note lines with their citations, search answers."""
    unit_rows = sorted(conn.execute(
        "SELECT s.path, u.lineno, u.offset, u.uid, u.actor, u.time, u.cost FROM units u JOIN segments s ON s.id=u.seg"))
    lines = sorted(conn.execute(
        "SELECT n.path, n.kind, n.title, l.lineno, l.text, "
        "(SELECT group_concat(u.uid) FROM (SELECT uu.uid FROM cites c JOIN units uu ON uu.id=c.unit "
        " WHERE c.line=l.id ORDER BY uu.uid) u) FROM note_lines l JOIN notes n ON n.id=l.note"))
    return {"units": unit_rows, "lines": lines}


def fts_ok(conn: sqlite3.Connection) -> None:
    for fts in ("unit_text", "note_text"):
        conn.execute(f"INSERT INTO {fts}({fts}, rank) VALUES('integrity-check', 0)")


def uids(hits) -> list[str]:
    return [h.uid for h in hits]


def matched(hits) -> list:
    """The hits that scored (the ranking may append context turns after them with no score)."""
    return [h for h in hits if h.score > 0]


def first(hits) -> tuple[str, int, str]:
    assert hits, "no hits"
    return hits[0].path, hits[0].lineno, hits[0].uid


def run(cmd: list, cwd: Path, env_extra: dict | None = None, **kw) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != HI.ENV}
    env.update(env_extra or {})
    return subprocess.run([str(c) for c in cmd], cwd=cwd, env=env, capture_output=True, text=True, timeout=60, **kw)


def tree(folder: Path) -> dict[str, str]:
    """name -> sha256 of every file in a folder (what a read-only open must leave alone)."""
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir()) if p.is_file()}


SEG1 = ["I repaired the old tandem bicycle", "The kayak leaked near the dock", "We planted basil seedlings"]
SEG2 = ["A zeppelin floated over the stadium", "Everyone waved at the pilots"]


@pytest.fixture
def ws(tmp_path: Path) -> Workspace:
    return Workspace.init(tmp_path / "ws")


# -- 1. incremental ----------------------------------------------------------------------------
def test_segments_index_once_and_only_their_new_units(ws: Workspace):
    rel1 = archive(ws, units("S1", SEG1), "first")
    text1 = (ws.root / rel1).read_text()
    with HI.SearchIndex.open(str(index_folder(ws))) as idx:
        conn = idx.conn
        with idx.transaction():
            assert idx.add_segment(rel1, text1) is True
        initial = counts(conn)
        assert initial == {"segments": 1, "units": 3, "notes": 0, "note_lines": 0, "cites": 0}
        ids1 = conn.execute("SELECT id, lineno, uid FROM units ORDER BY id").fetchall()
        with idx.transaction():
            assert idx.add_segment(rel1, text1) is False
        assert counts(conn) == initial
        assert conn.execute("SELECT id, lineno, uid FROM units ORDER BY id").fetchall() == ids1

        rel2 = archive(ws, units("S2", SEG2), "second")
        with idx.transaction():
            assert idx.add_segment(rel2, (ws.root / rel2).read_text()) is True
        assert counts(conn)["units"] == 5 and counts(conn)["segments"] == 2
        assert conn.execute("SELECT id, lineno, uid FROM units WHERE id <= ? ORDER BY id",
                            (ids1[-1][0],)).fetchall() == ids1
        assert conn.execute("SELECT u.lineno, u.uid, u.actor, u.time FROM units u JOIN segments s ON s.id=u.seg "
                            "WHERE s.path=? ORDER BY u.lineno", (rel2,)).fetchall() == [
            (1, "S2:1", "Ann", "2023-01-02 10:01"), (2, "S2:2", "Bob", "2023-01-02 10:02")]
        hits = Searcher(conn, root=str(ws.root)).rank("zeppelin")
        assert first(hits) == (rel2, 1, "S2:1")
        assert {h.path for h in matched(hits)} == {rel2}
        assert first(Searcher(conn, root=str(ws.root)).rank("kayak")) == (rel1, 2, "S1:2")
        fts_ok(conn)


def test_segment_that_grew_gets_only_its_new_lines_and_one_that_shrank_is_refused(ws: Workspace):
    rel = "raw/2023-01-02T10-00__grow/units.log"
    lines = [u.line() + "\n" for u in units("G", ["alpha walrus", "beta walrus", "gamma narwhal"])]
    with HI.SearchIndex.open(str(index_folder(ws))) as idx:
        with idx.transaction():
            assert idx.add_segment(rel, "".join(lines[:2])) is True
        before = idx.conn.execute("SELECT id, lineno, offset, uid FROM units ORDER BY id").fetchall()
        with idx.transaction():
            assert idx.add_segment(rel, "".join(lines)) is True
        after = idx.conn.execute("SELECT id, lineno, offset, uid FROM units ORDER BY id").fetchall()
        assert after[:2] == before
        assert [(r[1], r[2], r[3]) for r in after[2:]] == [(3, len((lines[0] + lines[1]).encode()), "G:3")]
        assert idx.conn.execute("SELECT size, lines FROM segments").fetchone() == (len("".join(lines).encode()), 3)
        assert first(Searcher(idx.conn, root=str(ws.root)).rank("narwhal")) == (rel, 3, "G:3")
        with pytest.raises(HI.IndexError_, match=r"shrank.*--rebuild"), idx.transaction():
            idx.add_segment(rel, lines[0])
        assert idx.conn.execute("SELECT id, lineno, offset, uid FROM units ORDER BY id").fetchall() == after


def test_note_edits_touch_only_the_lines_that_changed(ws: Workspace):
    rel1 = archive(ws, units("S1", SEG1), "first")
    seg = rel1.split("/")[1]
    a = "- Kayak repair: patched the hull with epoxy (line 2)"
    b = f"- Moored at the marina (raw/{seg}/units.log:2)"
    c = "- Sold to a neighbour for ninety dollars (line 1)"
    rel = "notes/boats/kayak.md"
    with HI.SearchIndex.open(str(index_folder(ws))) as idx:
        conn = idx.conn
        s = Searcher(conn, root=str(ws.root))
        with idx.transaction():
            idx.sync(str(ws.root))
            idx.put_note(rel, note("Boathouse", [rel1], [a, b]))
        v1 = note_rows(conn, rel)
        t1 = note("Boathouse", [rel1], [a, b])
        assert {n: t for n, (_, t) in v1.items()} == {lineno_of(t1, a): a, lineno_of(t1, b): b}
        assert cited(conn, rel) == {lineno_of(t1, a): ["S1:2"], lineno_of(t1, b): ["S1:2"]}

        # one appended line: exactly one new row; the old rows keep their ids
        t2 = note("Boathouse", [rel1], [a, b, c])
        before = counts(conn)
        with idx.transaction():
            idx.put_note(rel, t2)
        assert counts(conn)["note_lines"] == before["note_lines"] + 1
        assert counts(conn)["cites"] == before["cites"] + 1
        v2 = note_rows(conn, rel)
        assert {n: v2[n] for n in v1} == v1
        assert v2[lineno_of(t2, c)][1] == c and v2[lineno_of(t2, c)][0] not in {i for i, _ in v1.values()}
        assert cited(conn, rel)[lineno_of(t2, c)] == ["S1:1"]
        assert s.note_lines("neighbour ninety", 5) == [(rel, lineno_of(t2, c), c)]

        # one changed line: only its row is replaced
        b2 = b.replace("marina", "harbour")
        t3 = note("Boathouse", [rel1], [a, b2, c])
        with idx.transaction():
            idx.put_note(rel, t3)
        v3 = note_rows(conn, rel)
        nb = lineno_of(t3, b2)
        assert counts(conn)["note_lines"] == 3
        assert {n: v3[n] for n in v3 if n != nb} == {n: v2[n] for n in v2 if n != nb}
        assert v3[nb][1] == b2 and v3[nb][0] != v2[nb][0]
        assert s.note_lines("marina", 5) == []
        assert s.note_lines("harbour", 5) == [(rel, nb, b2)]
        assert cited(conn, rel)[nb] == ["S1:2"]

        # a new title is in every row: all rows are re-indexed
        t4 = note("Shed", [rel1], [a, b2, c])
        with idx.transaction():
            idx.put_note(rel, t4)
        v4 = note_rows(conn, rel)
        assert {n: t for n, (_, t) in v4.items()} == {n: t for n, (_, t) in v3.items()}
        assert s.note_lines("boathouse", 5) == []
        assert sorted(s.note_lines("shed", 5)) == sorted((rel, n, t) for n, (_, t) in v4.items())
        assert counts(conn)["cites"] == 3
        fts_ok(conn)


def test_removed_notes_leave_no_rows_and_sync_drops_notes_deleted_on_disk(ws: Workspace):
    rel1 = archive(ws, units("S1", SEG1), "first")
    gone = "notes/garden/basil.md"
    kept = "notes/friends/ann.md"
    write(ws, gone, note("Garden", [rel1], ["- basil seedlings on the windowsill (line 3)"]))
    write(ws, kept, note("Ann", [rel1], ["- rides a tandem (line 1)"]))
    with HI.SearchIndex.open(str(index_folder(ws))) as idx:
        conn = idx.conn
        s = Searcher(conn, root=str(ws.root))
        assert idx.sync(str(ws.root)) == {"segments": 1, "notes": 2, "removed": 0, "embedded": 0}
        assert idx.sync(str(ws.root)) == {"segments": 0, "notes": 2, "removed": 0, "embedded": 0}
        assert s.note_lines("windowsill", 5) == [(gone, 8, "- basil seedlings on the windowsill (line 3)")]
        assert counts(conn) == {"segments": 1, "units": 3, "notes": 2, "note_lines": 2, "cites": 2}

        with idx.transaction():
            idx.remove_note(gone)
            idx.remove_note("notes/never-indexed.md")  # a no-op, not an error
        assert s.note_lines("windowsill", 5) == []
        assert counts(conn) == {"segments": 1, "units": 3, "notes": 1, "note_lines": 1, "cites": 1}
        assert idx.indexed_notes() == {kept}

        assert idx.sync(str(ws.root)) == {"segments": 0, "notes": 2, "removed": 0, "embedded": 0}  # still on disk: back
        assert s.note_lines("windowsill", 5) == [(gone, 8, "- basil seedlings on the windowsill (line 3)")]
        (ws.root / gone).unlink()
        assert idx.sync(str(ws.root)) == {"segments": 0, "notes": 1, "removed": 1, "embedded": 0}
        assert s.note_lines("windowsill", 5) == []
        assert idx.indexed_notes() == {kept}
        assert counts(conn) == {"segments": 1, "units": 3, "notes": 1, "note_lines": 1, "cites": 1}
        fts_ok(conn)


def test_incremental_index_equals_a_rebuild(ws: Workspace, tmp_path: Path):
    """After segments, note edits, a title change and a deletion, the index says what a rebuild says."""
    rel1 = archive(ws, units("S1", SEG1), "first")
    seg1 = rel1.split("/")[1]
    folder = str(index_folder(ws))
    write(ws, "notes/boats/kayak.md", note("Kayak", [rel1], ["- leaks (line 2)", "- tandem (line 1)"]))
    write(ws, "notes/diary.md", note("Timeline", [], [f"- 2023-01-02 basil (raw/{seg1}/units.log:3)"]))
    with HI.SearchIndex.open(folder) as idx:
        idx.sync(str(ws.root))
        rel2 = archive(ws, units("S2", SEG2), "second")
        seg2 = rel2.split("/")[1]
        write(ws, "notes/boats/kayak.md", note("Kayaks", [rel1], ["- leaks badly (line 2)", "- tandem (line 1)"]))
        write(ws, "notes/diary.md", note("Timeline", [], [f"- 2023-01-02 basil (raw/{seg1}/units.log:3)",
                                                             f"- 2023-01-02 airship (raw/{seg2}/units.log:1)"]))
        write(ws, "notes/sky/air.md", note("Air", [rel2], ["- zeppelin (line 1)", "- pilots (line 2)"]))
        idx.sync(str(ws.root))
        (ws.root / "notes/boats/kayak.md").unlink()
        idx.sync(str(ws.root))
        incremental = fingerprint(idx.conn)
    other = tmp_path / "fresh"
    with HI.SearchIndex.open(str(other)) as fresh:
        fresh.sync(str(ws.root))
        assert fingerprint(fresh.conn) == incremental
    with HI.SearchIndex.open(folder) as idx:
        idx.sync(str(ws.root), rebuild=True)
        assert fingerprint(idx.conn) == incremental
        assert [ln[4] for ln in incremental["lines"]] == [
            f"- 2023-01-02 basil (raw/{seg1}/units.log:3)", f"- 2023-01-02 airship (raw/{seg2}/units.log:1)",
            "- zeppelin (line 1)", "- pilots (line 2)"]
        assert [ln[5] for ln in incremental["lines"]] == ["S1:3", "S2:1", "S2:1", "S2:2"]


def test_incremental_writes_keep_the_index_near_its_compacted_size(ws: Workspace, tmp_path: Path):
    """Each write transaction merges the FTS5 segments it wrote into the older ones (a bounded number of
    pages) and hands the pages it freed back: after 40 segments, each rewriting every line of a note that
    lists them all (a delete entry per replaced line), the file is within 5% of itself compacted (every
    FTS5 table in one segment, VACUUMed) and answers the same."""
    folder = index_folder(ws)
    rels: list[str] = []
    with HI.SearchIndex.open(str(folder)) as idx:
        for i in range(40):
            rels.append(archive(ws, units(f"S{i}", [f"Trip {i}: we paddled the kayak past buoy{i} at dawn",
                                                    f"The tide near cove{i} turned early that day"]), f"trip-{i}"))
            body = [f"- trip {j} (raw/{rels[j].split('/')[1]}/units.log:1), {i - j} trips ago" for j in range(i + 1)]
            write(ws, "notes/log/trips.md", note("Trips", [], body))
            idx.sync(str(ws.root))
        conn = idx.conn
        assert conn.execute("PRAGMA auto_vacuum").fetchone() == (2,)  # incremental
        assert conn.execute("PRAGMA freelist_count").fetchone() == (0,)
        assert conn.execute("SELECT count(*) FROM note_lines").fetchone() == (40,)
        fts_ok(conn)
        incremental = fingerprint(conn)
    db = folder / HI.DB_NAME
    size = db.stat().st_size
    compacted_db = tmp_path / "compacted.db"
    compacted_db.write_bytes(db.read_bytes())
    conn = sqlite3.connect(compacted_db, isolation_level=None)
    try:
        compact(conn)
        assert fingerprint(conn) == incremental
    finally:
        conn.close()
    compacted = compacted_db.stat().st_size
    assert compacted <= size <= compacted * 1.05, (size, compacted)


def test_a_bulk_run_ends_with_the_index_at_its_compacted_size(tmp_path: Path):
    """A bulk ingest (one manager run, many records: ``horma ingest``) leaves FTS5 segments that a writer
    merges only a bounded amount at a time, and pages part filled: these 20 sessions of 20 turns made a
    file of 262 KB that compacts to 250 KB. The run ends with one rewrite, so compacting again changes
    nothing, and every unit is still found."""
    import random

    import horma

    rng = random.Random(7)
    vocab = [f"w{k}" for k in range(3000)]
    sessions = [units(f"T{i}", [" ".join(rng.choice(vocab) for _ in range(12)) for _ in range(20)],
                      day=f"2023-{i // 28 + 1:02d}-{i % 28 + 1:02d}") for i in range(20)]
    with horma.Memory(tmp_path / "mem") as mem, mem.manager.one_run():
        for i, session in enumerate(sessions):
            mem.record(session, slug=f"s-{i}")
    db = index_folder(mem.workspace) / HI.DB_NAME
    again = tmp_path / "again.db"
    again.write_bytes(db.read_bytes())
    conn = sqlite3.connect(again, isolation_level=None)
    try:
        compact(conn)
        fts_ok(conn)
    finally:
        conn.close()
    assert again.stat().st_size == db.stat().st_size
    with open_index(mem.workspace, readonly=True) as s:
        assert all(s.rank(u.text)[0].uid == u.id for session in sessions for u in session)


def test_an_index_that_cannot_be_compacted_fails_no_bulk_run(tmp_path: Path):
    """Every unit is indexed before the run's closing rewrite: when that rewrite cannot run (here the file
    was damaged under the run) the ingest still ends normally, and ingest.log says why it was skipped."""
    import json

    import horma

    with horma.Memory(tmp_path / "mem") as mem, mem.manager.one_run():
        for i in range(2):
            mem.record(units(f"T{i}", [f"Trip {i}: we sailed past buoy{i}"], day=f"2023-01-0{i + 1}"),
                       slug=f"s-{i}")
        (index_folder(mem.workspace) / HI.DB_NAME).write_bytes(b"not a database, " * 256)
    events = [json.loads(line) for line in (mem.workspace.meta / "ingest.log").read_text().splitlines()]
    skipped = [e for e in events if e["event"] == "index_not_compacted"]
    assert len(skipped) == 1 and "cannot compact the search index" in skipped[0]["error"], events[-3:]


def test_thousands_of_write_transactions_leave_a_sound_index(tmp_path: Path):
    """Every transaction's merge step runs on an index it has merged before: 2,100 of them (past the 2,000
    segments and levels FTS5's structure record may hold) leave an index that passes both integrity
    checks, holds every row once, and finds the first and the last."""
    with HI.SearchIndex.open(str(tmp_path / "index")) as idx:
        for i in range(2100):
            with idx.transaction():
                idx.add_segment(f"raw/s{i}/units.log", f"s{i}:1 | 2024-01-01 10:00 | Ann: trip {i} past buoy{i}\n")
                idx.put_note("notes/log/trips.md", note("Trips", [], [f"- latest trip {i}"]))
        conn = idx.conn
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        fts_ok(conn)
        assert conn.execute("SELECT count(*), count(DISTINCT uid) FROM units").fetchone() == (2100, 2100)
        assert conn.execute("SELECT text FROM note_lines").fetchall() == [("- latest trip 2099",)]
        for i in (0, 2099):
            assert conn.execute("SELECT rowid FROM unit_text WHERE unit_text MATCH ?", (f"buoy{i}",)).fetchall() == [
                (i + 1,)]
        assert conn.execute("SELECT rowid FROM note_text WHERE note_text MATCH 'latest'").fetchall() == [(2100,)]
        assert conn.execute("PRAGMA freelist_count").fetchone() == (0,)


def test_an_index_made_before_auto_vacuum_is_compacted_once_by_the_next_write_open(ws: Workspace):
    """A version 6 file without incremental auto_vacuum (written before it) is VACUUMed into it by the next
    write open, its rows kept; later write opens find it so and do not VACUUM again."""
    _dated_workspace(ws)
    rebuild(ws, full=False)
    db = index_folder(ws) / HI.DB_NAME
    conn = sqlite3.connect(db, isolation_level=None)
    try:
        before = fingerprint(conn)
        conn.execute("PRAGMA auto_vacuum=NONE")
        conn.execute("VACUUM")
        assert conn.execute("PRAGMA auto_vacuum").fetchone() == (0,)
    finally:
        conn.close()
    HI.connect(str(db.parent)).close()
    conn = sqlite3.connect(db)
    try:
        assert conn.execute("PRAGMA auto_vacuum").fetchone() == (2,)
        assert conn.execute("SELECT value FROM meta WHERE key='version'").fetchone() == (HI.SCHEMA_VERSION,)
        assert fingerprint(conn) == before
        fts_ok(conn)
    finally:
        conn.close()
    conn = sqlite3.connect(db, isolation_level=None)  # free pages a VACUUM would drop
    try:
        conn.execute("CREATE TABLE scratch(x)")
        conn.execute("INSERT INTO scratch VALUES(zeroblob(20000))")
        conn.execute("DROP TABLE scratch")
        free = conn.execute("PRAGMA freelist_count").fetchone()[0]
        assert free >= 10
    finally:
        conn.close()
    conn = HI.connect(str(db.parent))
    try:
        assert conn.execute("PRAGMA freelist_count").fetchone() == (free,)  # not VACUUMed again
    finally:
        conn.close()


# -- 2. crash safety ---------------------------------------------------------------------------
CHILD = textwrap.dedent("""
    import os, sys, time
    sys.path.insert(0, sys.argv[1])
    from horma.core import index as hi
    root, folder = sys.argv[2], sys.argv[3]
    idx = hi.SearchIndex.open(folder)
    idx.conn.execute("PRAGMA cache_size=20")  # a small page cache: changed pages reach the file mid-transaction
    with idx.transaction():
        for seg in sorted(os.listdir(os.path.join(root, "raw"))):
            rel = f"raw/{seg}/units.log"
            with open(os.path.join(root, rel), encoding="utf-8") as fh:
                idx.add_segment(rel, fh.read())
        print("ready", flush=True)
        time.sleep(120)
""")


def big_segments(ws: Workspace, n: int, per: int) -> None:
    filler = " ".join(f"filler{j}" for j in range(40))
    for k in range(n):
        archive(ws, units(f"B{k}", [f"bulk segment {k} line {i} ocelot{k} {filler}" for i in range(per)],
                          day=f"2024-02-{1 + k % 28:02d}"), f"bulk-{k:03d}")


def test_kill_in_the_middle_of_a_transaction_leaves_the_previous_state(ws: Workspace, tmp_path: Path):
    rel1 = archive(ws, units("S1", SEG1), "first")
    write(ws, "notes/boats/kayak.md", note("Kayak", [rel1], ["- leaks (line 2)"]))
    folder = index_folder(ws)
    rebuild(ws)
    with HI.SearchIndex.open(str(folder)) as idx:
        previous = fingerprint(idx.conn)
    db = folder / HI.DB_NAME
    before = hashlib.sha256(db.read_bytes()).hexdigest()
    big_segments(ws, 20, 60)

    script = tmp_path / "child.py"
    script.write_text(CHILD)
    child = subprocess.Popen([sys.executable, str(script), str(CORE.parent.parent), str(ws.root), str(folder)],
                             stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline() == "ready\n"
        journal = folder / (HI.DB_NAME + "-journal")
        assert journal.is_file() and journal.stat().st_size > 0
        assert hashlib.sha256(db.read_bytes()).hexdigest() != before  # the kill lands on a half-written file
        # while the writer lives, a read-only open waits for it and then refuses; it never reads its pages
        t0 = time.monotonic()
        with pytest.raises(HI.IndexError_, match=r"cannot be read \(database is locked\).*hindex"):
            HI.connect(str(folder), readonly=True)
        assert time.monotonic() - t0 >= 4
    finally:
        os.kill(child.pid, signal.SIGKILL)
        child.wait()
    assert child.returncode == -signal.SIGKILL

    # the read view cannot roll the journal back: it must refuse, not read the half-written pages
    with pytest.raises(HI.IndexError_, match="left mid-update by a writer that stopped: run hindex"):
        conn = HI.connect(str(folder), readonly=True)
        try:
            conn.execute("SELECT count(*) FROM units").fetchone()
        finally:
            conn.close()
    r = run([HSEARCH, "--notes", "0", "kayak"], cwd=ws.root)
    assert r.returncode == 2 and r.stdout == "" and len(r.stderr.splitlines()) == 1, r
    assert "left mid-update" in r.stderr and "hindex" in r.stderr and "Traceback" not in r.stderr

    with HI.SearchIndex.open(str(folder)) as idx:  # a writer rolls the journal back
        assert idx.conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        fts_ok(idx.conn)
        assert fingerprint(idx.conn) == previous
        assert counts(idx.conn)["segments"] == 1
        assert idx.conn.execute("SELECT count(*) FROM unit_text WHERE unit_text MATCH 'ocelot0'").fetchone() == (0,)
    assert not (folder / (HI.DB_NAME + "-journal")).exists()
    assert first(open_searcher_rank(ws, "kayak")) == (rel1, 2, "S1:2")

    with HI.SearchIndex.open(str(folder)) as idx:  # the next sync completes it
        assert idx.sync(str(ws.root)) == {"segments": 20, "notes": 1, "removed": 0, "embedded": 0}
        assert counts(idx.conn) == {"segments": 21, "units": 3 + 20 * 60, "notes": 1, "note_lines": 1, "cites": 1}
        assert idx.conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    hits = matched(open_searcher_rank(ws, "ocelot7"))
    assert sorted(uids(hits)) == sorted(f"B7:{i}" for i in range(1, 61))


def open_searcher_rank(ws: Workspace, query: str):
    with open_index(ws, readonly=True) as s:
        return s.rank(query)


def test_an_exception_inside_a_transaction_rolls_it_back(ws: Workspace):
    rel1 = archive(ws, units("S1", SEG1), "first")
    rel2 = archive(ws, units("S2", SEG2), "second")
    with HI.SearchIndex.open(str(index_folder(ws))) as idx:
        with idx.transaction():
            idx.add_segment(rel1, (ws.root / rel1).read_text())
        previous = fingerprint(idx.conn)
        with pytest.raises(RuntimeError, match="boom"), idx.transaction():
            assert idx.add_segment(rel2, (ws.root / rel2).read_text()) is True
            idx.put_note("notes/x.md", note("X", [rel2], ["- zeppelin (line 1)"]))
            with idx.transaction():  # an inner block joins the outer transaction
                idx.remove_note("notes/x.md")
            raise RuntimeError("boom")
        assert not idx.conn.in_transaction
        assert fingerprint(idx.conn) == previous
        assert Searcher(idx.conn, root=str(ws.root)).rank("zeppelin") == []
        with idx.transaction():  # and the segment indexes afterwards as if nothing happened
            assert idx.add_segment(rel2, (ws.root / rel2).read_text()) is True
        assert first(Searcher(idx.conn, root=str(ws.root)).rank("zeppelin")) == (rel2, 1, "S2:1")


# -- 3. read-only ------------------------------------------------------------------------------
def indexed_ws(root: Path) -> tuple[Workspace, str]:
    ws = Workspace.init(root)
    rel1 = archive(ws, units("S1", SEG1), "first")
    write(ws, "notes/boats/kayak.md", note("Kayak", [rel1], ["- leaks at the dock (line 2)"]))
    rebuild(ws)
    return ws, rel1


def test_read_only_open_of_a_read_only_folder_searches_and_writes_nothing(tmp_path: Path):
    ws, rel1 = indexed_ws(tmp_path / "ws")
    folder = index_folder(ws)
    db = folder / HI.DB_NAME
    files = tree(folder)
    assert list(files) == [HI.DB_NAME]
    db.chmod(0o444)
    folder.chmod(0o555)
    try:
        conn = HI.connect(str(folder), readonly=True)
        try:
            s = Searcher(conn, root=str(ws.root))
            assert first(s.rank("kayak")) == (rel1, 2, "S1:2")
            assert s.note_lines("leaks dock", 3) == [("notes/boats/kayak.md", 8, "- leaks at the dock (line 2)")]
            assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
            for sql in ("INSERT INTO meta VALUES('x', 'y')", "DELETE FROM units",
                        "INSERT INTO unit_text(rowid, body) VALUES(99, 'intruder')"):
                with pytest.raises(sqlite3.OperationalError, match="readonly"):
                    conn.execute(sql)
        finally:
            conn.close()
        with open_index(ws, readonly=True) as s:
            assert first(s.rank("basil")) == (rel1, 3, "S1:3")
    finally:
        folder.chmod(0o755)
        db.chmod(0o644)
    assert tree(folder) == files  # no -journal, -wal or -shm, and not one byte changed


def test_read_only_open_on_a_read_only_bind(tmp_path: Path):
    """The same open through a real read-only mount, where even root cannot write."""
    require_backend("bwrap")
    ws, rel1 = indexed_ws(tmp_path / "ws")
    folder = index_folder(ws)
    files = tree(folder)
    probe = textwrap.dedent(f"""
        import sys, sqlite3
        sys.path.insert(0, {str(CORE.parent.parent)!r})
        from horma.core import index as hi
        from horma.core.search import Searcher
        conn = hi.connect({str(folder)!r}, readonly=True)
        print([(h.path, h.lineno) for h in Searcher(conn, root={str(ws.root)!r}).rank("kayak")][:1])
        try:
            conn.execute("INSERT INTO meta VALUES('x', 'y')")
        except sqlite3.OperationalError as exc:
            print("refused:", exc)
        try:
            open({str(folder / "probe")!r}, "w")
        except OSError as exc:
            print("mount:", exc.strerror)
    """)
    r = subprocess.run(["bwrap", "--dev-bind", "/", "/", "--ro-bind", str(folder), str(folder),
                        sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == [str([(rel1, 2)]), "refused: attempt to write a readonly database",
                                     "mount: Read-only file system"]
    assert tree(folder) == files


def test_missing_index_says_how_to_build_it(tmp_path: Path):
    ws = Workspace.init(tmp_path / "ws")
    with pytest.raises(HI.IndexError_) as info:
        HI.connect(str(index_folder(ws)), readonly=True)
    assert "hindex" in str(info.value) and "--rebuild" in str(info.value)
    assert not index_folder(ws).exists() or not any(index_folder(ws).iterdir())
    with pytest.raises(WorkspaceError, match="--rebuild"), open_index(ws, readonly=True):
        pass


@pytest.mark.parametrize("name", ["ws#1", "ws?x=1", "ws%41b"])
def test_read_only_open_of_a_folder_whose_name_looks_like_uri_syntax(tmp_path: Path, name: str):
    ws, rel1 = indexed_ws(tmp_path / name)
    with open_index(ws, readonly=True) as s:
        assert first(s.rank("kayak")) == (rel1, 2, "S1:2")
    assert sorted(p.name for p in tmp_path.iterdir()) == [name]  # no stray database beside it


# A question that asks when, and two turns: one says when in other words, one repeats the question's words
FAIR = [Unit("f:1", "2023-04-25 10:00", "Jon", "Yesterday I took my dance studio to a fair, stressful but great."),
        Unit("f:2", "2023-04-25 10:01", "Gina", "Nice! How did people like it?"),
        Unit("f:3", "2023-04-25 10:02", "Jon", "A fair is the best place for a dance studio to find students, "
                                              "every dance fair brings new dancers to the studio.")]


@pytest.fixture(params=[pytest.param(b, marks=getattr(pytest.mark, b)) for b in ISOLATED])
def backend(request: pytest.FixtureRequest) -> str:
    require_backend(request.param)
    return request.param


def test_hsearch_reads_and_hindex_cannot_write_in_the_read_view(tmp_path: Path, backend: str):
    ws, rel1 = indexed_ws(tmp_path / "ws")
    folder = index_folder(ws)
    files = tree(folder)
    with open_sandbox(ws.root, backend, "read", limits=Limits(timeout=20)) as box:
        r = box.exec("hsearch -n 1 --notes 0 kayak dock")
        want = f"{rel1}:2:S1:2 | 2023-01-02 10:02 | Bob: The kayak leaked near the dock\n"
        assert (r.exit_code, r.output) == (0, want)
        r = box.exec("hsearch -n 0 --notes 1 leaks dock")
        assert r.exit_code == 0
        assert r.output.splitlines()[-1] == "notes/boats/kayak.md:8:- leaks at the dock (line 2)"
        r = box.exec("cd notes && hsearch -n 1 --notes 0 basil")  # from a subfolder too
        assert (r.exit_code, r.output) == (0, f"{rel1}:3:S1:3 | 2023-01-02 10:03 | Ann: We planted basil seedlings\n")
        write(ws, "notes/trips/late.md", note("Late", [rel1], ["- a gondola ride (line 1)"]))  # not indexed yet
        r = box.exec("hindex")
        assert r.exit_code == 1 and r.output.startswith("hindex: cannot update the index in /opt/horma/index: "), r
        assert r.output.endswith("(run it in the write view)\n") and len(r.output.splitlines()) == 1, r.output
        r = box.exec("hsearch --notes 3 gondola")
        assert (r.exit_code, r.output) == (1, "no matches\n")
    assert tree(folder) == files


def test_hsearch_in_a_sandbox_leans_a_question_that_asks_when_toward_the_turn_that_says_when(
        tmp_path: Path, backend: str):
    """The column the host's index keeps (units.says_when) and the rule that reads it run inside the sandbox too."""
    ws = Workspace.init(tmp_path / "ws")
    archive(ws, FAIR, "fair")
    rebuild(ws, full=False)
    with open_sandbox(ws.root, backend, "read", limits=Limits(timeout=20)) as box:
        asked = box.exec("hsearch -n 1 --notes 0 --near none 'When did Jon take his dance studio to a fair?'")
        other = box.exec("hsearch -n 1 --notes 0 --near none 'Did Jon take his dance studio to a fair?'")
    assert asked.exit_code == 0 and "| Jon: Yesterday I took my dance studio to a fair" in asked.output, asked.output
    assert other.exit_code == 0 and "| Jon: A fair is the best place" in other.output, other.output


def test_hindex_works_in_the_write_view(tmp_path: Path, backend: str):
    ws, rel1 = indexed_ws(tmp_path / "ws")
    seg = rel1.split("/")[1]
    body = f"- choir rehearsal after the bike repair (raw/{seg}/units.log:1)"
    text = note("Choir", [rel1], [body])
    with open_sandbox(ws.root, backend, "write", limits=Limits(timeout=20)) as box:
        r = box.exec("mkdir -p notes/hobbies && cat > notes/hobbies/choir.md <<'EOF'\n" + text + "EOF")
        assert r.exit_code == 0, r.output
        r = box.exec("hindex")
        assert (r.exit_code, r.output) == (
            0, "indexed 0 new raw segment(s) and 2 note(s); dropped 0 deleted note(s)\n")
        r = box.exec("hsearch -n 0 --notes 2 choir rehearsal")
        assert (r.exit_code, r.output) == (0, f"notes/hobbies/choir.md:8:{body}\n")
        assert box.exec("ls $HORMA_INDEX").output == f"{HI.DB_NAME}\n"
    with open_index(ws, readonly=True) as s:  # the host reads what the sandbox wrote
        assert s.note_lines("choir", 5) == [("notes/hobbies/choir.md", 8, body)]
    with HI.SearchIndex.open(str(index_folder(ws))) as idx:  # and can still write it
        assert idx.sync(str(ws.root)) == {"segments": 0, "notes": 2, "removed": 0, "embedded": 0}
        assert cited(idx.conn, "notes/hobbies/choir.md") == {8: ["S1:1"]}


# -- 4. what a note line gives the index ---------------------------------------------------------
ROUTE_SEG = ["We met at the old lighthouse cafe", "It rained the whole afternoon", "Then we drove home"]
DATED = "- the picnic in the storm, the day before = 1 January 2023 (line 2)"


def test_a_regenerated_page_is_indexed_for_the_lines_that_date_a_unit_and_a_written_note_whole(ws: Workspace):
    """A page the manager regenerates (people, entities, topics, sessions, timeline) points back at raw
    lines the index holds already: only a line that dates a unit it cites ("the day before = 1 January
    2023") adds to them, and only such lines are indexed; a page without one has no row. A note someone
    wrote is indexed whole, and a dated question leans toward the unit its line dates."""
    rel1 = archive(ws, units("R1", ROUTE_SEG), "route")
    archive(ws, units("R2", ["A quiet evening with tea", "Reading by the fire"], day="2023-01-05"), "other")
    write(ws, "notes/entities/trip.md", note("Trip log", [rel1], ["- thunderstorm drenched the picnic (line 2)",
                                                                  DATED]))
    write(ws, "notes/people/ann.md", note("Ann", [rel1], ["- Ann (line 1)", "- Ann (line 3)"]))
    write(ws, "notes/trips/storm.md", note("Storm", [rel1], ["- thunderstorm drenched the picnic (line 2)"]))
    rebuild(ws)
    with open_index(ws, readonly=True) as s:
        assert s.note_lines("thunderstorm picnic", 5) == [("notes/trips/storm.md", 8, "- thunderstorm drenched "
                                                                                     "the picnic (line 2)"),
                                                          ("notes/entities/trip.md", 9, DATED)]
        assert [p for (p,) in s.conn.execute("SELECT path FROM notes ORDER BY path")] == [
            "notes/entities/trip.md", "notes/trips/storm.md"]
        assert cited(s.conn, "notes/entities/trip.md") == {9: ["R1:2"]}
        assert s.conn.execute("SELECT u.uid, d.day FROM unit_dates d JOIN units u ON u.id = d.unit").fetchall() == [
            ("R1:2", "2023-01-01")]
        assert first(s.rank("What happened on 1 January 2023?")) == (rel1, 2, "R1:2")
        assert [h.uid for h in s.rank("What happened on 1 January 2023?") if h.score > 0] == ["R1:2"]
        undated = Searcher(s.conn, layers=(), root=str(ws.root))
        assert [h.uid for h in undated.rank("What happened on 1 January 2023?")] == []


def test_line_citations_need_a_note_with_one_source(ws: Workspace):
    rel1 = archive(ws, units("R1", ROUTE_SEG), "route")
    rel2 = archive(ws, units("R2", ["A quiet evening with tea", "Reading by the fire"]), "other")
    seg2 = rel2.split("/")[1]
    text = note("Both", [rel1, rel2], ["- thunderstorm (line 2)", f"- fireside novel (raw/{seg2}/units.log:2)"])
    write(ws, "notes/trips/both.md", text)
    rebuild(ws)
    with open_index(ws, readonly=True) as s:
        assert cited(s.conn, "notes/trips/both.md") == {11: ["R2:2"]}  # "(line 2)" of which source? neither


def test_citation_lists_round_trip():
    """``(raw/<seg>/units.log:3,11,13)``: one citation of several lines of one segment, as notes write it."""
    seg = "raw/2023-05-08T13-56__chat/units.log"
    assert format_citation(seg, 4) == f"({seg}:4)"
    assert citations(format_citation(seg, 3, 11, 13)) == [(seg, 3), (seg, 11), (seg, 13)]
    # a comma that is prose, not a list, ends the citation; a broken path cites nothing
    assert citations(f"see {seg}:3, then 4") == [(seg, 3)]
    assert citations(f"see {seg}:3,x and raw/a b/units.log:5,6") == [(seg, 3)]


# -- ranking rules that are not BM25's ----------------------------------------------------------
def test_a_repeated_text_is_listed_once(ws: Workspace):
    archive(ws, units("a", ["The kiln reached cone six on the first firing.", "Nice."]), "one")
    archive(ws, units("b", ["The kiln reached cone six on the first firing.", "Great."], day="2023-02-02"), "two")
    with open_index(ws) as idx, idx.transaction():
        idx.sync(str(ws.root))
    with open_index(ws, readonly=True) as searcher:
        hits = [h.uid for h in searcher.rank("kiln firing")]
    assert hits.count("a:1") + hits.count("b:1") == 1


def test_a_date_the_query_names_reaches_turns_of_that_day_without_its_words(ws: Workspace):
    archive(ws, units("a", ["We ordered sushi for tonight.", "Yum."], day="2023-10-24"), "one")
    archive(ws, units("b", ["Dinner was pasta again.", "Fine."], day="2023-10-30"), "two")
    with open_index(ws) as idx, idx.transaction():
        idx.sync(str(ws.root))
    with open_index(ws, readonly=True) as searcher:
        ranked = [h.uid for h in searcher.rank("What did Ann eat for dinner on October 24, 2023?")]
        assert "a:1" in ranked and ranked.index("a:1") < 3  # after the matching line and at most its neighbour
        assert "a:1" not in [h.uid for h in searcher.rank("What did Ann eat for dinner?")]


def test_query_dates_read_the_usual_forms_and_not_the_verb_may():
    assert query_dates(["on", "october", "24", "2023"]) == [(2023, 10, 24)]
    assert query_dates(["24", "oct", "2023"]) == [(2023, 10, 24)]
    assert query_dates(["2023", "10", "24"]) == [(2023, 10, 24)]
    assert query_dates(["in", "may"]) == [(None, 5, None)]
    assert query_dates(["what", "may", "she", "do"]) == []


def test_relative_dates_count_from_the_day_the_question_is_asked():
    from horma.core.dates import relative_ranges
    from horma.core.text import words

    sat = "2023-05-20"  # a Saturday
    assert relative_ranges(words("what did I do yesterday"), sat) == [("2023-05-19", "2023-05-20")]
    assert relative_ranges(words("10 days ago"), sat) == [("2023-05-09", "2023-05-12")]
    assert relative_ranges(words("a couple of weeks ago"), sat) == [("2023-05-03", "2023-05-10")]
    assert relative_ranges(words("last Saturday"), sat) == [("2023-05-13", "2023-05-14")]
    assert relative_ranges(words("last month"), sat) == [("2023-04-01", "2023-05-01")]
    assert relative_ranges(words("the last word"), sat) == [] and relative_ranges(words("ago"), "not a date") == []
    assert relative_ranges(words("What did I eat today?"), sat) == [("2023-05-20", "2023-05-21")]
    assert relative_ranges(words("Who was at the door tonight?"), sat) == [("2023-05-20", "2023-05-21")]
    assert relative_ranges(words("Can you recommend a show for me to watch tonight?"), sat) == []
    assert relative_ranges(words("Any ideas for lunch today?"), sat) == []
    assert relative_ranges(words("the trips I took in the past three months"), sat) == [("2023-02-19", "2023-05-21")]
    assert relative_ranges(words("over the past month"), sat) == [("2023-04-20", "2023-05-21")]
    assert relative_ranges(words("in the last 2 weeks"), sat) == [("2023-05-06", "2023-05-21")]
    assert relative_ranges(words("my last three jobs"), sat) == [] and relative_ranges(words("past it"), sat) == []
    assert relative_ranges(words("How many days ago did I bake a cake?"), sat) == []  # an amount, not a day
    assert relative_ranges(words("What did I eat last night?"), sat) == [("2023-05-19", "2023-05-21")]
    assert relative_ranges(words("How much have I spent this month?"), sat) == [("2023-05-01", "2023-05-21")]
    assert relative_ranges(words("this week"), sat) == [("2023-05-15", "2023-05-21")]
    assert relative_ranges(words("what did I eat 10 days ago?"), "0001-01-02") == []  # before year 1: no day
    assert relative_ranges(words("What did I cook on Sunday?"), sat) == [("2023-05-14", "2023-05-15")]
    assert relative_ranges(words("Who did I see on Saturday?"), sat) == [("2023-05-20", "2023-05-21")]
    assert relative_ranges(words("What do I cook on Sundays?"), sat) == []  # habits name no day
    assert relative_ranges(words("Which airline did I fly on Valentine's Day?"), sat) == [("2023-02-14", "2023-02-15")]
    assert relative_ranges(words("What did we eat over Christmas?"), sat) == [("2022-12-24", "2022-12-27")]
    assert relative_ranges(words("Where was I on Christmas Eve?"), sat) == [("2022-12-24", "2022-12-25")]
    assert relative_ranges(words("What did I do on New Year's Eve?"), sat) == [("2022-12-31", "2023-01-01")]
    assert relative_ranges(words("Where did I go on New Year's Day?"), sat) == [("2023-01-01", "2023-01-02")]
    assert relative_ranges(words("What did I buy for Christmas?"), sat) == []  # a gift, bought any time
    assert relative_ranges(words("What should I cook at Christmas?"), sat) == []  # not a question about the past
    assert relative_ranges(words("Where was I on Halloween?"), "0001-01-02") == []  # the one before year 1


def test_a_question_asked_at_the_calendars_edge_still_gets_its_turns(tmp_path: Path):
    import horma

    with horma.Memory(tmp_path / "mem", sandbox="local") as mem:
        mem.record([Unit("s:1", "2024-05-01 12:00", "Ana", "I had tomato soup for lunch.")], slug="lunch")
        # a day out of the calendar crashed hsearch, and the context came back empty
        for question, asked in (("What soup did I have 10 days ago?", "0001-01-02"),
                                ("What soup did I have today?", "9999-12-31")):
            assert mem.recall(question, budget=100, asked=asked).refs == ["s:1"], asked


def test_a_request_for_tonight_is_not_sent_to_what_was_said_today(ws: Workspace):
    archive(ws, units("S1", ["I'm an aspiring stand-up comedian; comedy specials teach me timing.", "Good plan."],
                      day="2023-05-02"), "a")
    archive(ws, units("S2", ["The plumber fixed the sink this morning.", "Finally."], day="2023-05-20"), "b")
    rebuild(ws, full=False)
    with open_index(ws, readonly=True) as s:
        ranked = [h.uid for h in s.rank("Can you recommend some comedy to watch tonight?", today="2023-05-20")]
        assert ranked[0] == "S1:1" and "S2:1" not in ranked  # the plumber is not what to watch
        assert first(s.rank("What did the plumber fix today?", today="2023-05-20"))[2] == "S2:1"
        assert "S2:2" in [h.uid for h in s.rank("Who did I talk to today?", today="2023-05-20")]  # by its day


def test_a_relative_date_reaches_that_days_turns_without_their_words(ws: Workspace):
    archive(ws, units("S1", ["we repainted the fence"], day="2023-05-10"), "a")
    archive(ws, units("S2", ["nothing much happened"], day="2023-05-18"), "b")
    rebuild(ws, full=False)
    with open_index(ws, readonly=True) as s:
        assert first(s.rank("what did we do 10 days ago", today="2023-05-20"))[2] == "S1:1"
        assert s.rank("what did we do 10 days ago") == []  # no date to count from, no word in common


def test_a_weekday_or_a_holiday_in_a_question_about_the_past_reaches_that_days_turns(ws: Workspace):
    archive(ws, units("S1", ["we had lamb with rosemary potatoes"], day="2022-12-25"), "a")
    archive(ws, units("S2", ["made a big pot of chili"], day="2023-05-14"), "b")
    archive(ws, units("S3", ["the weather was grey all week"], day="2023-05-17"), "c")
    rebuild(ws, full=False)
    with open_index(ws, readonly=True) as s:
        assert first(s.rank("What did I cook on Sunday?", today="2023-05-20"))[2] == "S2:1"
        assert first(s.rank("What did we eat at Christmas?", today="2023-05-20"))[2] == "S1:1"
        assert s.rank("What did we eat at Christmas?") == []  # no date to count from, no word in common


def test_last_and_a_month_is_the_latest_one_before_the_day_asked(ws: Workspace):
    assert query_dates(["since", "last", "september"], "2024-05-10") == [(2023, 9, None)]
    assert query_dates(["last", "september"], "2024-10-02") == [(2024, 9, None)]
    assert query_dates(["last", "may"], "2024-05-10") == [(2023, 5, None)]  # this May is not the last one
    assert query_dates(["last", "september"]) == [(None, 9, None)]  # no date to count from: every September
    archive(ws, units("S1", ["we planted the apple trees"], day="2022-09-10"), "a")
    archive(ws, units("S2", ["we planted the tulip bulbs"], day="2023-09-10"), "b")
    rebuild(ws, full=False)
    with open_index(ws, readonly=True) as s:
        asked = [h.uid for h in s.rank("What did we plant last September?", today="2024-05-10") if h.score > 0]
        assert asked[0] == "S2:1" and "S1:1" not in asked[:1]
        assert {h.uid for h in s.rank("What did we do last September?", today="2024-05-10")} == {"S2:1"}


def test_a_turn_that_asks_keeps_its_match_but_for_the_part_in_its_questions():
    from horma.core.asking import question_share, sentences

    assert sentences("Wow, the fire brigade? Great! How is it") == [
        ("Wow, the fire brigade?", True), (" Great!", False), (" How is it", False)]
    wanted = {"brigad", "fire"}
    assert question_share("Wow, the fire brigade? That's great! How has it been?", {"briga", "fire"}) == 1.0
    assert question_share("I joined the fire brigade. Any tips for the fitness test?", {"briga", "fire"}) == 0.0
    assert question_share("I see. What now?", wanted) == 0.5  # no word of the query: the share of its words
    assert question_share("", wanted) == 0.0


def test_a_turn_that_asks_is_read_only_inside_its_workspace(tmp_path: Path):
    from horma.core.asking import ASKED_OWN, kept
    from horma.core.hit import Hit

    line = "X:1 | 2023-01-01 10:00 | Ann: The fire brigade? How is it?\n"
    (tmp_path / "elsewhere.log").write_text(line)
    root = tmp_path / "ws"
    (root / "raw" / "a").mkdir(parents=True)
    (root / "raw" / "a" / "units.log").symlink_to(tmp_path / "elsewhere.log")  # a link out of the workspace
    (root / "raw" / "b").mkdir()
    (root / "raw" / "b" / "units.log").write_text(line)
    hits = [Hit((n, n, 1, 0, "X:1", "Ann", "2023-01-01 10:00", 9, 0)) for n in (1, 2)]
    hits[0].path, hits[1].path = "raw/a/units.log", "raw/b/units.log"
    assert kept(str(root), hits, ["fire", "brigade"]) == {2: ASKED_OWN}


def test_raw_lines_follow_a_link_only_when_it_stays_in_the_workspace(tmp_path: Path):
    from horma.core.layout import RawLines

    root = tmp_path / "ws"
    (root / "raw" / "a").mkdir(parents=True)
    (root / "raw" / "a" / "units.log").write_text("A:1 | first\nA:2 | second\n")
    (root / "raw" / "moved").symlink_to(root / "raw" / "a")  # a link that stays inside
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "units.log").write_text("secret\n")
    (root / "raw" / "out").symlink_to(tmp_path / "out")  # a folder link out of the workspace
    (root / "raw" / "a" / "leak.log").symlink_to(tmp_path / "out" / "units.log")  # a file link out
    with RawLines(str(root)) as lines:
        assert lines.read("raw/a/units.log", 12) == "A:2 | second"
        assert lines.read("raw/moved/units.log", 0) == "A:1 | first"
        for bad in ("raw/out/units.log", "raw/a/leak.log", "raw/../../out/units.log", str(tmp_path / "out/units.log")):
            with pytest.raises(OSError):
                lines.read(bad, 0)
        with pytest.raises(FileNotFoundError):
            lines.read("raw/none/units.log", 0)


# A question that echoes the words, a turn that tells and then asks about something else, and filler
BRIGADE = [(["Wow, you joined the volunteer fire brigade? How has it been so far?", "Tiring, honestly."],
            "2023-05-02", ("Ann", "Bob")),
           (["I joined the volunteer fire brigade as a radio operator. Any tips for night shifts?", "Sleep first."],
            "2023-05-16", ("Bob", "Di")),
           (["The garden needs weeding again.", "The tomatoes look great this year."], "2023-04-01", ("Ann", "Bob")),
           (["My sister visited on Sunday.", "How is her new job?", "She loves it."], "2023-04-08", ("Ann", "Bob")),
           (["The car made a strange noise.", "Take it to the garage on Monday."], "2023-04-15", ("Ann", "Bob"))]


def archive_talks(ws: Workspace, talks: list, actors: tuple[str, str] | None = None) -> None:
    """Each talk (texts, day[, actors]) as segment S<n> of its day, then the index brought up to date."""
    for n, (texts, day, *who) in enumerate(talks, 1):
        archive(ws, units(f"S{n}", texts, day, actors or who[0]), f"t{n}")
    rebuild(ws, full=False)


def archive_brigade(ws: Workspace) -> None:
    archive_talks(ws, BRIGADE)


def test_the_turn_that_tells_ranks_above_the_turn_that_asks_with_the_same_words(ws: Workspace):
    archive_brigade(ws)
    with open_index(ws, readonly=True) as s:
        ranked = [h.uid for h in s.rank("Who joined the volunteer fire brigade?")]
    # the question goes below the turn that tells (and then asks about something else) and the reply it gets
    assert ranked.index("S2:1") < ranked.index("S1:1") and ranked.index("S1:2") < ranked.index("S1:1"), ranked


def test_hsearch_in_a_sandbox_reads_the_raw_line_of_a_turn_that_asks(tmp_path: Path, backend: str):
    ws = Workspace.init(tmp_path / "ws")
    archive_brigade(ws)
    with open_sandbox(ws.root, backend, "read", limits=Limits(timeout=20)) as box:
        out = box.exec("hsearch -n 4 --notes 0 --near none 'Who joined the volunteer fire brigade?'")
    assert out.exit_code == 0, out.output
    lines = [line for line in out.output.splitlines() if "fire brigade" in line]
    assert "radio operator" in lines[0] and "How has it been" in lines[-1], out.output


CHAT_FILLER = [(["The garden needs weeding again.", "Start with the beds by the fence."], "2023-04-01"),
               (["My car made a strange noise.", "Take it to the garage on Monday."], "2023-04-15")]


def test_the_users_next_message_after_an_answer_borrows_less_of_it(ws: Workspace):
    chat = [(["I pulled something at football. Any stretch you'd suggest for tight hamstrings?",
              "Try a standing hamstring stretch: heel on a low step, hinge forward from the hips, hold for thirty "
              "seconds.", "Different thing: my sister's wedding is in June and I need a gift idea.",
              "A framed print of their first home."], "2023-05-02"),
            (["My physio says the hamstring stretch works best after a warm shower.", "That makes sense."],
             "2023-05-09")]
    archive_talks(ws, chat + CHAT_FILLER, ("user", "assistant"))
    with open_index(ws, readonly=True) as s:
        ranked = [h.uid for h in s.rank("Which stretch did you suggest for my hamstrings?")]
    # the wedding message matches nothing: it no longer stands above a turn that matches by its own words
    assert ranked[:2] == ["S1:2", "S1:1"] and ranked.index("S2:1") < ranked.index("S1:3"), ranked


def test_the_assistants_comment_on_a_statement_borrows_less_of_it(tmp_path: Path):
    ws = Workspace.init(tmp_path / "ws")
    chat = [(["I ran my first half marathon on Sunday and finished in 1:58.", "Congratulations, what a milestone!",
              "Thanks! Now I want a new goal."], "2023-05-16"),
            (["We watched the London marathon on TV with my dad all morning, then had a long lunch at the pub by the "
              "river and walked the dog along the canal until dark.", "That sounds like a lovely day."], "2023-05-23")]
    archive_talks(ws, chat + CHAT_FILLER, ("user", "assistant"))
    with open_index(ws, readonly=True) as s:
        ranked = [h.uid for h in s.rank("How fast did I run the half marathon?")]
    # the congratulations match nothing: they no longer stand above a turn that matches by its own words
    assert ranked[0] == "S1:1" and ranked.index("S2:1") < ranked.index("S1:2"), ranked


def test_now_in_other_words_leans_toward_the_later_of_two_like_turns(ws: Workspace):
    archive(ws, units("S1", ["I play tennis on Mondays with Ana.", "Nice."], day="2023-01-09"), "a")
    archive(ws, units("S2", ["I play tennis on Mondays with Ben.", "Fun."], day="2023-09-11"), "b")
    rebuild(ws, full=False)
    with open_index(ws, readonly=True) as s:
        assert first(s.rank("Who do I play tennis with?"))[2] == "S1:1"  # alike: the archive's order
        for asked in ("Who do I play tennis with these days?", "Who do I play tennis with at the moment?",
                      "Who do I play tennis with nowadays?", "Who do I play tennis with now?"):
            score = {h.uid: h.score for h in s.rank(asked)}
            assert score["S2:1"] > score["S1:1"], asked  # the later one leads on its score, not by a tie


def test_the_grammatical_person_of_a_turn_and_a_question():
    from horma.core.text import FIRST, NO_PERSON, SECOND, asked_person, person, words

    assert person(words("We moved to Denver and I love my new commute.")) == FIRST
    assert person(words("You could try a standing desk; your back will thank you. I think so.")) == SECOND
    assert person(words("The kiln reached cone six.")) == NO_PERSON
    assert asked_person(words("Where do I live now?")) == FIRST
    assert asked_person(words("Which course did you recommend?")) == SECOND
    assert asked_person(words("What did you tell me about my back?")) == NO_PERSON  # both: no lean
    assert asked_person(words("Where does Caroline live?")) == NO_PERSON


def _two_speakers(ws: Workspace) -> None:
    said = [Unit("c:1", "2024-03-01 10:00", "Dana", "Big news: we finally moved into the duplex in St. Paul."),
            Unit("c:2", "2024-03-01 10:01", "Assistant",
                 "Congratulations on the move! Moving with a dog is hard; give your dog a few quiet days to settle "
                 "in, keep your routine, and you will all feel at home in the new place soon.")]
    archive(ws, said, "move")


def test_a_first_person_question_leans_toward_first_person_turns(ws: Workspace):
    _two_speakers(ws)
    rebuild(ws, full=False)
    with open_index(ws, readonly=True) as s:
        assert s.rank("Where do I live after the move?")[0].uid == "c:1"
        assert s.rank("What did you say about moving with a dog?")[0].uid == "c:2"



def test_a_turn_in_no_person_takes_half_the_first_persons_lean(ws: Workspace):
    """Three turns with the same words, days apart: "I ..." answers "do I" best, a note without a subject
    ("Now ride ...") next, "you ..." last. With no lean for the subjectless note it tied with "you" and
    went after it (its path sorts later)."""
    for day, (slug, text) in enumerate((("a-you", "you ride the red bike"), ("b-none", "now ride the red bike"),
                                        ("c-first", "i ride the red bike")), 1):
        archive(ws, [Unit(f"{slug}:1", f"2024-03-0{day} 10:00", "Dana", text)], slug)
    rebuild(ws, full=False)
    with open_index(ws, readonly=True) as s:
        ranked = s.rank("Which bike do I ride?")
    assert [h.uid for h in ranked] == ["c-first:1", "b-none:1", "a-you:1"]
    first, none, you = (h.score for h in ranked)
    assert none / you == pytest.approx(PERSON_BOOST ** 0.5) and first / you == pytest.approx(PERSON_BOOST)

def test_asking_you_in_a_chat_leans_toward_the_assistants_turns_in_any_person(tmp_path: Path):
    """In a chat with an assistant "you" is the assistant: its recommendation in the first person ("I'd
    combine...") answers "which course did you recommend?", not the user's own question in the second
    person; between two people (no side an assistant) the turn's grammatical person decides, as before."""
    question = "Which free German course did you recommend?"
    for other, want in (("assistant", ["c:2", "c:1"]), ("Mira", ["c:1", "c:2"])):
        ws = Workspace.init(tmp_path / other)
        archive(ws, [Unit("c:1", "2024-03-01 10:00", "Dana", "Can you recommend a free German course for your "
                          "busy friend? You know my shifts are irregular and your advice is always good."),
                     Unit("c:2", "2024-03-01 10:01", other,
                          "I'd combine two things: Nicos Weg, a free German course online, and a weekly tandem.")],
                "chat")
        rebuild(ws, full=False)
        with open_index(ws, readonly=True) as s:
            assert s.assistants() == ({other} if other == "assistant" else set())
            assert [h.uid for h in s.rank(question)] == want, other


def test_a_persons_next_turn_across_the_others_reaction_shares_the_match_but_not_across_an_assistant(
        tmp_path: Path):
    """Between two people the turn after the other's reaction goes on with the same story: it gets part of the
    matched turn's score and ranks, though it shares no word with the question; after an assistant's reply
    (whose words are the content) the user's next turn gets nothing from two lines up."""
    question = "What did they call the cat adopted from the shelter?"
    for other in ("Mira", "assistant"):
        ws = Workspace.init(tmp_path / other)
        archive(ws, [Unit("c:1", "2024-03-01 10:00", "Dana", "We adopted a tortoiseshell cat from the shelter."),
                     Unit("c:2", "2024-03-01 10:01", other, "Aww, wonderful!"),
                     Unit("c:3", "2024-03-01 10:02", "Dana", "Tiago renamed her Nata, after the custard tarts."),
                     Unit("c:4", "2024-03-01 10:03", other, "Perfect.")], "chat")
        rebuild(ws, full=False)
        with open_index(ws, readonly=True) as s:
            ranked = {h.uid: h.score for h in s.rank(question)}
        assert (ranked.get("c:3", 0.0) > 0) == (other == "Mira"), (other, ranked)  # else only its session's rest
        if other == "Mira":
            assert ranked["c:3"] < ranked["c:1"]


def test_a_first_person_question_in_a_chat_skips_the_assistants_first_person_turns(tmp_path: Path):
    """"I" in a question to an assistant is the one who talks to it: the assistant's "I would love a flat
    by the river" tells nothing about where the asker lives, the user's "we moved into a flat" does;
    between two people both speak of themselves and the lean stays with every first-person turn."""
    question = "Which flat by the river do I live in?"
    for other, want in (("assistant", ["c:1", "c:2"]), ("Mira", ["c:2", "c:1"])):
        ws = Workspace.init(tmp_path / other)
        archive(ws, [Unit("c:1", "2024-03-01 10:00", "Dana", "We finally moved into a small flat last spring."),
                     Unit("c:2", "2024-03-01 10:01", other, "I would love a flat by the river; a flat by the river "
                          "is my dream, I live for rivers.")], "chat")
        rebuild(ws, full=False)
        with open_index(ws, readonly=True) as s:
            assert [h.uid for h in s.rank(question)] == want, other


# Version 5's layout, as horma wrote it before the index was made smaller: what :func:`to_version` turns a
# current index back into, so the upgrade runs on the tables an old workspace really has.
V5_TABLES = """
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE persons(unit INTEGER PRIMARY KEY, person INTEGER NOT NULL);
CREATE TABLE cites(line INTEGER NOT NULL, unit INTEGER NOT NULL);
CREATE INDEX cites_by_line ON cites(line);
CREATE TABLE unit_dates(line INTEGER NOT NULL, unit INTEGER NOT NULL, day TEXT NOT NULL);
CREATE INDEX unit_dates_by_day ON unit_dates(day);
CREATE INDEX unit_dates_by_line ON unit_dates(line);
"""


def to_version(db: Path, version: str) -> None:
    """Rewrite a current index in the layout of version 8 (without units.says_when), 7 (and its vectors
    int8, each row scaled to its largest component, and no codec named in meta), 6 (and without
    units.asks), 5 (and without the v6 tables, on 4 KB pages) or 4 (and without persons)."""
    conn = sqlite3.connect(db, isolation_level=None)
    try:
        conn.execute("BEGIN")
        conn.execute("ALTER TABLE units DROP COLUMN says_when")
        if version == "8":
            conn.execute("UPDATE meta SET value='8' WHERE key='version'")
            conn.execute("COMMIT")
            return
        rows = conn.execute("SELECT unit, q, scale FROM vectors").fetchall()
        v = decode([r[1] for r in rows], CODEC)
        scale = np.abs(v).max(axis=1) / 127.0
        q = np.round(v / scale[:, None]).astype(np.int8)
        conn.executemany("UPDATE vectors SET q=?, scale=? WHERE unit=?",
                         [(q[i].tobytes(), float(scale[i]), r[0]) for i, r in enumerate(rows)])
        conn.execute("DELETE FROM meta WHERE key=?", (CODEC_KEY,))
        if version == "7":
            conn.execute("UPDATE meta SET value='7' WHERE key='version'")
            conn.execute("COMMIT")
            return
        conn.execute("ALTER TABLE units DROP COLUMN asks")
        if version == "6":
            conn.execute("UPDATE meta SET value='6' WHERE key='version'")
            conn.execute("COMMIT")
            return
        rows = {t: conn.execute(f"SELECT {cols} FROM {t}").fetchall()
                for t, cols in (("meta", "key, value"), ("cites", "line, unit"), ("unit_dates", "line, unit, day"),
                                ("persons", "unit, person"))}
        conn.execute("DROP VIEW persons")
        for t in ("meta", "cites", "unit_dates"):
            conn.execute(f"DROP TABLE {t}")
        conn.execute("ALTER TABLE units DROP COLUMN person")
        for stmt in V5_TABLES.strip().rstrip(";").split(";\n"):
            conn.execute(stmt)
        for t, got in rows.items():
            conn.executemany(f"INSERT INTO {t} VALUES({','.join('?' * len(got[0]))})", got)
        if version == "4":
            conn.execute("DROP TABLE persons")
        conn.execute("UPDATE meta SET value=? WHERE key='version'", (version,))
        conn.execute("COMMIT")
        conn.execute("PRAGMA page_size=4096")
        conn.execute("VACUUM")
    finally:
        conn.close()


def _dated_workspace(ws: Workspace) -> str:
    """Two speakers, and a note that cites both turns and dates one ("the day before = 29 Feb")."""
    _two_speakers(ws)
    seg = next((ws.root / "raw").iterdir()).name
    write(ws, "notes/sessions/move.md", note("Move", [f"raw/{seg}/units.log"], [
        "- moved in on 29 February 2024 (line 1)", "- the dog advice (line 2), see also (line 1)"]))
    return seg


def test_note_lines_are_searched_without_their_citations_and_a_version_11_index_is_indexed_again(ws: Workspace):
    """A citation's path words are no words of the line: the note search holds none of them. An index of
    version 11 held them; its upgrade indexes every note line again, so a line dropped later leaves no
    posting behind (a contentless row deleted with other words than it was built from keeps its own)."""
    seg = _dated_workspace(ws)
    cited = f"- the duplex in St. Paul (raw/{seg}/units.log:1)"
    write(ws, "notes/homes/duplex.md", note("Duplex", [], [cited]))
    rebuild(ws, full=False)
    db = index_folder(ws) / HI.DB_NAME

    def matches(word: str) -> int:
        conn = sqlite3.connect(db)
        try:
            return conn.execute("SELECT count(*) FROM note_text WHERE note_text MATCH ?", (word,)).fetchone()[0]
        finally:
            conn.close()

    assert matches("duplex") == 1 and matches("units") == 0 and matches("line") == 0
    with open_index(ws, readonly=True) as s:
        assert [(p, t) for p, _, t in s.note_lines("duplex paul", 5)] == [("notes/homes/duplex.md", cited)]
    conn = sqlite3.connect(db, isolation_level=None)  # back to version 11: every line with its citations
    conn.execute("BEGIN")
    conn.execute("INSERT INTO note_text(note_text) VALUES('delete-all')")
    conn.execute("INSERT INTO note_text(rowid, title, body) SELECT l.id, n.title, l.text "
                 "FROM note_lines l JOIN notes n ON n.id = l.note")
    conn.execute("UPDATE meta SET value='11' WHERE key='version'")
    conn.execute("COMMIT")
    conn.close()
    assert matches("units") == 1 and matches("line") == 1  # the dated line of the session note: "(line N)"
    write(ws, "notes/homes/duplex.md", note("Duplex", [], ["- a garden for the dog"]))
    rebuild(ws, full=False)  # the upgrade, then the note's old line dropped
    assert matches("units") == 0 and matches("line") == 0 and matches("paul") == 0
    assert matches("garden") == 1 and matches("february") == 1  # the other note's dated line, indexed again


def test_an_index_of_version_13_keeps_of_a_regenerated_page_only_the_lines_that_date_a_unit(ws: Workspace):
    """Version 13 indexed every line of every note and kept a table of years. Its upgrade drops, with their
    postings and citations, the lines of the manager's pages that date no unit, and the pages left with
    none, keeps every note someone wrote, and drops the years (the time index holds them): a dated
    question without its year ranks as before."""
    seg = _dated_workspace(ws)
    write(ws, "notes/homes/duplex.md", note("Duplex", [], [f"- the duplex in St. Paul (raw/{seg}/units.log:1)"]))
    rebuild(ws, full=False)
    db = index_folder(ws) / HI.DB_NAME
    asked = ["What happened on 29 February?", "What did Dana do in March?"]
    with open_index(ws, readonly=True) as s:
        before = [[h.uid for h in s.rank(q)] for q in asked]
    assert before[0][0] == "c:1" and before[1][0] == "c:1"
    conn = sqlite3.connect(db, isolation_level=None)  # back to version 13: a people page and the undated line
    conn.execute("BEGIN")
    page = conn.execute("INSERT INTO notes(path, kind, title) VALUES('notes/people/dana.md', 'people', 'Dana')")
    move = conn.execute("SELECT id FROM notes WHERE path='notes/sessions/move.md'").fetchone()[0]
    for note_id, title, text in ((page.lastrowid, "Dana", "- Dana moved (line 1)"),
                                 (move, "Move", "- the dog advice (line 2), see also (line 1)")):
        line = conn.execute("INSERT INTO note_lines(note, lineno, text) VALUES(?, 9, ?)", (note_id, text)).lastrowid
        conn.execute("INSERT INTO note_text(rowid, title, body) VALUES(?, ?, ?)", (line, title, text.split(" (")[0]))
        conn.execute("INSERT INTO cites(line, unit) SELECT ?, id FROM units WHERE uid='c:1'", (line,))
    conn.execute("CREATE TABLE years(year INTEGER PRIMARY KEY)")
    conn.execute("INSERT INTO years VALUES(2024)")
    conn.execute("UPDATE meta SET value='13' WHERE key='version'")
    conn.execute("COMMIT")
    assert conn.execute("SELECT count(*) FROM note_text WHERE note_text MATCH 'advice OR dana'").fetchone() == (2,)
    conn.close()
    with open_index(ws):  # the host's next write open
        pass
    conn = sqlite3.connect(db)
    try:
        assert conn.execute("SELECT value FROM meta WHERE key='version'").fetchone() == (HI.SCHEMA_VERSION,)
        assert conn.execute("SELECT count(*) FROM note_text WHERE note_text MATCH 'advice OR dana'").fetchone() == (0,)
        assert [p for (p,) in conn.execute("SELECT path FROM notes ORDER BY path")] == [
            "notes/homes/duplex.md", "notes/sessions/move.md"]
        assert conn.execute("SELECT count(*) FROM cites").fetchone() == (2,)  # the dated line's, the duplex's
        assert conn.execute("SELECT name FROM sqlite_master WHERE name='years'").fetchone() is None
        fts_ok(conn)
    finally:
        conn.close()
    with open_index(ws, readonly=True) as s:
        assert [[h.uid for h in s.rank(q)] for q in asked] == before


@pytest.mark.parametrize("version", ["4", "5", "6", "7", "8"])
def test_an_index_of_an_older_version_is_upgraded_in_place_keeping_its_rows(ws: Workspace, version: str):
    """Every table's rows are kept; the int8 vectors every version before 8 held are re-coded to 4 bits from
    their own values by the host's next sync, none embedded again."""
    _dated_workspace(ws)
    rebuild(ws, full=False)
    db = index_folder(ws) / HI.DB_NAME

    def state() -> dict:
        conn = sqlite3.connect(db)
        try:
            return {"fingerprint": fingerprint(conn),
                    "dates": sorted(conn.execute("SELECT u.uid, d.day FROM unit_dates d JOIN units u ON u.id=d.unit")),
                    "persons": sorted(conn.execute(
                        "SELECT u.uid, p.person FROM persons p JOIN units u ON u.id = p.unit")),
                    "asks": sorted(conn.execute("SELECT uid, asks, says_when FROM units")),
                    "vectors": sorted(conn.execute(
                        "SELECT u.uid, v.q, v.scale FROM vectors v JOIN units u ON u.id=v.unit")),
                    "codec": conn.execute("SELECT value FROM meta WHERE key=?", (CODEC_KEY,)).fetchall()}
        finally:
            conn.close()

    before = state()
    assert before["dates"] == [("c:1", "2024-02-29")] and len(before["persons"]) == len(before["vectors"]) == 2
    assert before["codec"] == [(CODEC,)] and {len(r[1]) for r in before["vectors"]} == {192}
    to_version(db, version)
    conn = sqlite3.connect(db)
    try:
        old = sorted(conn.execute("SELECT u.uid, v.q, v.scale FROM vectors v JOIN units u ON u.id=v.unit"))
    finally:
        conn.close()
    if version == "8":  # its vectors are already the 4-bit code
        assert {len(r[1]) for r in old} == {192}
    else:
        assert {len(r[1]) for r in old} == {384}
        recoded = encode(decode([r[1] for r in old], INT8))
        before["vectors"] = [(r[0], c, 0) for r, c in zip(old, recoded, strict=True)]
    old_size = db.stat().st_size
    with open_index(ws, readonly=True) as s:  # read-only: an old index still searches (no lean without persons)
        assert "c:1" in {h.uid for h in s.rank("Where do I live after the move?")}
    assert rebuild(ws, full=False)["embedded"] == 0  # the vectors were kept, not embedded again
    assert state() == before
    conn = sqlite3.connect(db)
    try:
        assert conn.execute("SELECT value FROM meta WHERE key='version'").fetchone() == (HI.SCHEMA_VERSION,)
        assert conn.execute("PRAGMA page_size").fetchone() == (HI.PAGE_SIZE,)
        assert conn.execute("PRAGMA auto_vacuum").fetchone() == (2,)  # incremental, from the upgrade's VACUUM
        assert conn.execute("PRAGMA freelist_count").fetchone() == (0,)
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        fts_ok(conn)
        names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'")}
        assert not {"cites_by_line", "unit_dates_by_day"} & names and not any(n.startswith("old_") for n in names)
    finally:
        conn.close()
    assert version in ("6", "7", "8") or db.stat().st_size < old_size  # 6 had the small pages already
    with open_index(ws, readonly=True) as s:
        assert s.rank("Where do I live after the move?")[0].uid == "c:1"
        assert s.rank("what happened on 29 February 2024?")[0].uid == "c:1"


def test_the_index_is_small_pages_and_no_table_it_does_not_query(ws: Workspace):
    """Version 6's layout: small pages, the person a column, cites and dates keyed without a rowid."""
    _dated_workspace(ws)
    rebuild(ws, full=False)
    conn = sqlite3.connect(index_folder(ws) / HI.DB_NAME)
    try:
        assert conn.execute("PRAGMA page_size").fetchone() == (HI.PAGE_SIZE,)
        kinds = dict(conn.execute("SELECT name, type FROM sqlite_master WHERE name IN ('persons', 'cites')"))
        assert kinds == {"persons": "view", "cites": "table"}
        trees = conn.execute("SELECT count(*) FROM sqlite_master WHERE rootpage > 0").fetchone()[0]
        assert trees <= 25  # version 10 added one: updates
        plan = " ".join(r[3] for r in conn.execute(
            "EXPLAIN QUERY PLAN SELECT unit FROM unit_dates WHERE day >= '2024-02' AND day < '2024-03'"))
        assert "PRIMARY KEY" in plan and "SCAN" not in plan
    finally:
        conn.close()


def test_the_rest_of_the_best_sessions_is_read_by_segment_not_by_a_scan_of_every_unit(ws: Workspace):
    """After the matches come the other turns of the best sessions (``sessions=True``: hsearch without a budget).
    Filtered on the talk in one join, SQLite scanned every unit of the archive for them (28 ms a query at 10^5
    units): the talks' segments are found first and their units by the (seg, lineno) index."""
    for day, n in enumerate(("two", "three", "four"), 1):
        said = [f"I planted {n} tomatoes in the garden.", f"Which kind of {n}?", f"Cherry ones, and {n} basil."]
        archive(ws, [Unit(f"d{day}:{i}", f"2024-03-0{day} 10:0{i}", "Ana" if i % 2 else "Ben", text)
                     for i, text in enumerate(said, 1)], f"day-{day}")
    rebuild(ws, full=False)
    with open_index(ws, readonly=True) as s:
        seen: list[str] = []
        s.conn.set_trace_callback(seen.append)
        ranked = s.rank("What did Ana plant in the garden?")
        s.conn.set_trace_callback(None)
        rest = [q for q in seen if "JOIN units u ON u.seg = s.id" in q and "json_each" in q]
        plan = " ".join(r[3] for r in s.conn.execute("EXPLAIN QUERY PLAN " + rest[0]))
    assert len(rest) == 1 and {h.uid for h in ranked} == {f"d{d}:{i}" for d in range(1, 4) for i in range(1, 4)}
    assert "SEARCH u USING" in plan and "SCAN u" not in plan, plan


def test_a_damaged_index_is_told_from_a_busy_one_by_code_or_by_message(tmp_path: Path) -> None:
    """SQLite's error code on sqlite3 errors is Python 3.11+; an error without one (3.10) is judged by its message."""
    garbage = tmp_path / "x.db"
    garbage.write_bytes(b"not sqlite " * 500)
    with pytest.raises(sqlite3.DatabaseError) as raised:
        sqlite3.connect(garbage).execute("PRAGMA quick_check").fetchone()
    assert damaged(raised.value)  # with its code (3.11+) or its message (3.10)
    assert damaged(sqlite3.DatabaseError("file is not a database"))  # built by hand: no code, as on 3.10
    assert damaged(sqlite3.DatabaseError("database disk image is malformed"))
    assert not damaged(sqlite3.OperationalError("database is locked"))


def test_the_turn_after_a_question_takes_its_score(ws: Workspace, monkeypatch):
    """A turn that asks holds the question's words and not its answer: the reply after it takes the asking
    turn's whole score (not PREV_WEIGHT of it), so with the lean toward the speaker named it comes first; the
    asking turn keeps its match but for the part in its question (horma.core.asking)."""
    from horma.core import asking, search

    said = [Unit("a:1", "2023-05-01 10:00", "Mel", "What kind of counseling do you want to pursue?"),
            Unit("a:2", "2023-05-01 10:01", "Caroline", "Working with trans people, supporting their mental health."),
            Unit("a:3", "2023-05-01 10:02", "Mel", "The school counseling office wants more art classes, so I "
                                                  "signed up to teach one."),
            Unit("a:4", "2023-05-01 10:03", "Caroline", "That is great, the kids will love it.")]
    archive(ws, said, "talk")
    rebuild(ws, full=False)
    question = "What kind of counseling does Caroline want to pursue?"
    with open_index(ws, readonly=True) as s:
        assert s.conn.execute("SELECT uid FROM units WHERE asks = 1").fetchall() == [("a:1",)]
        ranked = [h.uid for h in s.rank(question)]
        monkeypatch.setattr(search, "ASKED_WEIGHT", search.PREV_WEIGHT)
        lent = [h.uid for h in s.rank(question)]  # the asking turn still keeps less than its whole match
        monkeypatch.setattr(asking, "ASKED_OWN", 1.0)
        plain = [h.uid for h in s.rank(question)]
    assert ranked[:2] == ["a:2", "a:1"] and lent[:2] == ["a:2", "a:1"] and plain[:2] == ["a:1", "a:2"]


def test_time_expressions_a_turn_says_and_times_a_question_asks():
    from horma.core.dates import asks_when, says_when
    from horma.core.text import words

    said = ["Yesterday I showed my studio at a fair.", "We went camping two weekends ago.",
            "I won the final last Saturday!", "a couple of weeks ago we met", "I plan to return on July 20.",
            "I adopted a pup recently.", "The party is on Fridays now.", "She gave it to me ten years ago."]
    assert [says_when(words(t)) for t in said] == [1] * len(said)
    unsaid = ["I may go to the fair.", "Mondays are hard.", "I have danced for four years now.",
              "Two days of rain and then sun.", "The fair had a dance studio booth."]
    assert [says_when(words(t)) for t in unsaid] == [0] * len(unsaid)
    asked = ["When did Jon go to the fair?", "Which year did she adopt the dog?", "What date is the party?",
             "How many days ago did I buy the bike?", "How long ago did we meet?"]
    assert all(asks_when(words(q)) for q in asked)
    assert not any(asks_when(words(q)) for q in [
        "What did Jon show at the fair?", "How long is the trail?", "How many dogs do I have?",
        "What should I avoid when cooking for my partner?", "Which district did I live in when I first moved?",
        "When you plan my trips, which way of travelling should you rule out?",
        "How many days a week do I work at the pharmacy?"])


def test_a_question_that_asks_when_leans_toward_the_turn_that_says_when(ws: Workspace, monkeypatch):
    """The turn that answers "when did..." says when ("yesterday"), mostly in words the question does not
    use; a turn that repeats more of the question's words and says no time comes after it."""
    from horma.core import search

    archive(ws, FAIR, "fair")
    rebuild(ws, full=False)
    with open_index(ws, readonly=True) as s:
        assert s.conn.execute("SELECT uid FROM units WHERE says_when = 1").fetchall() == [("f:1",)]
        asked = [h.uid for h in s.rank("When did Jon take his dance studio to a fair?")]
        other = [h.uid for h in s.rank("Did Jon take his dance studio to a fair?")]
        monkeypatch.setattr(search, "WHEN_BOOST", 1.0)
        plain = [h.uid for h in s.rank("When did Jon take his dance studio to a fair?")]
    assert asked[0] == "f:1" and other[0] == "f:3" and plain[0] == "f:3"
