"""The heuristic manager: deterministic notes for each archived segment, written in code on the host.

Zero LLM calls, so it is the offline default and fast enough for bulk ingest.
Data flows one way, in three stages:

1. **extraction** (:mod:`horma.agents.extraction`): pure functions turn the
   segment's units into :class:`~horma.agents.extraction.SegmentFacts`
   (entities, topics, anchored dates, key phrases, mention snippets);
2. **rendering**: a :class:`NoteBook` (the notes this manager knows, kept by
   one Manager between segments) folds the facts into notes and renders every
   changed one with the one note renderer, :meth:`horma.workspace.Note.render`;
3. **writing**: each file lands atomically (temp + rename,
   :class:`horma.workspace.FileWriter`) under the writer lock the Manager
   holds, then the search index takes the raw segment and every written note
   in one transaction (:func:`horma.index.open_index`).

No sandbox takes part: this is the project's own code writing only ``notes/``, ``INDEX.md``
and the index, so there is nothing to isolate, and a round trip through a sandbox shell cost
more than the writing itself. An LLM manager is the one that works in the sandbox's write view.

What it writes for each new raw segment:

- ``notes/sessions/<YYYY-MM>/<segment>.md``: date, participants, key phrases, and a line
  citing ``(line N)`` for each turn that names a relative date, anchored to the
  session date ("yesterday = 7 May 2023"); every turn with its words only with
  ``session_gists`` or ``verbatim_quotes``. Units appended to a segment (a conversation recorded a
  message at a time goes on in one: :mod:`horma.agents.manager`) join its note. A segment that continues a talk
  (:mod:`horma.core.talks`: a conversation recorded a message at a time) joins
  the talk's note instead, cited ``raw/<seg>/units.log:N``, and adds no timeline line;
- ``notes/people/<speaker>.md`` (``the-user.md`` for a ``user`` label: :mod:`horma.agents.speakers`)
  and ``notes/entities/<name>.md``: the raw lines that mention the person or named thing, one pointer
  line per session ``date (raw/<seg>/units.log:N,M) speakers`` (the words stay in raw/); in the note itself while
  it is small, then a summary and one page per month (``<name>/<YYYY-MM>.md``). A speaker's own turns get
  one line per talk (its first segment where they speak): the talk's session note lists the rest.
  A name gets its note when a second talk names it (``.horma/names-once.jsonl``
  keeps the first talk's mentions until then: within one talk the session note's names suffice);
- ``notes/topics/<topic>.md`` with ``topic_notes``: the same for lines about family, work, hobbies, ...;
- ``notes/timeline.md``: one dated line per session, a talk's first segment (paged by year once long); ``INDEX.md``;
- ``notes/state.md`` with ``track_state``: when each person and name was last seen.

The stages live in their own modules: :mod:`horma.agents.mention_notes` and
:mod:`horma.agents.timeline_note` (the note shapes), :mod:`horma.agents.notebook`
(what is known between segments), :mod:`horma.agents.segment_notes` (rendering);
this module writes and indexes, and is the policy.

Options come from the skill library (``horma.skills.heuristic_options``); the
defaults below apply to options it does not set.
"""

from __future__ import annotations

import json
import sqlite3
import time
import weakref
from collections.abc import Mapping
from typing import Any

from horma.agents.extraction import (
    extract,
)
from horma.agents.notebook import NoteBook
from horma.agents.policies import Organized, OrganizeTask, SandboxedAgent
from horma.agents.segment_notes import render_segment, session_note_path
from horma.workspace import (
    NOTES_DIR,
    FileWriter,
    Note,
    Unit,
    Workspace,
    WorkspaceError,
    parse_raw_line,
)

DEFAULT_OPTIONS: dict[str, bool | int] = {
    "entity_notes": True,
    "session_notes": True,
    # keyword topics (family, work, ...) gained nothing on either dev split and were the largest notes; a
    # skill can turn them back on
    "topic_notes": False,
    "timeline": True,
    "anchor_relative_dates": True,
    "verbatim_quotes": False,
    "quote_mentions": False,  # people/entity/topic pages cite lines; True copies their first words too
    "session_gists": False,  # session notes list each turn by id and line; True adds its first words
    "keep_numbers": True,
    "track_state": False,
    "max_key_phrases": 12,
}


