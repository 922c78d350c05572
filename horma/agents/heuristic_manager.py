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

- ``notes/sessions/<segment>.md``: date, participants, key phrases, and a line
  citing ``(line N)`` for each turn that names a relative date, anchored to the
  session date ("yesterday = 7 May 2023"); every turn with its words only with
  ``session_gists`` or ``verbatim_quotes``;
- ``notes/people/<speaker>.md`` (``the-user.md`` for a ``user`` label: :mod:`horma.agents.speakers`)
  and ``notes/entities/<name>.md``: the raw lines that mention the person or named thing, one pointer
  line per session ``date (raw/<seg>/units.log:N,M) speakers`` (the words stay in raw/); in the note itself while
  it is small, then a summary and one page per month (``<name>/<YYYY-MM>.md``).
  A name gets its note when a second session names it (``.horma/names-once.jsonl``
  keeps the first session's mentions until then: within one session the session note's names suffice);
- ``notes/topics/<topic>.md`` with ``topic_notes``: the same for lines about family, work, hobbies, ...;
- ``notes/timeline.md``: one dated line per segment (paged by year once long); ``INDEX.md``;
- ``notes/state.md`` with ``track_state``: when each person and name was last seen.

Options come from the skill library (``horma.skills.heuristic_options``); the
defaults below apply to options it does not set.
"""

from __future__ import annotations

import bisect
import json
import re
import time
import weakref
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from horma.agents.extraction import (  # noqa: F401  (anchor_dates, entities: public here too)
    GIST_WORDS,
    KnownNames,
    SegmentFacts,
    anchor_dates,
    entities,
    extract,
    numbers,
    snippet,
    speaker_name,
)
from horma.agents.policies import Organized, OrganizeTask, SandboxedAgent
from horma.context import human_time
from horma.core.notes import citations, format_citation
from horma.workspace import (
    INDEX_FILE,
    NOTES_DIR,
    FileSig,
    FileWriter,
    Note,
    Unit,
    Workspace,
    WorkspaceError,
    file_sig,
    parse_note,
    parse_raw_line,
    slugify,
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
STATE_NAMES = 40
SESSION_LINKS = 20


def options(skills: Mapping[str, Any] | None) -> dict[str, bool | int]:
    """The defaults, overridden by the options the skill library sets (others are ignored)."""
    out = dict(DEFAULT_OPTIONS)
    for key, value in (skills or {}).items():
        if key in out:
            out[key] = value
    return out


@lru_cache(maxsize=1 << 14)
def note_path(folder: str, name: str) -> str:
    """``notes/<folder>/<slug>.md`` (memoised: a pure function the same few names hit on every turn)."""
    return f"{NOTES_DIR}/{folder}/{slugify(name)}.md"


# -- mention notes ---------------------------------------------------------------
_PAGE_REF = re.compile(r"\[(\d{4}-\d{2}|undated)\]\((\S+?)\)(?::? (\d+))?")  # "[2023-05](x/2023-05.md)"
SUMMARY_LINKS = 12  # a summary links its latest pages; its rows (one per year) name them all


@dataclass
class _Page:
    """One month of a mention note: dated lines pointing at raw lines."""

    sources: dict[str, list[str]] = field(default_factory=dict)  # raw segment -> unit ids, in order
    lines: list[str] = field(default_factory=list)
    cited: set[tuple[str, str]] = field(default_factory=set)  # (segment, unit id) already listed

    @classmethod
    def parse(cls, note: Note) -> "_Page":
        """A page as on disk: its heading is generated, every line from the first ``- `` on is kept
        (a line someone added by hand stays, and new mentions go after it)."""
        sources = {s["path"]: list(s["units"]) for s in note.sources}
        body = note.body.rstrip().splitlines()
        start = next((i for i, ln in enumerate(body) if ln.startswith("- ")), len(body))
        return cls(sources, body[start:], {(seg, uid) for seg, ids in sources.items() for uid in ids})


INLINE_MENTIONS = 8  # a note keeps its mentions in itself up to this many, whatever their months
INLINE = "*"  # the key of an inline note's one page, which holds every month
ENTITY_KIND = "named in the conversation"
ONCE_FILE = "names-once.jsonl"  # in .horma/: names mentioned once, each with that mention


@dataclass
class MentionNote:
    """A person, entity or topic: its mentions, by month.

    A small note (up to ``INLINE_MENTIONS`` mentions, in any months: most
    names are mentioned a few times) is one file listing its mentions. Past that it
    becomes a summary and one page per month: a segment rewrites the pages of
    the months it mentions, never the whole history, and the summary (a row
    per year linking that year's pages, links to the latest
    ``SUMMARY_LINKS``) only when a month is added. Each file a segment writes
    is a file created and renamed, which on a real disk costs more than all
    the rest of the work: keeping small notes whole and summaries free of
    running counts halves the files a segment of long, name-heavy turns writes.
    """

    path: str  # notes/<folder>/<slug>.md
    title: str
    kind: str
    counts: dict[str, int] = field(default_factory=dict)  # month -> mentions (0 for a page not read yet)
    pages: dict[str, _Page] = field(default_factory=dict)  # loaded pages only
    first: str = ""
    last: str = ""
    dirty: set[str] = field(default_factory=set)  # months changed since the last render
    inline: bool = True  # the mentions are in the note itself (its one page is pages[INLINE])
    summary_dirty: bool = True  # the summary must be written (new, a month added, first mention moved)
    _rows: dict[str, str] = field(default_factory=dict, repr=False)  # year -> its summary row, while valid
    _by_year: dict[str, list[str]] = field(default_factory=dict, repr=False)  # year -> its months, sorted

    def page_path(self, month: str) -> str:
        return f"{self.path[:-3]}/{month}.md"

    def _row(self, year: str, months: list[str]) -> str:
        """The summary's row for one year, rebuilt only when one of its months was added."""
        row = self._rows.get(year)
        if row is None:
            folder = self.path.rsplit("/", 1)[0] + "/"
            row = self._rows[year] = f"- {year}: " + ", ".join(
                f"[{m}]({self.page_path(m).removeprefix(folder)})" for m in months)
        return row

    def load_summary(self, note: Note) -> None:
        for line in note.body.splitlines():
            if line.startswith("- "):
                for m in _PAGE_REF.finditer(line):
                    self.counts[m.group(1)] = int(m.group(3) or 0)
        span = (note.time or "").split(" .. ")
        self.first, self.last = span[0], span[-1]
        self.inline = not self.counts
        self.summary_dirty = False
        if self.inline:  # the mentions are in this file: its one page
            page = _Page.parse(note)
            if page.lines:
                self.pages[INLINE] = page
                self.counts = {m: len(p.cited) for m, p in _by_month(page).items()}

    def add(self, page: _Page, month: str, seg: str, line: str, uids: list[str], day: str) -> None:
        """List one line citing raw lines ``uids`` of ``seg`` on ``page`` (the month's, from
        :meth:`NoteBook.page`), unless they are all listed already (a segment organized twice)."""
        new = [u for u in uids if (seg, u) not in page.cited]
        if not new:
            return
        page.cited.update((seg, u) for u in new)
        page.sources.setdefault(seg, []).extend(new)
        page.lines.append(line)
        if month not in self.counts:
            bisect.insort(self._by_year.setdefault(_year_of(month), []), month)
            self._rows.pop(_year_of(month), None)
            self.summary_dirty = True
        self.counts[month] = self.counts.get(month, 0) + len(new)
        if not self.first or day < self.first:
            self.first = day
            self.summary_dirty = True
        self.last = max(self.last, day)
        self.dirty.add(month)
        if self.inline and sum(self.counts.values()) > INLINE_MENTIONS:
            self.inline = False  # from now on a summary and pages: every month's page is written
            self.pages = _by_month(self.pages.pop(INLINE))
            self.counts = {m: len(p.cited) for m, p in self.pages.items()}
            self.dirty.update(self.counts)
            self.summary_dirty = True

    def render(self) -> dict[str, str]:
        """The note and its changed pages, by path."""
        if self.inline:
            span = f"{self.first} .. {self.last}" if self.first != self.last else self.first
            page = self.pages.get(INLINE, _Page())
            # the line format is explained once, in INDEX.md, not in every small note
            body = f"# {self.title}\n\n{self.kind}; {len(page.cited)} mention(s) from {span}.\n\n" + "\n".join(page.lines)
            sources = [{"path": p, "units": u} for p, u in page.sources.items()]
            self.dirty.clear()
            return {self.path: Note(self.path, self.title, body, time=span or None, sources=sources).render()}
        out = {}
        if self.summary_dirty:
            out[self.path] = self._summary()
            self.summary_dirty = False
        for m in sorted(self.dirty):
            page, rel = self.pages[m], self.page_path(m)
            body = f"# {self.title}, {m}\n\n{self.kind}; {len(page.cited)} mention(s).\n\n" + "\n".join(page.lines)
            sources = [{"path": p, "units": u} for p, u in page.sources.items()]
            out[rel] = Note(rel, f"{self.title}, {m}", body, time=m, sources=sources, links=[self.path]).render()
        # keep only the pages just written: a long memory is not held in RAM, and the month
        # a conversation is in is the one its next segment touches again
        self.pages = {m: self.pages[m] for m in self.dirty}
        self.dirty.clear()
        return out

    def _summary(self) -> str:
        by_year = self._by_year
        if sum(len(ms) for ms in by_year.values()) != len(self.counts):  # months read from disk: group them
            by_year.clear()
            self._rows.clear()
            for m in sorted(self.counts):
                by_year.setdefault(_year_of(m), []).append(m)
        years = sorted(by_year)
        recent: list[str] = []
        for y in reversed(years):
            recent[:0] = by_year[y][-(SUMMARY_LINKS - len(recent)):]
            if len(recent) >= SUMMARY_LINKS:
                break
        months = len(self.counts)
        body = (f"# {self.title}\n\n{self.kind}; first mentioned {self.first}; {months} page(s), one per month:\n\n"
                + "\n".join(self._row(y, by_year[y]) for y in years))
        time = self.first if recent[-1] == self.first[:7] else f"{self.first} .. {recent[-1]}"
        return Note(self.path, self.title, body, time=time or None, links=[self.page_path(m) for m in recent]).render()


