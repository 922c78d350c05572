"""The notes one segment changes, rendered: mention notes, the session note, the timeline, state and ``INDEX.md``.

Pure rendering over a :class:`~horma.agents.notebook.NoteBook`; nothing here
writes a file (:func:`horma.agents.heuristic_manager.write_segment` does).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from horma.agents.extraction import (
    GIST_WORDS,
    SegmentFacts,
    numbers,
    snippet,
    speaker_name,
)
from horma.agents.mention_notes import ENTITY_KIND, INLINE_MENTIONS, MentionNote
from horma.agents.notebook import MONTH, NoteBook, counted
from horma.agents.timeline_note import TimelineNote, year_of_line
from horma.context import human_time
from horma.core.notes import format_citation
from horma.workspace import (
    INDEX_FILE,
    NOTES_DIR,
    Note,
)

STATE_NAMES = 40
SESSION_LINKS = 20


def _mentions(book: NoteBook, facts: SegmentFacts, opts: Mapping[str, Any],
              talk: frozenset[str] = frozenset()) -> dict[str, str]:
    """Add the segment's lines to people/entity/topic notes; the rendered changed notes by path.

    ``talk``: the other segments of the talk this one continues (a conversation recorded a message at a time,
    :mod:`horma.core.talks`), read as one session: a speaker's own-turn page cites the talk once, where
    the speaker first speaks in it, and a name a talk mentions twice waits for a second talk. A line per
    segment made a chat's notes twice its raw text, most of it the two speakers' pages listing every turn
    (docs/benchmarks.md, session 16).

    A note gets one line per segment and month, citing all its raw lines there at once
    (``- <day> (raw/<seg>/units.log:3,11,13) speakers``): a pointer, not a copy (the unit ids are in
    the front matter's sources and at the start of each raw line), and the segment's path is written
    once, not once per mention, so the notes stay smaller than the raw text they point into.
    ``quote_mentions`` (a skill) lists each mention with its words instead.
    """
    seg = facts.segment
    quote = bool(opts["quote_mentions"])
    once = book.once()  # read (a stat of its file) once a segment, not once a name a turn
    touched: dict[str, MentionNote] = {}
    groups: dict[tuple[str, str], list[Any]] = {}  # (note path, month) -> [note, day, turns]
    first_session: dict[str, list[Any]] = {}  # name -> its turns in the first session naming it
    for t in facts.turns:
        u = t.unit
        targets: list[MentionNote] = []
        if opts["entity_notes"]:
            person = book.mention_note("people", speaker_name(u.actor), f"person ({u.actor}'s own turns)")
            if not (talk and talk & book.page(person, t.month).sources.keys()):
                targets.append(person)
            for name in t.names:
                if name not in book.noted:
                    first = once.get(name)
                    # a name's first session (or this segment again, as units went on in it): its note waits
                    if first is None or first["seg"] == seg:
                        first_session.setdefault(name, []).append(t)
                        continue
                    if first["seg"] in talk:
                        continue  # the first talk again
                    note = book.mention_note("entities", name, ENTITY_KIND)
                    note.add(book.page(note, first["month"]), first["month"], first["seg"], first["line"],
                             list(first.get("uids") or [first["uid"]]), first["day"])
                    book.noted.add(name)
                targets.append(book.mention_note("entities", name, ENTITY_KIND))
        if opts["topic_notes"]:
            targets += [book.mention_note("topics", topic, f"topic: {topic}") for topic in t.topics]
        for note in targets:
            touched.setdefault(note.path, note)
            if quote:
                line = f"- {t.day} {u.id} {format_citation(seg, t.lineno)} {u.actor}: {t.mention}"
                note.add(book.page(note, t.month), t.month, seg, line, [u.id], t.day)
            else:
                groups.setdefault((note.path, t.month), [note, t.day, []])[2].append(t)
    for name, turns in first_session.items():
        t0 = turns[0]
        uids = [t.unit.id for t in turns]
        if (once.get(name) or {}).get("uids") == uids:
            continue  # as kept already (this segment organized again)
        line = (f"- {t0.day} {format_citation(seg, *(t.lineno for t in turns))} "
                + ", ".join(dict.fromkeys(t.unit.actor for t in turns)))
        book.mentioned_once(name, {"month": t0.month, "seg": seg, "line": line, "uid": t0.unit.id,
                                   "uids": uids, "day": t0.day})
    for (_, month), (note, day, turns) in groups.items():
        actors = ", ".join(dict.fromkeys(t.unit.actor for t in turns))
        line = f"- {day} {format_citation(seg, *(t.lineno for t in turns))} {actors}"
        note.add(book.page(note, month), month, seg, line, [t.unit.id for t in turns], day)
    files: dict[str, str] = {}
    for note in touched.values():
        files.update(note.render())
    return files


def session_note_path(seg: str) -> str:
    """``notes/sessions/<YYYY-MM>/<segment>.md``, the month the segment was archived in (its folder's name starts
    with its time). A folder a month, not one for all: every history commit writes the tree of each folder a note
    changed in, and one folder of every session grew that tree, and each record's cost, with the archive
    (4,541 entries at 10^5 units; docs/benchmarks.md, session 16)."""
    seg_dir = seg.rsplit("/", 2)[-2]
    month = seg_dir[:7] if MONTH.fullmatch(seg_dir[:7]) else "undated"
    return f"{NOTES_DIR}/sessions/{month}/{seg_dir}.md"


def session_note(facts: SegmentFacts, links: list[str], opts: Mapping[str, Any]) -> Note:
    """The segment's span, people, key phrases and names, and a line citing ``(line N)`` for each turn
    that needs more than its raw line (the dates its relative times mean; its words under a skill)."""
    seg, turns = facts.segment, facts.turns
    units = facts.units
    when = units[0].time
    rows = _rows(facts, opts, lambda n: f"line {n}")
    body = (
        f"# Session of {human_time(when)} ({when})\n\n"
        f"raw: {seg} (lines {turns[0].lineno}-{turns[-1].lineno}, units {units[0].id} .. {units[-1].id})\n"
        f"participants: {', '.join(facts.actors)}\n"
        f"key phrases: {', '.join(facts.phrases)}\n"
        + (f"names mentioned: {', '.join(facts.names)}\n" if facts.names else "")
        + ("\n## Turns that need more than their raw line\n" + "\n".join(rows) if rows else "")
    )
    return Note(session_note_path(seg), f"Session {human_time(when)}: {', '.join(facts.actors)}", body,
                time=when, sources=[{"path": seg, "units": [u.id for u in units]}], links=links)


def talk_session_note(note: Note, facts: SegmentFacts, opts: Mapping[str, Any]) -> Note:
    """``note``, the session note of the talk this segment continues (:mod:`horma.core.talks`: a conversation
    recorded a message at a time), with the segment added: its source, its speakers, and its turns that need
    more than their raw line, cited ``raw/<seg>/units.log:N`` since the note now has several raw files (its
    earlier ``(line N)`` are rewritten so). A note a segment had made the notes 4.5x the raw text of such a chat
    (docs/benchmarks.md, session 15)."""
    seg, units = facts.segment, facts.units
    if any(src.get("path") == seg for src in note.sources):
        return note  # organized again (a run killed before its index commit): the note has it already
    body = note.body
    if len(note.sources) == 1:
        one = note.sources[0]["path"]
        body = _LINE.sub(lambda m: format_citation(one, int(m.group(1))), body)
    actors = list(dict.fromkeys([*_participants(body), *facts.actors]))
    body = _PARTICIPANTS.sub(f"participants: {', '.join(actors)}", body, count=1)
    rows = _rows(facts, opts, lambda n: format_citation(seg, n)[1:-1])
    if rows:
        heading = "## Turns that need more than their raw line"
        body = body.rstrip("\n") + ("\n" if heading in body else f"\n\n{heading}\n") + "\n".join(rows)
    title = note.title.split(": ", 1)[0] + f": {', '.join(actors)}"
    return Note(note.path, title, body, time=note.time,
                sources=[*note.sources, {"path": seg, "units": [u.id for u in units]}], links=note.links)


_LINE = re.compile(r"\(line (\d+)\)")
_PARTICIPANTS = re.compile(r"^participants: .*$", re.MULTILINE)


def _participants(body: str) -> list[str]:
    m = _PARTICIPANTS.search(body)
    return [a for a in m.group(0).removeprefix("participants: ").split(", ") if a] if m else []


def _rows(facts: SegmentFacts, opts: Mapping[str, Any], cite: Callable[[int], str]) -> list[str]:
    rows = []
    for t in facts.turns:
        u = t.unit
        # what raw lacks (the dates a relative time means), not what it has: the words stay one hop away
        # unless a skill asks for quotes (verbatim_quotes) or gists (session_gists)
        if opts["verbatim_quotes"]:
            text = ": " + " ".join(u.text.split())
        elif opts["session_gists"]:
            text = ": " + snippet(u.text, GIST_WORDS)
        else:
            text = ""
        extra = list(t.dates)
        if opts["keep_numbers"] and text.endswith("..."):
            nums = numbers(u.text)
            if nums:
                extra.append("numbers: " + " ".join(nums))
        if not (text or extra):
            continue  # a bare pointer repeats the raw line's own id and speaker: the raw: line spans them
        tail = f" ({'; '.join(extra)})" if extra else ""
        rows.append(f"- {u.id} ({cite(t.lineno)}) {u.actor}{text}{tail}")
    return rows


def state_note(latest: dict[str, dict[str, str]], facts: SegmentFacts) -> Note:
    """Last known mention of each person (and of the most recent names): where to look for current facts."""
    for t in facts.turns:
        u = t.unit
        line = f"{t.day} {u.id} ({facts.segment}:{t.lineno}): {t.mention}"
        latest["people"][u.actor] = line
        for name in t.names:
            latest["names"][name] = line
    people = [f"- {k}: {latest['people'][k]}" for k in sorted(latest["people"])]
    recent = sorted(latest["names"], key=lambda k: latest["names"][k], reverse=True)[:STATE_NAMES]
    names = [f"- {k}: {latest['names'][k]}" for k in recent]
    last = facts.turns[-1].day if facts.turns else None
    return Note(f"{NOTES_DIR}/state.md", "Current state",
                "# Current state\n\nLatest mention of each person, then of the most recently named things "
                "(date id (raw file:line): words).\n\n## People\n" + "\n".join(people)
                + "\n\n## Names\n" + "\n".join(names), time=last, links=["notes/timeline.md"])


def index_md(counts: dict[str, int], timeline: TimelineNote, actors: list[str]) -> str:
    span = f"{timeline.first} .. {timeline.last}" if timeline.total else ""
    folders = "\n".join(f"- `notes/{k}/` {v} note(s)" for k, v in sorted(counts.items()))
    return (
        "# INDEX\n\n"
        f"Memory of {', '.join(actors) or 'this workspace'}; {timeline.total} session(s), {span}.\n\n"
        "- `raw/<time>__<slug>/units.log`: the exact archive, one line per unit `ID | time | actor: text`.\n"
        "- `notes/timeline.md`: one line per session (messages recorded one by one are one), oldest first, "
        "with its key phrases.\n"
        "- `notes/sessions/<YYYY-MM>/`: per session: date, participants, key phrases, the turns whose relative "
        "dates it resolves.\n"
        f"{folders}\n"
        "- people/entities/topics notes: one line per session naming them, `date (raw file:line,line,...) speakers` "
        f"(unit ids in the front matter); past {INLINE_MENTIONS} mentions a summary and one page per month.\n\n"
        "Search: `hsearch WORDS` ranks raw lines (then notes) by relevance; "
        "`grep -rn WORD raw notes` for exact words.\n"
    )


def render_segment(book: NoteBook, facts: SegmentFacts, opts: Mapping[str, Any],
                   talk_note: Note | None = None, talk: frozenset[str] = frozenset()) -> dict[str, str]:
    """Every file the segment changes (notes and ``INDEX.md``), rendered, by workspace path; ``talk_note``: the
    session note of the talk the segment continues, which it joins (no note and no timeline line of its own);
    ``talk``: that talk's other segments (:func:`_mentions`)."""
    files = _mentions(book, facts, opts, talk)
    units = facts.units
    seg = facts.segment
    if opts["session_notes"] and units:
        entity_notes = [r for r in files if r.count("/") == 2 and "/entities/" in r]
        links = ["notes/timeline.md", *entity_notes[:SESSION_LINKS]]
        s = session_note(facts, links, opts) if talk_note is None else talk_session_note(talk_note, facts, opts)
        files[s.path] = s.render()
    timeline = book.timeline()
    if units and talk_note is None:
        line = (f"- {units[0].time} {seg} ({len(units)} units {units[0].id} .. {units[-1].id}): "
                f"{', '.join(facts.phrases[:8])}")
        timeline = book.timeline(year_of_line(line))
        timeline.add(seg, line)
    if opts["timeline"]:
        files.update(timeline.render())
    else:
        timeline.dirty.clear()
    if opts["track_state"] and units:
        s = state_note(book.latest(), facts)
        files[s.path] = s.render()
    counts = book.folder_counts()
    for rel in files:
        counted(counts, rel)
    book.people.update(facts.actors)
    files[INDEX_FILE] = index_md({k: len(v) for k, v in counts.items()}, timeline, sorted(book.people))
    return files