def options(skills: Mapping[str, Any] | None) -> dict[str, bool | int]:
    """The defaults, overridden by the options the skill library sets (others are ignored)."""
    out = dict(DEFAULT_OPTIONS)
    for key, value in (skills or {}).items():
        if key in out:
            out[key] = value
    return out


# -- writing -----------------------------------------------------------------------
def write_segment(book: NoteBook, segment: str, raw_text: str, files: dict[str, str]) -> list[tuple[str, int]]:
    """Write ``files`` (each atomically), then index the raw segment and the notes in one transaction.

    Returns ``(path, bytes)`` per file written. The index goes last: a crash
    before its commit leaves the segment unorganized in the ingest log, and
    the re-run rewrites the same notes (mention pages list a unit once) and
    indexes them.
    """
    from horma.index import open_index

    written = []
    with FileWriter(book.ws.root) as out:
        for rel, text in files.items():
            book.wrote(rel, out.write(rel, text))
            written.append((rel, len(text.encode("utf-8"))))
    book.flush_once()
    with open_index(book.ws) as idx, idx.transaction():
        idx.add_segment(segment, raw_text)
        for rel, text in files.items():
            if rel.startswith(f"{NOTES_DIR}/"):
                idx.put_note(rel, text)
    return written


def organize(book: NoteBook, segment: str, units: list[Unit], skills: Mapping[str, Any] | None = None,
             trajectory=None) -> dict:
    """Extract, render and write the notes and index for a newly archived raw segment."""
    t0 = time.perf_counter()
    opts = options(skills)
    path = book.ws.resolve(segment)
    if not path.is_file():
        raise WorkspaceError(f"{segment}: no such raw segment")
    raw_text = book.ws.read_raw(path)
    every = [(n, u) for n, line in enumerate(raw_text.splitlines(), 1) if (u := parse_raw_line(line)) is not None]
    wanted = {u.id for u in units}
    located = [(n, u) for n, u in every if u.id in wanted]
    book.begin_segment()
    talk_note, talk_segments, again = _talk(book.ws, segment, located)
    if again:
        # units went on in a segment organized before (a conversation recorded a message at a time): its notes
        # are made again from all its units, as for a session recorded whole (mention pages take a unit once)
        located = every
    facts = extract(segment, located, book.known, opts)
    book.known.update(facts.names)
    files = render_segment(book, facts, opts, talk_note if opts["session_notes"] else None, talk_segments)
    t1 = time.perf_counter()
    written = write_segment(book, segment, raw_text, files)
    t2 = time.perf_counter()
    notes = sum(r.startswith(f"{NOTES_DIR}/") for r in files)
    if trajectory is not None:
        size = sum(n for _, n in written)
        trajectory.step("write", {"segment": segment},
                        f"wrote {len(written)} files ({size} bytes), each by temp file + rename\n"
                        + "\n".join(f"{rel} {n}" for rel, n in written),
                        files=[{"path": rel, "bytes": n} for rel, n in written], exit_code=0,
                        elapsed_ms=round((t2 - t0) * 1000, 3))
        trajectory.step("index", {"segment": segment, "notes": notes},
                        f"indexed {segment} and {notes} notes in one transaction", exit_code=0,
                        elapsed_ms=round((t2 - t1) * 1000, 3))
    return {"segment": segment, "units": len(located), "notes_written": notes, "files_written": len(written),
            "bytes_written": sum(n for _, n in written), "entities": len(facts.names),
            "elapsed_ms": round((time.perf_counter() - t0) * 1000, 3)}