def _by_month(page: _Page) -> dict[str, _Page]:
    """An inline note's page split into one page per month: each segment goes to the month of the first
    line citing it (a segment is one session: its lines share a day), and a line without a date (one
    added by hand) stays with the line before it."""
    out: dict[str, _Page] = {}
    month_of: dict[str, str] = {}
    month = _month("")
    for line in page.lines:
        first = line[2:].split(" ", 1)[0]
        if first[:4].isdigit():
            month = _month(first)
        seg = next((p for p, _ in citations(line)), None)
        if seg is not None:
            month_of.setdefault(seg, month)
        out.setdefault(month, _Page()).lines.append(line)
    for seg, uids in page.sources.items():
        p = out.setdefault(month_of.get(seg, _month("")), _Page())
        p.sources[seg] = list(uids)
        p.cited.update((seg, u) for u in uids)
    return out


def _year_of(month: str) -> str:
    return month[:4] if month[:4].isdigit() else month


def _month(day: str) -> str:
    return day[:7] if len(day) >= 7 else "undated"


TIMELINE_INLINE = 200  # segments notes/timeline.md lists itself; past that, one page per year
TIMELINE_HEAD = "One line per raw segment: time, file, units, key phrases."
_SEGMENT_IN_LINE = re.compile(r" (raw/\S+/units\.log) ")
_YEAR_ROW = re.compile(r"^- \[(\d{4}|undated)\]\(\S+\): (\d+) segment")


