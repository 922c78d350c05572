"""Which later turn updates a turn: links the host writes beside the vectors, read by "now" questions.

A fact that changes is usually said again, later, by the same person and in
much the same words: "I'm learning Portuguese with Duolingo" in March, "I've
signed up for the improvers' evening class at the Language Exchange" in
September. Asked "How am I learning Portuguese these days?", the words and the
meaning both find the March turn first, and the September one, which shares
neither the word "Portuguese" nor much of the question's meaning, stays out of
a small context. What ties it to the March turn is its likeness to it.

So for each unit the index keeps the latest later unit (of a later session:
within one talk, :mod:`horma.core.talks`, a conversation goes on) of the same actor among its nearest
whose vector is at least :data:`UPDATE_SIM` near it, or :data:`CHANGE_SIM` when the later unit says
that something changed (``units.changes``): the ``updates`` table. :mod:`horma.core.updates`
follows a link when a question asks for the current state. An assistant's
turns get no links: its facts are not the ones that change.

Links are made after the transaction that stored the vectors commits, in a
short one of their own, from the vectors as committed, read through the
host's vector matrix (``horma.vectors``, loaded once a process and topped up
with the new rows: a record costs one product of its units with the
archive's, not a read of every stored vector). ``meta`` keeps the last unit
linked (``update_links``), in the same transaction as the links: a process
killed between the two transactions leaves units unlinked, and the next
write links them. numpy, so the host's alone, like the vectors; a sandbox's
``hindex`` writes no vectors and no links, and the host's next write adds both.
"""

from __future__ import annotations

import json
import logging
import os
import sqlite3

import numpy as np

from horma.core import text as ht
from horma.core.talks import talk_column
from horma.core.vectors import LINKS_KEY, RULE, RULE_KEY
from horma.vectors import alike, loaded

# Measured on the dev sets (docs/benchmarks.md, session 14): 0.6 moved only updates on every set;
# 0.55 and 0.5 also linked a later remark on the same subject ("the e-Niro did the trip to the Lakes")
# to the turn that says the value ("we've bought a second-hand e-Niro") and lost it at 150 tokens.
UPDATE_SIM = 0.6
# A later turn that says something changed (horma.core.updates.says_change: "We moved! We now rent a house
# in Headingley") updates one it is only somewhat like ("I live in Leeds, in a flat on Otley Road": 0.52).
# 0.5 on the dev sets (docs/benchmarks.md, session 19): held-out chats +0.013 at 8 of 9 budgets, held-out 2
# +0.01 at 100-200, the assistant chats -0.01 at 100 (a "new circuit" took an oven's place), the others
# unchanged; 0.45 also lost a LongMemEval knowledge update at 250 and 500.
CHANGE_SIM = 0.5
CHUNK = 256  # new units compared at a time: CHUNK x (units in the archive) floats however large it is
# A unit's likeness is sought among its nearest NEIGHBOURS only: a long archive holds many turns alike
# ("Thanks!", a repeated plan), and taking every pair of them above UPDATE_SIM cost Python work that grew
# with their square (bench/update_links.py at 10^5 units: 506 s to link all, 190 ms a record; with 16
# neighbours 187 s and 93 ms). The dev sets' rankings are the same either way.
NEIGHBOURS = 16
# Another session is another talk (horma.core.talks), not merely another segment: a client that records
# each message as it comes makes a segment of each, and linking those linked a conversation's later turns
# to its earlier ones (recorded a message at a time, the assistant chats lost 0.01 at 150 tokens, current
# values 0.74 -> 0.68; LongMemEval's haystacks got five times the links: docs/benchmarks.md, session 15).
# The products are exact integer ones on onnxruntime's threads, which do not spin between products
# (horma.vectors.alike), not BLAS's: OpenBLAS's idle threads spun on the cores after each product, and
# the embedding model, which runs next, lost a fifth of its speed to them (bench/embed_speed.py, ingest 179
# -> 144 units/s; session 14).
# Linking a whole archive anew (an index of an earlier rule, its first host write) takes minutes at 10^5
# units (docs/benchmarks.md, session 19): past this many units the wait is announced, not silent, and each
# tenth of it reported (on the log: the link step runs inside whichever command wrote, with no bar of its own).
ANNOUNCE_AT = 10_000
_logger = logging.getLogger(__name__)