def _talk(ws: Workspace, segment: str,
          located: list[tuple[int, Unit]]) -> tuple[Note | None, frozenset[str], bool]:
    """The session note of the talk this segment continues (:mod:`horma.core.talks`), where this manager wrote
    one, the talk's other segments, and whether the segment starts its talk and was indexed before (units
    went on in it, or it is organized again); (None, no segments, False) when the segment starts a talk, or
    the index cannot tell yet."""
    from horma.core import index_schema, talks
    from horma.index import index_folder

    none: tuple[Note | None, frozenset[str], bool] = (None, frozenset(), False)
    if not located:
        return none
    try:
        conn = index_schema.connect(str(index_folder(ws)), readonly=True)
    except index_schema.IndexError_:
        return none  # no index yet: the first segment
    try:
        row = conn.execute(f"SELECT {talks.talk_column(conn)} FROM segments s WHERE path = ?", (segment,)).fetchone()
        # indexed already: units appended to it (or organized again), in the talk it was given
        talk = row[0] if row else talks.joins(conn, segment, located[0][1].time)
        # a talk's segments follow one another (each joins the one indexed before it): read from its first on,
        # not the whole table (a workspace that recorded a segment a message has a segment a unit)
        paths = [p for (p,) in conn.execute("SELECT path FROM segments WHERE id >= ? AND talk = ? ORDER BY id",
                                            (talk, talk))] if talk is not None else []
    except sqlite3.OperationalError:  # an index from before talks: the next write brings it up to date
        return none
    finally:
        conn.close()
    others = frozenset(paths) - {segment}
    if not paths:
        return none
    if paths[0] == segment:
        return None, others, row is not None
    return _note_of(ws, _session_note_rel(ws, paths[0])), others, False


def _session_note_rel(ws: Workspace, seg: str) -> str:
    rel = session_note_path(seg)
    if not (ws.root / rel).is_file():  # a workspace from before month folders keeps its notes where they are
        old = f"{NOTES_DIR}/sessions/{seg.rsplit('/', 2)[-2]}.md"
        return old if (ws.root / old).is_file() else rel
    return rel


def _note_of(ws: Workspace, rel: str) -> Note | None:
    try:
        return ws.read_note(rel) if (ws.root / rel).is_file() else None
    except WorkspaceError:  # a session note someone broke: the segment gets a note of its own
        return None


_BOOKS: weakref.WeakKeyDictionary[Workspace, NoteBook] = weakref.WeakKeyDictionary()


def manage(workspace: Workspace, segment: str, units: list[Unit], skills: Mapping[str, Any] | None = None,
           *, book: NoteBook | None = None) -> dict:
    """Organize one archived segment (callers hold the writer lock); for scripts without a Manager.

    The notebook defaults to one kept with this Workspace object: it dies with
    it, and trusts no note whose file changed.
    """
    if book is None:
        book = _BOOKS.get(workspace)
        if book is None:
            book = _BOOKS[workspace] = NoteBook(workspace)
    return organize(book, segment, units, skills)


class HeuristicManagerPolicy:
    """The zero-LLM manager policy: code on the host, no sandbox, one notebook per Manager."""

    name = "heuristic"
    llm_driven = False
    needs_sandbox = False

    def __init__(self) -> None:
        self.book: NoteBook | None = None
        self.options: dict[str, bool | int] | None = None  # the skill library's, read at the first segment

    def organize(self, agent: SandboxedAgent, task: OrganizeTask) -> Organized:
        from horma.agents.trajectory import Trajectory
        from horma.skills import heuristic_options

        segment, units = task.segment, task.units
        if self.book is None or self.book.ws is not agent.workspace:
            self.book = NoteBook(agent.workspace)
        if self.options is None:
            self.options = heuristic_options(task.domain, root=task.skills_dir)
        traj = Trajectory(agent.workspace.trajectories, "manager", segment.split("/")[-2], segment=segment,
                          policy=self.name, writer="host", units=len(units))
        try:
            summary = organize(self.book, segment, units, self.options, traj)
        except BaseException:
            traj.end("error")
            raise
        traj.step("done", {}, json.dumps(summary, ensure_ascii=False))
        traj.end("done")
        return Organized()


__all__ = ["DEFAULT_OPTIONS", "HeuristicManagerPolicy", "manage", "options", "organize", "write_segment"]