def _year(line: str) -> str:
    """The year of a timeline line ``- <time> <segment> (...)``."""
    y = line[2:6]
    return y if y.isdigit() else "undated"


@dataclass
class TimelineNote:
    """``notes/timeline.md``: one dated line per segment, oldest first.

    Up to ``TIMELINE_INLINE`` segments it is one file; past that it lists the
    years and each year is a page ``notes/timeline/<year>.md``, so a segment
    rewrites one year, not a history of thousands of lines (that made long
    ingests quadratic).
    """

    path: str = f"{NOTES_DIR}/timeline.md"
    counts: dict[str, int] = field(default_factory=dict)  # year -> segments
    pages: dict[str, list[str]] = field(default_factory=dict)  # year -> its lines, sorted (loaded years only)
    segments: set[str] = field(default_factory=set)  # segments of the loaded years
    first: str = ""
    last: str = ""
    paged: bool = False
    dirty: set[str] = field(default_factory=set)

    def page_path(self, year: str) -> str:
        return f"{self.path[:-3]}/{year}.md"

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    def load(self, note: Note | None) -> None:
        if note is None:
            return
        body = note.body.splitlines()
        rows = [m for ln in body if (m := _YEAR_ROW.match(ln))]
        if rows:
            self.paged = True
            self.counts = {m.group(1): int(m.group(2)) for m in rows}
            span = (note.time or "").split(" .. ")
            self.first, self.last = span[0], span[-1]
        else:
            self.load_page(None, [ln for ln in body if ln.startswith("- ")])

    def load_page(self, year: str | None, lines: list[str]) -> None:
        """Take ``lines`` (a year's page, or with ``year`` None the whole inline timeline)."""
        for ln in lines:
            y = year or _year(ln)
            self.pages.setdefault(y, []).append(ln)
            if year is None:
                self.counts[y] = self.counts.get(y, 0) + 1
            m = _SEGMENT_IN_LINE.search(ln)
            if m:
                self.segments.add(m.group(1))
            day = ln.split()[1] if len(ln.split()) > 1 else ""
            self.first = min(self.first or day, day)
            self.last = max(self.last, day)

    def add(self, segment: str, line: str) -> None:
        """List a segment once, in time order (``line`` starts with its time)."""
        if segment in self.segments:
            return
        year = _year(line)
        page = self.pages.setdefault(year, [])
        bisect.insort(page, line)
        self.segments.add(segment)
        self.counts[year] = self.counts.get(year, 0) + 1
        day = line.split()[1]
        self.first = min(self.first or day, day)
        self.last = max(self.last, day)
        self.dirty.add(year)
        if not self.paged and self.total > TIMELINE_INLINE:
            self.paged = True
            self.dirty.update(self.counts)

    def render(self) -> dict[str, str]:
        if not self.paged:
            lines = [ln for y in sorted(self.pages) for ln in self.pages[y]]
            self.dirty.clear()
            return {self.path: Note(self.path, "Timeline", f"# Timeline\n\n{TIMELINE_HEAD}\n\n" + "\n".join(lines)).render()}
        years = sorted(self.counts)
        rows = [f"- [{y}]({self.page_path(y).removeprefix(NOTES_DIR + '/')}): {self.counts[y]} segment(s)" for y in years]
        out = {self.path: Note(self.path, "Timeline",
                               f"# Timeline\n\n{self.total} raw segments from {self.first} .. {self.last}, "
                               "one page per year.\n\n" + "\n".join(rows),
                               time=f"{self.first} .. {self.last}", links=[self.page_path(y) for y in years]).render()}
        for y in sorted(self.dirty):
            rel = self.page_path(y)
            out[rel] = Note(rel, f"Timeline, {y}", f"# Timeline, {y}\n\n{TIMELINE_HEAD}\n\n" + "\n".join(self.pages[y]),
                            time=y, links=[self.path]).render()
        for y in [y for y in self.pages if y not in self.dirty]:  # keep only the years just written
            self.segments.difference_update(m.group(1) for ln in self.pages.pop(y)
                                            if (m := _SEGMENT_IN_LINE.search(ln)))
        self.dirty.clear()
        return out


