"""``notes/timeline.md`` of the heuristic manager: one dated line per segment, paged by year once long."""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field

from horma.workspace import (
    NOTES_DIR,
    Note,
)

TIMELINE_INLINE = 200  # segments notes/timeline.md lists itself; past that, one page per year
TIMELINE_HEAD = ("One line per session (its first raw segment; messages recorded one by one are one session): "
                 "time, file, units, key phrases.")
SEGMENT_IN_LINE = re.compile(r" (raw/\S+/units\.log) ")
_YEAR_ROW = re.compile(r"^- \[(\d{4}|undated)\]\(\S+\): (\d+) segment")


def year_of_line(line: str) -> str:
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
            y = year or year_of_line(ln)
            self.pages.setdefault(y, []).append(ln)
            if year is None:
                self.counts[y] = self.counts.get(y, 0) + 1
            m = SEGMENT_IN_LINE.search(ln)
            if m:
                self.segments.add(m.group(1))
            day = ln.split()[1] if len(ln.split()) > 1 else ""
            self.first = min(self.first or day, day)
            self.last = max(self.last, day)

    def add(self, segment: str, line: str) -> None:
        """List a segment once, in time order (``line`` starts with its time); a segment listed already gets
        ``line`` in place of its line (units went on in it: its count and phrases change, not its time)."""
        year = year_of_line(line)
        if segment in self.segments:
            page = self.pages.get(year, [])
            at = next((i for i, ln in enumerate(page) if (m := SEGMENT_IN_LINE.search(ln)) and m.group(1) == segment),
                      None)
            if at is not None and page[at] != line:
                page[at] = line
                self.dirty.add(year)
            return
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
            body = f"# Timeline\n\n{TIMELINE_HEAD}\n\n" + "\n".join(lines)
            return {self.path: Note(self.path, "Timeline", body).render()}
        years = sorted(self.counts)
        rows = [f"- [{y}]({self.page_path(y).removeprefix(NOTES_DIR + '/')}): {self.counts[y]} segment(s)"
                for y in years]
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
                                            if (m := SEGMENT_IN_LINE.search(ln)))
        self.dirty.clear()
        return out
