"""Mention notes of the heuristic manager: a person, named thing or topic and every raw line that mentions it.

Kept apart from the notebook that caches them and the renderer that fills
them: this is the one place the on-disk shape of a mention note (inline while
small, then a summary and one page per month) is written and read back.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field
from functools import lru_cache

from horma.core.notes import citations
from horma.workspace import (
    NOTES_DIR,
    Note,
    slugify,
)


@lru_cache(maxsize=1 << 14)
def note_path(folder: str, name: str) -> str:
    """``notes/<folder>/<slug>.md`` (memoised: a pure function the same few names hit on every turn)."""
    return f"{NOTES_DIR}/{folder}/{slugify(name)}.md"


# -- mention notes ---------------------------------------------------------------
_PAGE_REF = re.compile(r"\[(\d{4}-\d{2}|undated)\]\((\S+?)\)(?::? (\d+))?")  # "[2023-05](x/2023-05.md)"
SUMMARY_LINKS = 12  # a summary links its latest pages; its rows (one per year) name them all


@dataclass
class MentionPage:
    """One month of a mention note: dated lines pointing at raw lines."""

    sources: dict[str, list[str]] = field(default_factory=dict)  # raw segment -> unit ids, in order
    lines: list[str] = field(default_factory=list)
    cited: set[tuple[str, str]] = field(default_factory=set)  # (segment, unit id) already listed

    @classmethod
    def parse(cls, note: Note) -> MentionPage:
        """A page as on disk: its heading is generated, every line from the first ``- `` on is kept
        (a line someone added by hand stays, and new mentions go after it)."""
        sources = {s["path"]: list(s["units"]) for s in note.sources}
        body = note.body.rstrip().splitlines()
        start = next((i for i, ln in enumerate(body) if ln.startswith("- ")), len(body))
        return cls(sources, body[start:], {(seg, uid) for seg, ids in sources.items() for uid in ids})


# A note keeps its mentions in itself up to this many, whatever their months; past it, a summary and a page per
# month, so what a segment rewrites stays bounded. Each page repeats a front matter, which in a chat with an
# assistant was most of the notes' bytes: the two speakers' own-turn pages are paged within a few sessions.
# 8 -> 128: notes 1.10x -> 0.90x the raw text on the assistant chats, LoCoMo 0.50x -> 0.49x (a rewrite is
# still at most 128 mentions, a few KB: docs/benchmarks.md, session 13)
INLINE_MENTIONS = 128
INLINE = "*"  # the key of an inline note's one page, which holds every month
ENTITY_KIND = "named in the conversation"


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
    pages: dict[str, MentionPage] = field(default_factory=dict)  # loaded pages only
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
            page = MentionPage.parse(note)
            if page.lines:
                self.pages[INLINE] = page
                self.counts = {m: len(p.cited) for m, p in _by_month(page).items()}

    def add(self, page: MentionPage, month: str, seg: str, line: str, uids: list[str], day: str) -> None:
        """List one line citing raw lines ``uids`` of ``seg`` on ``page`` (the month's, from
        :meth:`NoteBook.page`), unless they are all listed already (a segment organized twice)."""
        new = [u for u in uids if (seg, u) not in page.cited]
        if not new:
            return
        page.cited.update((seg, u) for u in new)
        page.sources.setdefault(seg, []).extend(new)
        _list(page.lines, line)
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
            page = self.pages.get(INLINE, MentionPage())
            # the line format is explained once, in INDEX.md, not in every small note
            body = (f"# {self.title}\n\n{self.kind}; {len(page.cited)} mention(s) from {span}.\n\n"
                    + "\n".join(page.lines))
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


# The count line of a mention note or month page, as :meth:`MentionNote.render` writes it: "person; 3 mention(s)"
_COUNT = re.compile(r"^([^\n;]+; )\d+( mention\(s\))", re.M)


def recount(body: str, mentions: int) -> str:
    """A mention note's or page's ``body`` with its count line saying ``mentions``: ``horma forget`` takes cited
    units out of a page, and its count would go on naming them."""
    return _COUNT.sub(lambda m: f"{m[1]}{mentions}{m[2]}", body, count=1)


# A pointer line as :func:`horma.agents.segment_notes._mentions` writes it: ``- <day> (<units file>:N,M) speakers``
_POINTER = re.compile(r"- (\S+) \((raw/[^\s()]+/units\.log):(\d+(?:,\d+)*)\) (.+)")


def _list(lines: list[str], line: str) -> None:
    """Add a pointer line to a page's ``lines``, or fold it into the line of the same day and units file: a
    conversation recorded a message at a time goes on in one segment (``horma.agents.manager``), and a line a
    message made its names' pages most of its notes."""
    new = _POINTER.fullmatch(line)
    if new is None:
        lines.append(line)
        return
    for i in range(len(lines) - 1, -1, -1):
        old = _POINTER.fullmatch(lines[i])
        if old and old.group(1, 2) == new.group(1, 2):
            numbers = sorted({int(n) for m in (old, new) for n in m.group(3).split(",")})
            actors = ", ".join(dict.fromkeys([*old.group(4).split(", "), *new.group(4).split(", ")]))
            lines[i] = f"- {new.group(1)} ({new.group(2)}:{','.join(map(str, numbers))}) {actors}"
            return
    lines.append(line)


def _by_month(page: MentionPage) -> dict[str, MentionPage]:
    """An inline note's page split into one page per month: each segment goes to the month of the first
    line citing it (a segment is one session: its lines share a day), and a line without a date (one
    added by hand) stays with the line before it."""
    out: dict[str, MentionPage] = {}
    month_of: dict[str, str] = {}
    month = _month("")
    for line in page.lines:
        first = line[2:].split(" ", 1)[0]
        if first[:4].isdigit():
            month = _month(first)
        seg = next((p for p, _ in citations(line)), None)
        if seg is not None:
            month_of.setdefault(seg, month)
        out.setdefault(month, MentionPage()).lines.append(line)
    for seg, uids in page.sources.items():
        p = out.setdefault(month_of.get(seg, _month("")), MentionPage())
        p.sources[seg] = list(uids)
        p.cited.update((seg, u) for u in uids)
    return out


def _year_of(month: str) -> str:
    return month[:4] if month[:4].isdigit() else month


def _month(day: str) -> str:
    return day[:7] if len(day) >= 7 else "undated"
