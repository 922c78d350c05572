"""Semantic neighbours of a query among a workspace's units: the vectors the index holds, searched on the host.

The index keeps one vector per unit at 4 bits a dimension (``horma.core.index``,
``horma.vector_codec``; an index of an older version, int8, is read as it is
until the host's next write re-codes it); a process loads them once into one
matrix and then only the rows added since (units are only ever appended; a
rebuild or ``horma forget`` changes the count, and a model or codec change the
rows: each reloads all). The matrix holds the stored codes, a byte a dimension
(384 bytes a unit; float32 rows took 1.5 KB). A query is quantized to int8 and
multiplied with every row exactly in integers (``horma.int8_dot``: about 2 ms at
10^5 units); that product, with a bound on the query's rounding, leaves the few
rows that can be among the best, and their cosines are taken from their
float32 rows, so the neighbours and their similarities are those of the float rows.
Past 10^6 units an approximate index (usearch, sqlite-vec, FAISS) would take
over; see docs/benchmarks.md.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from dataclasses import dataclass, field

import numpy as np

from horma.core import index as hi
from horma.core.vectors import CODEC, CODEC_KEY, INT8
from horma.embed import Embedder, default_embedder
from horma.int8_dot import dot
from horma.vector_codec import CODECS, decode, normalized, unpack

# The 4-bit code's -8..7 are stored as 0..15 plus nothing; the int8 code of older indexes as 0..255. Without
# VNNI, onnxruntime's uint8 x int8 kernel sums pairs of products in int16, which saturates past 32767: a
# query against 0..255 codes is rounded to +-64 steps (2 * 255 * 64 < 32767), against 0..15 to +-127.
Q4_OFFSET, INT8_OFFSET = 8, 128
QUERY_STEPS = {Q4_OFFSET: 127, INT8_OFFSET: 64}
NEAR_K = 64  # neighbours handed to hsearch: more than a 1000-token context holds
NEAR_LINES = 8  # note lines handed to it: hsearch --own keeps those near enough (horma.core.search.OWN_SIM)


@dataclass
class Table:
    """A workspace's vectors as one matrix, with their unit ids: what a query and the update links read."""

    model: str = ""
    codec: str = ""
    ids: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    # the stored codes plus ``offset``, as uint8: onnxruntime multiplies uint8 by int8 about 3.5x faster
    # than int8 by int8 (VPDPBUSD and VPMADDUBSW take an unsigned and a signed operand)
    codes: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), dtype=np.uint8))
    offset: int = Q4_OFFSET
    inv: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.float32))  # 1 / a row's length
    spread: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.float32))  # sum |codes| * inv
    counter: bytes = b""  # the file's change counter when the rows were read (:func:`_change_counter`)
    # the lines of notes someone wrote (note_lines.q), read whole at each change: a few hundred, not 10^5
    line_ids: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    lines: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), dtype=np.float32))


@dataclass
class Near:
    """What lies nearest a query in meaning: units (index row ids) and lines of notes someone wrote (note line
    row ids), each with its cosine similarity, best first: ``hsearch --near`` takes both."""

    units: dict[int, float] = field(default_factory=dict)
    lines: dict[int, float] = field(default_factory=dict)


_tables: dict[str, Table] = {}
_lock = threading.Lock()
# What a long-running server keeps loaded (about 400 bytes a unit at 384 dimensions): the least
# recently used workspaces go first; a later query reloads them from the index.
_MAX_ROWS = 1_000_000


