"""Which later turn updates a turn: links the host writes beside the vectors, read by "now" questions.

A fact that changes is usually said again, later, by the same person and in
much the same words: "I'm learning Portuguese with Duolingo" in March, "I've
signed up for the improvers' evening class at the Language Exchange" in
September. Asked "How am I learning Portuguese these days?", the words and the
meaning both find the March turn first, and the September one, which shares
neither the word "Portuguese" nor much of the question's meaning, stays out of
a small context. What ties it to the March turn is its likeness to it.

So for each unit the index keeps the latest later unit (a later time, not the
same session) of the same actor whose vector is at least :data:`UPDATE_SIM`
near it: the ``updates`` table, written in the same transaction as the
vectors, from their stored 4-bit code. :mod:`horma.core.updates` follows a
link when a question asks for the current state. An assistant's turns get no
links: its facts are not the ones that change. numpy, so the host's alone,
like the vectors; a sandbox's ``hindex`` writes no vectors and no links, and
the host's next sync adds both.
"""

from __future__ import annotations

import json
import sqlite3

import numpy as np

from horma.core import text as ht
from horma.core.vectors import CODEC_KEY, INT8
from horma.vector_codec import decode

# Measured on the dev sets (docs/benchmarks.md, session 14): 0.6 moved only updates on every set;
# 0.55 and 0.5 also linked a later remark on the same subject ("the e-Niro did the trip to the Lakes")
# to the turn that says the value ("we've bought a second-hand e-Niro") and lost it at 150 tokens.
UPDATE_SIM = 0.6
CHUNK = 256  # new units compared at a time: CHUNK x (units of their actors) floats however large the index


def link(conn: sqlite3.Connection, rowids: list[int]) -> None:
    """Link ``rowids`` (units just given vectors) with every unit of their actors, in the caller's transaction.

    A new unit may update an older one, or (an archive recorded out of order) be updated by one already
    stored; each earlier unit keeps only its latest update.
    """
    if not rowids:
        return
    ids_json = json.dumps(sorted(set(rowids)))
    actors = [a for (a,) in conn.execute("SELECT DISTINCT actor FROM units WHERE id IN (SELECT value FROM "
                                         "json_each(?))", (ids_json,)) if a.casefold() not in ht.ASSISTANT_ROLES]
    if not actors:
        return
    row = conn.execute("SELECT value FROM meta WHERE key=?", (CODEC_KEY,)).fetchone()
    rows = conn.execute("SELECT v.unit, v.q, v.scale, u.actor, u.time FROM vectors v JOIN units u ON u.id = v.unit "
                        "WHERE u.actor IN (SELECT value FROM json_each(?)) ORDER BY u.time, v.unit",
                        (json.dumps(actors),)).fetchall()
    if len(rows) < 2:
        return
    m = decode([r[1] for r in rows], [r[2] for r in rows], row[0] if row else INT8)
    ids = np.array([r[0] for r in rows], dtype=np.int64)  # in (time, id) order: position = how late
    actor = np.unique([r[3] for r in rows], return_inverse=True)[1]
    times = np.unique([r[4] for r in rows], return_inverse=True)[1]  # rank of the time: equal times share one
    new = np.nonzero(np.isin(ids, np.array(sorted(set(rowids)), dtype=np.int64)))[0]
    best: dict[int, int] = {}  # position of an earlier unit -> position of its latest update
    for start in range(0, len(new), CHUNK):
        rows_at = new[start:start + CHUNK]
        sims = m[rows_at] @ m.T
        for i, j in zip(*np.nonzero(sims >= UPDATE_SIM), strict=True):
            a, b = int(rows_at[i]), int(j)
            if actor[a] != actor[b] or times[a] == times[b]:
                continue
            early, late = (a, b) if a < b else (b, a)
            if late > best.get(early, -1):
                best[early] = late
    if not best:
        return
    where = {int(uid): pos for pos, uid in enumerate(ids)}
    stored = dict(conn.execute("SELECT unit, later FROM updates WHERE unit IN (SELECT value FROM json_each(?))",
                               (json.dumps([int(ids[e]) for e in best]),)))
    conn.executemany("INSERT OR REPLACE INTO updates(unit, later) VALUES(?, ?)",
                     [(int(ids[e]), int(ids[late])) for e, late in best.items()
                      if where.get(stored.get(int(ids[e]), -1), -1) < late])