# -- the notebook: what one manager knows of a workspace's notes -----------------------
class NoteBook:
    """The heuristic manager's view of one workspace's notes, kept between segments by one Manager.

    Notes are cached as parsed objects so a segment costs what it adds, not a
    re-read of every note it touches. A cached note is trusted only while the
    file is what this notebook last read or wrote (same mtime, size and
    inode): a note edited by hand, or by an LLM manager, between two records
    is read again before anything is added to it. That is checked once per
    note per segment; while a segment is organized only this process writes
    (the Manager holds the writer lock).
    """

    def __init__(self, workspace: Workspace):
        self.ws = workspace
        self.root = str(workspace.root)
        self.sigs: dict[str, FileSig | None] = {}  # note -> its signature when last read or written
        self.checked: set[str] = set()  # notes found fresh during the current segment
        self.mentions: dict[str, MentionNote] = {}
        self._timeline: TimelineNote | None = None
        self.counts: dict[str, set[str]] | None = None  # notes/<folder>/ -> note file names
        self._known: KnownNames | None = None
        self._noted: set[str] | None = None
        self._once: dict[str, dict[str, Any]] | None = None  # name -> its first session's mentions
        self._once_sig: FileSig | None = None
        self._once_new: list[dict[str, str]] = []  # to append to ONCE_FILE with this segment
        self._people: set[str] | None = None
        self._latest: dict[str, dict[str, str]] | None = None  # "people"/"names" -> name -> latest mention

    # -- freshness -----------------------------------------------------------
    def _fresh(self, rel: str) -> bool:
        if rel in self.checked:
            return True
        if rel in self.sigs and self.sigs[rel] == file_sig(f"{self.root}/{rel}"):
            self.checked.add(rel)
            return True
        return False

    def _read(self, rel: str) -> Note | None:
        """Parse a note from disk (None if absent) and remember what the file was."""
        path = f"{self.root}/{rel}"
        self.sigs[rel] = file_sig(path)
        self.checked.add(rel)
        if self.sigs[rel] is None or not self.ws.inside(path):
            return None  # a link out of the workspace is no note: the next write replaces the link itself
        with open(path, encoding="utf-8") as fh:
            return parse_note(rel, fh.read())

    def begin_segment(self) -> None:
        self.checked.clear()

    # -- the parts -----------------------------------------------------------
    @property
    def known(self) -> KnownNames:
        """Entity names seen before: those with a note and those mentioned once."""
        if self._known is None:
            self._known = KnownNames(self.noted | set(self.once()))
        return self._known

    @property
    def noted(self) -> set[str]:
        """Entity names that have a note; on first use, the titles of the entity notes on disk."""
        if self._noted is None:
            self._noted = _titles(self.ws, "entities")
        return self._noted

    def once(self) -> dict[str, dict[str, Any]]:
        """Names named in one session so far, with those mentions (from ``.horma/`` + ``ONCE_FILE``).

        A name's note waits for a second session: a name of one session has
        nothing to link (its turns are in the raw lines and in the session note's
        names), and on long, name-heavy turns such names were most of the
        files a segment wrote and most of the notes' bytes. The file is
        append-only and read again when another process changed it.
        """
        path = self.ws.meta / ONCE_FILE
        if self._once is None or self._once_sig != file_sig(path):
            self._once = {}
            try:
                with open(path, encoding="utf-8") as fh:
                    for line in fh:
                        try:
                            rec = json.loads(line)
                            self._once.setdefault(rec["name"], rec)
                        except (ValueError, KeyError, TypeError):
                            continue  # a line torn by a kill
            except FileNotFoundError:
                pass
            self._once_sig = file_sig(path)
        return self._once

    def mentioned_once(self, name: str, mention: dict[str, Any]) -> None:
        self.once()[name] = mention
        self._once_new.append({"name": name, **mention})

    def flush_once(self) -> None:
        """Append this segment's one-off names to ``ONCE_FILE`` (one write, no file created per name)."""
        if not self._once_new:
            return
        path = self.ws.meta / ONCE_FILE
        with open(path, "a", encoding="utf-8") as fh:
            fh.write("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in self._once_new))
        self._once_new.clear()
        self._once_sig = file_sig(path)

    @property
    def people(self) -> set[str]:
        """Everyone who spoke: on first use, the titles of the people notes on disk."""
        if self._people is None:
            self._people = _titles(self.ws, "people")
        return self._people

    def mention_note(self, folder: str, name: str, kind: str) -> MentionNote:
        rel = note_path(folder, name)
        note = self.mentions.get(rel)
        if note is None or not self._fresh(rel):
            note = self.mentions[rel] = MentionNote(rel, name, kind)
            on_disk = self._read(rel)
            if on_disk is not None:
                note.load_summary(on_disk)
        return note

    def page(self, note: MentionNote, month: str) -> _Page:
        page = note.pages.get(month)
        if note.inline:  # read with the note itself (whose freshness mention_note checked)
            return note.pages.setdefault(INLINE, _Page())
        rel = note.page_path(month)
        if page is None or (month not in note.dirty and not self._fresh(rel)):
            on_disk = self._read(rel)
            page = note.pages[month] = _Page.parse(on_disk) if on_disk is not None else _Page()
        return page

    def timeline(self, year: str | None = None) -> TimelineNote:
        """The timeline, fresh from disk if it changed; with ``year``, that year's page loaded too."""
        t = self._timeline
        if t is None or not self._fresh(t.path):
            t = self._timeline = TimelineNote()
            t.load(self._read(t.path))
        if year is not None and t.paged and year not in t.dirty:
            rel = t.page_path(year)
            if year not in t.pages or not self._fresh(rel):
                on_disk = self._read(rel)
                stale = t.pages.pop(year, [])
                t.segments.difference_update(m.group(1) for ln in stale if (m := _SEGMENT_IN_LINE.search(ln)))
                t.load_page(year, [ln for ln in on_disk.body.splitlines() if ln.startswith("- ")] if on_disk else [])
        return t

    def latest(self) -> dict[str, dict[str, str]]:
        rel = f"{NOTES_DIR}/state.md"
        if self._latest is None or not self._fresh(rel):
            on_disk = self._read(rel)
            self._latest = _parse_state(on_disk.body) if on_disk else {"people": {}, "names": {}}
        return self._latest

    def folder_counts(self) -> dict[str, set[str]]:
        if self.counts is None:
            self.counts = {}
            for p in (self.ws.root / NOTES_DIR).glob("*/*.md"):
                self.counts.setdefault(p.parent.name, set()).add(p.name)
        return self.counts

    def wrote(self, rel: str, sig: FileSig) -> None:
        self.sigs[rel] = sig
        parts = rel.split("/")
        if len(parts) == 3 and self.counts is not None:
            self.counts.setdefault(parts[1], set()).add(parts[2])


def _titles(ws: Workspace, folder: str) -> set[str]:
    """Titles of the notes in ``notes/<folder>/`` (their title line), so a new Manager still knows them."""
    out = set()
    for p in (ws.root / NOTES_DIR / folder).glob("*.md"):
        if not ws.inside(p) or not p.is_file():
            continue  # a link out of the workspace, or a dangling one
        with p.open(encoding="utf-8") as fh:
            for line in (fh.readline(), fh.readline()):
                if line.startswith("title: "):
                    value = line[7:].strip()
                    try:  # Note.render quotes a title as JSON only where a plain scalar could be misread
                        out.add(str(json.loads(value)) if value.startswith('"') else value)
                    except ValueError:
                        out.add(value.strip('"'))
    return out


# -- rendering ---------------------------------------------------------------------
def _mentions(book: NoteBook, facts: SegmentFacts, opts: Mapping[str, Any]) -> dict[str, str]:
    """Add the segment's lines to people/entity/topic notes; the rendered changed notes by path.

    A note gets one line per segment and month, citing all its raw lines there at once
    (``- <day> (raw/<seg>/units.log:3,11,13) speakers``): a pointer, not a copy (the unit ids are in
    the front matter's sources and at the start of each raw line), and the segment's path is written
    once, not once per mention, so the notes stay smaller than the raw text they point into.
    ``quote_mentions`` (a skill) lists each mention with its words instead.
    """
    seg = facts.segment
    quote = bool(opts["quote_mentions"])
    touched: dict[str, MentionNote] = {}
    groups: dict[tuple[str, str], list[Any]] = {}  # (note path, month) -> [note, day, turns]
    first_session: dict[str, list[Any]] = {}  # name -> its turns in the first session naming it
    for t in facts.turns:
        u = t.unit
        targets: list[MentionNote] = []
        if opts["entity_notes"]:
            targets.append(book.mention_note("people", speaker_name(u.actor), f"person ({u.actor}'s own turns)"))
            for name in t.names:
                if name not in book.noted:
                    first = book.once().get(name)
                    if first is None:  # a name's first session: its note waits for a second one
                        first_session.setdefault(name, []).append(t)
                        continue
                    if first["seg"] == seg:
                        continue  # the first session again: this segment is being organized a second time
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
        line = (f"- {t0.day} {format_citation(seg, *(t.lineno for t in turns))} "
                + ", ".join(dict.fromkeys(t.unit.actor for t in turns)))
        book.mentioned_once(name, {"month": t0.month, "seg": seg, "line": line, "uid": t0.unit.id,
                                   "uids": [t.unit.id for t in turns], "day": t0.day})
    for (_, month), (note, day, turns) in groups.items():
        actors = ", ".join(dict.fromkeys(t.unit.actor for t in turns))
        line = f"- {day} {format_citation(seg, *(t.lineno for t in turns))} {actors}"
        note.add(book.page(note, month), month, seg, line, [t.unit.id for t in turns], day)
    files: dict[str, str] = {}
    for note in touched.values():
        files.update(note.render())
    return files


def session_note(facts: SegmentFacts, links: list[str], opts: Mapping[str, Any]) -> Note:
    """The segment's span, people, key phrases and names, and a line citing ``(line N)`` for each turn
    that needs more than its raw line (the dates its relative times mean; its words under a skill)."""
    seg, turns = facts.segment, facts.turns
    units = facts.units
    when = units[0].time
    rows = []
    for t in turns:
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
        rows.append(f"- {u.id} (line {t.lineno}) {u.actor}{text}{tail}")
    body = (
        f"# Session of {human_time(when)} ({when})\n\n"
        f"raw: {seg} (lines {turns[0].lineno}-{turns[-1].lineno}, units {units[0].id} .. {units[-1].id})\n"
        f"participants: {', '.join(facts.actors)}\n"
        f"key phrases: {', '.join(facts.phrases)}\n"
        + (f"names mentioned: {', '.join(facts.names)}\n" if facts.names else "")
        + ("\n## Turns that need more than their raw line\n" + "\n".join(rows) if rows else "")
    )
    seg_dir = seg.rsplit("/", 2)[-2]
    return Note(f"{NOTES_DIR}/sessions/{seg_dir}.md", f"Session {human_time(when)}: {', '.join(facts.actors)}", body,
                time=when, sources=[{"path": seg, "units": [u.id for u in units]}], links=links)


def _parse_state(body: str) -> dict[str, dict[str, str]]:
    out: dict[str, dict[str, str]] = {"people": {}, "names": {}}
    section = None
    for line in body.splitlines():
        if line.startswith("## "):
            section = {"## People": "people", "## Names": "names"}.get(line.strip())
        elif section and line.startswith("- ") and ": " in line:
            name, _, rest = line[2:].partition(": ")
            out[section][name] = rest
    return out


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
        f"Memory of {', '.join(actors) or 'this workspace'}; {timeline.total} segment(s), {span}.\n\n"
        "- `raw/<time>__<slug>/units.log`: the exact archive, one line per unit `ID | time | actor: text`.\n"
        "- `notes/timeline.md`: one line per segment, oldest first, with its key phrases.\n"
        "- `notes/sessions/`: per segment: date, participants, key phrases, the turns whose relative dates "
        "it resolves.\n"
        f"{folders}\n"
        "- people/entities/topics notes: one line per session naming them, `date (raw file:line,line,...) speakers` "
        "(unit ids in the front matter); past 8 mentions a summary and one page per month.\n\n"
        "Search: `hsearch WORDS` ranks raw lines (then notes) by relevance; `grep -rn WORD raw notes` for exact words.\n"
    )


