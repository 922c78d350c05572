"""A question about the present gets the newest value first: "How am I learning Portuguese these days?"

Facts that change are the heart of a personal memory, and the latest one is
what a question asked in the present wants. Its words and its meaning find the
turn that named the fact first (the one that says "Portuguese"); the turn that
changed it later often shares neither ("I've signed up for the improvers'
class"). The index links each turn to the latest later turn of the same
speaker that is much like it, or somewhat like it when the later turn says
that something changed (:func:`says_change`; ``updates``, written by the host
with the vectors: :mod:`horma.update_links`). For a question that asks about the
asker's present (first person, "now", "currently", "these days", "at the moment"), each
of the best few turns gives its place to its latest update, and itself moves a
few places down: the earlier value stays in a context with room, after the
newer one. A question that names a date or asks about an earlier value
("before", "previous", "used to") is left as it is.

Stdlib only, like all of :mod:`horma.core`: ``hsearch`` runs it in the sandbox.
"""

from __future__ import annotations

import sqlite3

from horma.core import text as ht
from horma.core.dates import query_dates
from horma.core.hit import Hit

NOW = frozenset(("now", "current", "currently", "nowadays", "still", "anymore"))
PHRASES = (frozenset(("these", "days")), frozenset(("at", "the", "moment")))  # "now" in other words
# A question about an earlier value, or one that dates itself, asks for what the old turn says.
EARLIER = frozenset(("previous", "previously", "before", "earlier", "used", "originally", "first", "last"))
# Words with which a turn says that something changed ("we moved", "no longer", "switched to", "I've
# left the choir", "changed her mind again"): such a later turn updates an earlier one it is only
# somewhat like (horma.update_links.CHANGE_SIM), where its likeness alone would not say so.
CHANGE_WORDS = frozenset(("now", "anymore", "longer", "switched", "changed", "new", "instead", "quit",
                          "stopped", "left", "moved", "replaced", "started", "again"))
TOP = 3  # the best turns (not an assistant's) whose updates are followed
# Where a turn that gave its place to its update goes: behind the sixth (measured on the dev sets,
# docs/benchmarks.md, session 14). Right behind its update, it spent a small budget twice on one subject
# when the update is a later remark rather than a new value (user chats -0.026 at 150).
MOVED_TO = 6


def asks_now(words: list[str]) -> bool:
    """Whether a question (its words, lower-cased) asks the asker's present state."""
    have = set(words)
    if not (have & NOW or any(have >= p for p in PHRASES)) or have & EARLIER:
        return False
    return ht.asked_person(words) == ht.FIRST and not query_dates(words)


def says_change(words: list[str]) -> int:
    """1 when a turn (its words, lower-cased) says that something changed (:data:`CHANGE_WORDS`)."""
    return int(not CHANGE_WORDS.isdisjoint(words))


def newest_first(conn: sqlite3.Connection, ranked: list[Hit], assistants: set[str]) -> list[Hit]:
    """``ranked`` with each of its best :data:`TOP` turns replaced by its latest update, which it moves behind
    :data:`MOVED_TO`."""
    top = [h for h in ranked if h.actor not in assistants][:TOP]
    try:
        later = dict(conn.execute("SELECT unit, later FROM updates WHERE unit IN (SELECT value FROM json_each(?))",
                                  ("[" + ",".join(str(h.id) for h in top) + "]",)))
    except sqlite3.OperationalError:  # an index from before version 10, read-only: no links until synced
        return ranked
    if not later:
        return ranked
    out = list(ranked)
    have = {h.id for h in out}
    fetched = {}
    for row in conn.execute(
            "SELECT u.id, u.seg, u.lineno, u.offset, u.uid, u.actor, u.time, u.cost, u.digest, s.path FROM units u "
            "JOIN segments s ON s.id = u.seg WHERE u.id IN (SELECT value FROM json_each(?))",
            ("[" + ",".join(str(u) for u in set(later.values()) - have) + "]",)):
        hit = Hit(row[:9])
        hit.path = row[9]
        fetched[row[0]] = hit
    for h in top:
        newer_id = later.get(h.id)
        ids = [x.id for x in out]
        at = ids.index(h.id)
        if newer_id is None or (newer_id in ids and ids.index(newer_id) < at):
            continue
        newer = out.pop(ids.index(newer_id)) if newer_id in ids else fetched.get(newer_id)
        if newer is None:
            continue
        newer.score = h.score
        out[at] = newer
        out.insert(min(len(out), MOVED_TO), h)
    return out
