"""What one heuristic manager knows of a workspace's notes between segments, and when to read a note again."""

from __future__ import annotations

import json
import re
from typing import Any

from horma.agents.extraction import (
    KnownNames,
)
from horma.agents.mention_notes import INLINE, MentionNote, MentionPage, note_path
from horma.agents.timeline_note import SEGMENT_IN_LINE, TimelineNote
from horma.workspace import (
    NOTES_DIR,
    FileSig,
    Note,
    Workspace,
    file_sig,
    parse_note,
)

ONCE_FILE = "names-once.jsonl"  # in .horma/: names mentioned once, each with that mention


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
                            self._once[rec["name"]] = rec  # the latest: it grows as its segment goes on
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

    def page(self, note: MentionNote, month: str) -> MentionPage:
        page = note.pages.get(month)
        if note.inline:  # read with the note itself (whose freshness mention_note checked)
            return note.pages.setdefault(INLINE, MentionPage())
        rel = note.page_path(month)
        if page is None or (month not in note.dirty and not self._fresh(rel)):
            on_disk = self._read(rel)
            page = note.pages[month] = MentionPage.parse(on_disk) if on_disk is not None else MentionPage()
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
                t.segments.difference_update(m.group(1) for ln in stale if (m := SEGMENT_IN_LINE.search(ln)))
                t.load_page(year, [ln for ln in on_disk.body.splitlines() if ln.startswith("- ")] if on_disk else [])
        return t

    def latest(self) -> dict[str, dict[str, str]]:
        rel = f"{NOTES_DIR}/state.md"
        if self._latest is None or not self._fresh(rel):
            on_disk = self._read(rel)
            self._latest = parse_state(on_disk.body) if on_disk else {"people": {}, "names": {}}
        return self._latest

    def folder_counts(self) -> dict[str, set[str]]:
        """The notes of each folder under ``notes/``, by name: its own files and those of its month folders
        (``sessions/2023-05/x.md``), not a note's monthly pages (``entities/ada/2023-05.md``)."""
        if self.counts is None:
            self.counts = {}
            root = self.ws.root / NOTES_DIR
            for p in [*root.glob("*/*.md"), *root.glob("*/*/*.md")]:
                counted(self.counts, p.relative_to(self.ws.root).as_posix())
        return self.counts

    def wrote(self, rel: str, sig: FileSig) -> None:
        self.sigs[rel] = sig
        if self.counts is not None:
            counted(self.counts, rel)


MONTH = re.compile(r"\d{4}-\d{2}")  # a month folder's name (``undated`` for a name without one)


def counted(counts: dict[str, set[str]], rel: str) -> None:
    """Count ``rel`` in ``counts`` (folder -> note names) if it is a folder's note (:meth:`NoteBook.folder_counts`)."""
    parts = rel.split("/")
    if len(parts) == 3 or (len(parts) == 4 and (MONTH.fullmatch(parts[2]) or parts[2] == "undated")):
        counts.setdefault(parts[1], set()).add(parts[-1])


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


def parse_state(body: str) -> dict[str, dict[str, str]]:
    out: dict[str, dict[str, str]] = {"people": {}, "names": {}}
    section = None
    for line in body.splitlines():
        if line.startswith("## "):
            section = {"## People": "people", "## Names": "names"}.get(line.strip())
        elif section and line.startswith("- ") and ": " in line:
            name, _, rest = line[2:].partition(": ")
            out[section][name] = rest
    return out