def link_pending(conn: sqlite3.Connection) -> int:
    """Link every unit embedded after the last one linked; how many units that was. Outside a transaction.

    A new unit may update an older one, or (an archive recorded out of order) be updated by one already
    linked; each earlier unit keeps only its latest update.
    """
    linked = conn.execute("SELECT value FROM meta WHERE key=?", (LINKS_KEY,)).fetchone()
    rule = conn.execute("SELECT value FROM meta WHERE key=?", (RULE_KEY,)).fetchone()
    anew = rule is None or rule[0] != RULE  # links of an earlier rule: every unit is linked again
    done = int(linked[0]) if linked and not anew else 0
    last = conn.execute("SELECT max(unit) FROM vectors").fetchone()[0]
    if last is None or last <= done:
        return 0
    folder = os.path.dirname(conn.execute("PRAGMA database_list").fetchone()[2])
    table = loaded(folder, conn)  # the committed vectors, one read transaction
    if not len(table.ids):
        return 0
    fresh = np.nonzero(table.ids > done)[0]
    announce = anew and len(fresh) >= ANNOUNCE_AT
    if announce:
        _logger.warning("%s: linking %d units to their later updates by this version's rule (once; about "
                        "1 ms a unit at 10^5 units)", folder, len(fresh))
    report = len(fresh) // 10  # announced: a line each tenth, so a wait of minutes shows it moves
    pairs: dict[tuple[int, int], float] = {}  # (new unit, neighbour) -> their likeness
    k = min(NEIGHBOURS + 1, len(table.ids))  # with the unit itself
    for start in range(0, len(fresh), CHUNK):
        rows = fresh[start:start + CHUNK]
        for i, j, sim in zip(*alike(table, rows, CHANGE_SIM, k), strict=True):
            pairs[int(table.ids[rows[i]]), int(table.ids[j])] = float(sim)
        compared = start + len(rows)
        if announce and report <= compared < len(fresh):
            _logger.warning("%s: compared %d of %d units (%d%%)", folder, compared, len(fresh),
                            100 * compared // len(fresh))
            report = compared + len(fresh) // 10
    info = _units(conn, {u for pair in pairs for u in pair})
    best: dict[int, int] = {}  # an earlier unit -> its latest update
    for (a, b), sim in pairs.items():
        if a not in info or b not in info or info[a][0] != info[b][0] or info[a][2] == info[b][2]:
            continue  # another speaker's, or the same session's: a conversation goes on, it does not update
        early, late = sorted((a, b), key=lambda u: (info[u][1], u))
        if sim < UPDATE_SIM and not info[late][3]:
            continue  # only somewhat alike, and the later one says no change
        if early not in best or (info[late][1], late) > (info[best[early]][1], best[early]):
            best[early] = late
    conn.execute("BEGIN IMMEDIATE")
    try:
        if anew:
            conn.execute("DELETE FROM updates")
            conn.execute("INSERT OR REPLACE INTO meta VALUES(?, ?)", (RULE_KEY, RULE))
        stored = dict(conn.execute("SELECT unit, later FROM updates WHERE unit IN (SELECT value FROM json_each(?))",
                                   (json.dumps(sorted(best)),)))
        info.update(_units(conn, set(stored.values()) - set(info)))
        conn.executemany("INSERT OR REPLACE INTO updates(unit, later) VALUES(?, ?)", [
            (e, late) for e, late in best.items()
            if e not in stored or stored[e] not in info or (info[late][1], late) > (info[stored[e]][1], stored[e])])
        conn.execute("INSERT OR REPLACE INTO meta VALUES(?, ?)", (LINKS_KEY, str(int(table.ids.max()))))
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    return len(fresh)


def _units(conn: sqlite3.Connection, ids: set[int]) -> dict[int, tuple[str, str, int, int]]:
    """Unit id -> (actor, time, talk, says a change) for ``ids``, an assistant's units left out (they get
    no links)."""
    return {i: (a, t, talk, changes or 0) for i, a, t, talk, changes in conn.execute(
        f"SELECT u.id, u.actor, u.time, {talk_column(conn)}, u.changes FROM units u JOIN segments s "
        "ON s.id = u.seg WHERE u.id IN (SELECT value FROM json_each(?))", (json.dumps(sorted(ids)),))
        if a.casefold() not in ht.ASSISTANT_ROLES}
