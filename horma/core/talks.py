"""Which archive segments are one conversation: the talk a segment belongs to.

A segment is a folder of ``raw/``: what one ``record`` archived, and the
records that went on in it. A client that records each message as it comes
(``horma add``, an MCP client's ``record`` a message, the Anthropic memory
tool's writes) made a segment of every turn until session 21; now a batch
that :func:`goes_on` after the latest segment of its name is appended to it,
so such a conversation is one segment, as a session recorded whole is. Talks
still join what appending cannot: the segments a workspace recorded before, a
batch dated before the segment's last unit. The ranking reads a
conversation as one: a turn's neighbours lend it their score, a session about
the question lifts its turns, a conversation goes on and does not update
itself (:mod:`horma.update_links`). Read by segment, a conversation recorded a
message at a time lost all three (the assistant chats, recorded so: 0.83 ->
0.76 at 300 tokens; docs/benchmarks.md, session 15).

So each segment has a talk (``segments.talk``): the talk of the segment indexed
just before it when both carry the same name (the ``<slug>`` of
``raw/<time>__<slug>``, the session a client named), it starts less than
:data:`SAME_TALK` after that one's last unit, and the talk holds fewer than
:data:`TALK_UNITS` units; its own id otherwise. A session recorded whole is a
talk of one segment, as before.

Stdlib only, like all of :mod:`horma.core`: ``hindex`` assigns talks in the sandbox.
"""

from __future__ import annotations

import datetime as dt
import re
import sqlite3
from collections.abc import Callable

SAME_TALK = dt.timedelta(minutes=30)
# A talk ends after this many units: an agent that records every few minutes all day, under one name, is not
# one conversation, and a talk is what the ranking's "rest of the best sessions" reads whole.
TALK_UNITS = 200
_COPY = re.compile(r"-\d+$")  # raw/<time>__<slug>-2: a second segment of one name within a minute


def session_name(path: str, exists: Callable[[str], bool]) -> str:
    """The session name in ``raw/<time>__<slug>[-n]/units.log``, without the ``-n`` that tells two segments of
    one name and minute apart (only where that first segment ``exists``: a slug may end in a number); a path
    of another form is its own name."""
    parts = path.split("/")
    if len(parts) < 3 or "__" not in parts[-2]:
        return path
    slug = parts[-2].partition("__")[2]
    bare = _COPY.sub("", slug)
    if bare != slug and exists(path.replace(f"__{slug}/", f"__{bare}/", 1)):
        return bare
    return slug


def archive_order(path: str, exists: Callable[[str], bool]) -> tuple[str, int]:
    """A key that sorts segments as they were archived: ``<name>``, ``<name>-2`` ... ``<name>-10`` of one minute
    in that order (their paths sort ``-10`` before ``-2``, and both before ``<name>/``)."""
    name = session_name(path, exists)
    parts = path.split("/")
    if len(parts) < 3 or "__" not in parts[-2]:
        return path, 0
    slug = parts[-2].partition("__")[2]
    return path.replace(f"__{slug}/", f"__{name}/", 1), int(slug[len(name) + 1:]) if slug != name else 1


def block(path: str, time: str, exists: Callable[[str], bool]) -> tuple[str, str]:
    """Which of a context's blocks a raw line goes in, each under one ``[date]`` header: a day of one session
    name. A conversation recorded a message at a time was a segment a turn, and paid a header a turn (the
    assistant chats recorded so: 0.927 at 1000 tokens against 0.950 recorded a session at a time; with a block
    a day of a name, the same figures at every budget: docs/benchmarks.md, session 15)."""
    return time[:10], session_name(path, exists)


def goes_on(last: str | None, held: int, first: str | None, adding: int) -> bool:
    """Whether a batch whose first unit is at ``first`` goes on in the segment whose last unit was at ``last``
    (holding ``held`` units) rather than starting one: it starts less than :data:`SAME_TALK` after that unit and
    not before it (a segment's lines stay in time order), and the talk stays within :data:`TALK_UNITS`. How a
    conversation recorded a message at a time stays one folder of ``raw/`` (``horma.agents.manager``)."""
    start, end = _when(first), _when(last)
    return (start is not None and end is not None and dt.timedelta(0) <= start - end < SAME_TALK
            and held + adding <= TALK_UNITS)


def _name(conn: sqlite3.Connection, path: str) -> str:
    return session_name(path, lambda p: conn.execute("SELECT 1 FROM segments WHERE path = ?", (p,)).fetchone()
                        is not None)


def _when(time: str | None) -> dt.datetime | None:
    try:
        return dt.datetime.fromisoformat(time).replace(tzinfo=None) if time else None
    except ValueError:  # not a time this reads: a talk of its own
        return None


def joins(conn: sqlite3.Connection, path: str, first: str | None, seg: int | None = None) -> int | None:
    """The talk a segment (``path``, its first unit's ``first`` time; ``seg`` its id once indexed) continues:
    that of the segment indexed before it, under the rule above; None when it starts one."""
    prev = conn.execute("SELECT id, path, coalesce(talk, id) FROM segments WHERE id < ? ORDER BY id DESC LIMIT 1",
                        (seg if seg is not None else 1 << 62,)).fetchone()
    start = _when(first)
    if prev is None or start is None or _name(conn, prev[1]) != _name(conn, path):
        return None
    last_time, last_id = conn.execute("SELECT max(time), max(id) FROM units WHERE seg = ?", (prev[0],)).fetchone()
    first_id = conn.execute("SELECT min(id) FROM units WHERE seg = ?", (prev[2],)).fetchone()[0]
    last = _when(last_time)
    if (last is not None and abs(start - last) < SAME_TALK  # either way: a rebuild reads raw/ in name order
            and (first_id is None or last_id - first_id + 1 < TALK_UNITS)):
        return int(prev[2])
    return None


def assign(conn: sqlite3.Connection, seg: int, path: str, first: str | None) -> None:
    """Set the talk of segment ``seg`` (``path``, its first unit's ``first`` time), just indexed."""
    talk = joins(conn, path, first, seg)
    conn.execute("UPDATE segments SET talk = ? WHERE id = ?", (seg if talk is None else talk, seg))


def assign_all(conn: sqlite3.Connection) -> None:
    """Every segment's talk, in the order they were indexed (an index from before talks), in the caller's
    transaction."""
    for seg, path in conn.execute("SELECT id, path FROM segments ORDER BY id").fetchall():
        first = conn.execute("SELECT min(time) FROM units WHERE seg = ?", (seg,)).fetchone()[0]
        assign(conn, seg, path, first)


def talk_column(conn: sqlite3.Connection) -> str:
    """The SQL for a segment's talk, ``s`` the segments table: its id on an index from before talks, read-only
    (no talks until the next write brings it up to date)."""
    columns = {r[1] for r in conn.execute("PRAGMA table_info(segments)")}
    return "coalesce(s.talk, s.id)" if "talk" in columns else "s.id"