def render_segment(book: NoteBook, facts: SegmentFacts, opts: Mapping[str, Any]) -> dict[str, str]:
    """Every file the segment changes (notes and ``INDEX.md``), rendered, by workspace path."""
    files = _mentions(book, facts, opts)
    units = facts.units
    seg = facts.segment
    if opts["session_notes"] and units:
        links = ["notes/timeline.md"] + [r for r in files if r.count("/") == 2 and "/entities/" in r][:SESSION_LINKS]
        s = session_note(facts, links, opts)
        files[s.path] = s.render()
    timeline = book.timeline()
    if units:
        line = (f"- {units[0].time} {seg} ({len(units)} units {units[0].id} .. {units[-1].id}): "
                f"{', '.join(facts.phrases[:8])}")
        timeline = book.timeline(_year(line))
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
        parts = rel.split("/")
        if len(parts) == 3:
            counts.setdefault(parts[1], set()).add(parts[2])
    book.people.update(facts.actors)
    files[INDEX_FILE] = index_md({k: len(v) for k, v in counts.items()}, timeline, sorted(book.people))
    return files


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
    wanted = {u.id for u in units}
    located = [(n, u) for n, line in enumerate(raw_text.splitlines(), 1)
               if (u := parse_raw_line(line)) is not None and u.id in wanted]
    book.begin_segment()
    facts = extract(segment, located, book.known, opts)
    book.known.update(facts.names)
    files = render_segment(book, facts, opts)
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


_BOOKS: "weakref.WeakKeyDictionary[Workspace, NoteBook]" = weakref.WeakKeyDictionary()


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


__all__ = [
    "DEFAULT_OPTIONS", "HeuristicManagerPolicy", "MentionNote", "NoteBook", "anchor_dates", "entities", "manage",
    "options", "organize", "render_segment", "session_note", "state_note", "write_segment",
]