def loaded(folder: str, conn: sqlite3.Connection) -> Table:
    """The folder's vectors, topped up with rows added since the last call (reloaded when any went, or
    when the model or the codec changed: rows of two codes are never mixed in one matrix).

    One read transaction: the codec, the model and the rows come from one state of the file, not from
    either side of a writer's re-coding. A codec this horma does not know gives no rows. A file no
    transaction changed since the rows were read is not read at all: counting the rows was the one part
    of a query that grew with the archive (17 ms of 100 at 10^5 units; docs/benchmarks.md, session 15).
    """
    counter = _change_counter(folder)
    with _lock:
        t = _tables.get(folder)
        if t is not None and counter and t.counter == counter:
            _tables[folder] = _tables.pop(folder)  # the most recently used goes last
            return t
    conn.execute("BEGIN")
    try:
        meta = dict(conn.execute("SELECT key, value FROM meta WHERE key IN ('embed_model', ?)", (CODEC_KEY,)))
        model, codec = meta.get("embed_model", ""), meta.get(CODEC_KEY, INT8)
        if codec not in CODECS:
            return Table(model=model, codec=codec)
        count, top = conn.execute("SELECT count(*), coalesce(max(unit), 0) FROM vectors").fetchone()
        counter = _change_counter(folder)  # under the read transaction's lock: the state these rows come from
        with _lock:
            t = _tables.pop(folder, None) or Table()
            known_top = int(t.ids[-1]) if len(t.ids) else 0
            if t.model != model or t.codec != codec or len(t.ids) > count or known_top > top or (
                    len(t.ids) < count and conn.execute("SELECT count(*) FROM vectors WHERE unit <= ?",
                                                        (known_top,)).fetchone()[0] != len(t.ids)):
                t, known_top = Table(model=model, codec=codec), 0
            if len(t.ids) < count:
                rows = conn.execute("SELECT unit, q FROM vectors WHERE unit > ? ORDER BY unit",
                                    (known_top,)).fetchall()
                if rows:
                    ids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
                    wide = unpack([r[1] for r in rows], codec).astype(np.int16)
                    inv = 1.0 / np.maximum(np.sqrt((wide * wide).sum(axis=1, dtype=np.int64)), 1e-12)
                    t.offset = Q4_OFFSET if codec == CODEC else INT8_OFFSET
                    codes = (wide + t.offset).astype(np.uint8)
                    t.ids = np.concatenate([t.ids, ids])
                    t.codes = codes if not len(t.codes) else np.concatenate([t.codes, codes])
                    t.inv = np.concatenate([t.inv, inv.astype(np.float32)])
                    t.spread = np.concatenate([t.spread, (np.abs(wide).sum(axis=1) * inv).astype(np.float32)])
            t.line_ids, t.lines = _own_lines(conn, codec)
            t.counter = counter
            _tables[folder] = t
            while len(_tables) > 1 and sum(len(x.ids) for x in _tables.values()) > _MAX_ROWS:
                _tables.pop(next(iter(_tables)))
            return t
    finally:
        if conn.in_transaction:
            conn.execute("COMMIT")


def _own_lines(conn: sqlite3.Connection, codec: str) -> tuple[np.ndarray, np.ndarray]:
    """The vectors of the lines of notes someone wrote (none in an index from before version 15)."""
    try:
        rows = conn.execute("SELECT id, q FROM note_lines WHERE q IS NOT NULL ORDER BY id").fetchall()
    except sqlite3.OperationalError:
        rows = []
    return (np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows)),
            decode([r[1] for r in rows], codec) if rows else np.zeros((0, 0), dtype=np.float32))


def _change_counter(folder: str) -> bytes:
    """SQLite's file change counter (header bytes 24-27), which every committed write transaction bumps in
    the rollback-journal mode the index uses; empty when the file cannot be read."""
    try:
        with open(os.path.join(folder, hi.DB_NAME), "rb") as fh:
            fh.seek(24)
            return fh.read(4)
    except OSError:
        return b""


def meaning(folder: str, query: str, k: int = NEAR_K, embedder: Embedder | None = None) -> Near:
    """The ``k`` units (index row ids) most similar to ``query``, and the :data:`NEAR_LINES` most similar
    lines of notes someone wrote, with their cosine similarity; the query is embedded once for both.

    Empty when the index holds no vectors, or holds another model's or a code this horma cannot read
    (``horma index`` re-embeds them).
    """
    if not os.path.isfile(os.path.join(folder, hi.DB_NAME)):
        return Near()
    embedder = embedder or default_embedder()
    conn = hi.connect(folder, readonly=True)
    try:
        try:
            t = loaded(folder, conn)
        except sqlite3.OperationalError:  # an index from before vectors: nothing to add
            return Near()
    finally:
        conn.close()
    if not (len(t.ids) or len(t.line_ids)) or t.model != embedder.model_id:
        return Near()
    q = embedder.embed([query])[0]
    return Near(best_units(t, q, k), _best(t.line_ids, t.lines, q, NEAR_LINES))


def nearest(folder: str, query: str, k: int = NEAR_K, embedder: Embedder | None = None) -> dict[int, float]:
    """The ``k`` units (index row ids) most similar to ``query``, with their cosine similarity (:func:`meaning`)."""
    return meaning(folder, query, k, embedder).units


def best_units(t: Table, q: np.ndarray, k: int) -> dict[int, float]:
    """The ``k`` units nearest ``q`` (a unit-length float32 vector) with their cosines, best first.

    One exact integer product with the query rounded to int8 (step ``s``) gives each row's cosine within
    ``s / 2 * sum|codes| / length`` (:attr:`Table.spread`); a row whose upper bound is under the k-th
    best lower bound cannot be among the best. The rest, about a hundred rows, get their cosine from their
    float32 rows (:func:`horma.vector_codec.normalized`): the neighbours and cosines a search of every
    float32 row gives.
    """
    n = len(t.ids)
    if not n:
        return {}
    k = min(k, n)
    step = float(np.abs(q).max()) / QUERY_STEPS[t.offset] or 1.0
    qi = np.rint(q / step).astype(np.int8)
    # float32 throughout: 10^5 values a pass; its rounding (1e-7) is inside the 1e-5 the slack adds
    near = (dot(t.codes, qi[:, None])[:, 0] - t.offset * int(qi.sum(dtype=np.int64))) * np.float32(step) * t.inv
    slack = t.spread * np.float32(step / 2) + np.float32(1e-5)  # the query's rounding, and float32's
    floor = np.partition(near - slack, n - k)[n - k]
    rows = np.flatnonzero(near + slack >= floor)
    return _best(t.ids[rows], normalized(signed(t, rows)), q, k)


def signed(t: Table, rows: np.ndarray) -> np.ndarray:
    """The stored codes of ``rows``, without the offset (int16: an older index's codes reach -128)."""
    return t.codes[rows].astype(np.int16) - t.offset


def alike(t: Table, rows: np.ndarray, floor: float, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For each unit at ``rows``, those of its ``k`` nearest units (itself among them) at least ``floor`` like
    it: (position in ``rows``, row of the unit, cosine), nearest first within a position; of units equally
    near, the earlier. What the update links compare (``horma.update_links``).

    The products are exact integers in the archive's own layout [units, rows], with no float copy of it;
    only the few pairs at or over ``floor`` are then sorted, not every unit's cosine for each row: at 10^5
    units a partition of each row's 10^5 cosines took most of a link's time.
    """
    mine = signed(t, rows)
    if t.offset != Q4_OFFSET:  # older int8 codes, until the host's next write re-codes them: float rows
        sims = normalized(signed(t, np.arange(len(t.ids)))) @ normalized(mine).T
    else:  # (c + 8) . m = c . m + 8 * sum(m); each product is an integer that float32 holds exactly
        products = dot(t.codes, mine.T)
        products -= (t.offset * mine.sum(axis=1, dtype=np.int32))[None, :]
        sims = np.multiply(products, t.inv[:, None], dtype=np.float32)  # in place from here: 10^5 x CHUNK
        sims *= t.inv[rows][None, :]
    unit, pos = np.nonzero(sims >= floor)
    cos = sims[unit, pos]
    # by position, nearest first, then the earlier unit (nonzero lists units in order; the sort is stable)
    order = np.argsort(pos * 4.0 - cos, kind="stable")
    pos, unit, cos = pos[order], unit[order], cos[order]
    keep = np.arange(len(pos)) - np.searchsorted(pos, pos) < k  # the first k of each position
    return pos[keep], unit[keep], cos[keep]


def _best(ids: np.ndarray, m: np.ndarray, q: np.ndarray, k: int) -> dict[int, float]:
    """The ``k`` rows of ``m`` nearest ``q``; of rows equally near (copies of one text), the earlier id first.

    Each cosine is a row's own sum (numpy's, in float32), not a BLAS product's: BLAS sums a row in an order
    that depends on where the row lies in the matrix, so copies of one text came out a last bit apart,
    differently in a search of every row and in one of the rows :func:`best_units` keeps.
    """
    if not len(ids):
        return {}
    sims = (m * q).sum(axis=1)
    k = min(k, len(sims))
    edge = np.partition(sims, len(sims) - k)[len(sims) - k]  # the k-th largest
    top = np.flatnonzero(sims >= edge)
    top = top[np.lexsort((ids[top], -sims[top]))][:k]
    return {int(ids[i]): round(float(sims[i]), 4) for i in top}


def nearest_lines(folder: str, query: str, k: int) -> list[tuple[str, int, float]]:
    """The ``k`` nearest units as (raw path, line number, similarity), best first: for an LLM's prompt."""
    near = nearest(folder, query, k)
    if not near:
        return []
    conn = hi.connect(folder, readonly=True)
    try:
        where = {uid: (path, lineno) for uid, path, lineno in conn.execute(
            "SELECT u.id, s.path, u.lineno FROM units u JOIN segments s ON s.id = u.seg "
            "WHERE u.id IN (SELECT value FROM json_each(?))", ("[" + ",".join(map(str, near)) + "]",))}
    finally:
        conn.close()
    return [(*where[i], s) for i, s in near.items() if i in where]


def format_near(near: dict[int, float], lines: dict[int, float] | None = None) -> str:
    """``near`` (units) and ``lines`` (note lines) as hsearch's ``--near`` argument: ``rowid:similarity``
    pairs, best first, a note line's row id after an ``n``."""
    return ",".join([f"{i}:{s:.3f}" for i, s in near.items()] + [f"n{i}:{s:.3f}" for i, s in (lines or {}).items()])
