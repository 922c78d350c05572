"""Real deletion: forget units everywhere a workspace holds them, on the host, under the writer lock.

A unit lives on after archiving in many places: its raw line, note lines
that quote or cite it (and front-matter ``sources``), the search index, every
revision of the notes history, and the logs under ``.horma/`` (trajectories of
retrievals that selected it, the manager's ``names-once.jsonl``). Forgetting
removes all of them:

- ``raw/``: each forgotten line becomes an empty line, so the other lines keep
  the numbers notes cite them by; a units file left with no unit is deleted.
  This is the one change ``raw/`` ever sees, and it is made by the user on the
  host (no agent and no sandbox helper can run it: ``raw/`` is read-only and
  ``.horma/`` hidden in every sandbox view).
- notes and ``INDEX.md``: a line goes when it names a forgotten unit id, cites
  its raw line, names a segment that is gone, or carries a word that only
  forgotten units had (a word of their text found in no remaining unit: a
  summary line such as "key phrases" cites nothing, yet may quote them). A
  note goes when its path or title carries such a word or when every source it
  had was forgotten; lines and links pointing at a deleted note go with it.
- the notes history: every revision replayed through the same rules into a new
  repository, the old one deleted (:meth:`NotesHistory.rewrite`).
- ``.horma/``: a trajectory that mentions a forgotten unit is deleted; other
  logs lose the lines that mention one. The search index is rebuilt from the
  files.

Order matters for a kill part-way: ``raw/`` is rewritten last but one (then
the index is rebuilt), so until then a re-run finds the units and does it all
again; after it, nothing holds a forgotten unit, and an index cut off
mid-rebuild is restored by ``horma index --rebuild``.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import stat
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from horma.agents.mention_notes import recount
from horma.core.notes import citations, format_citation
from horma.errors import NotFound
from horma.file_writes import atomic_write
from horma.forget_selection import Selection
from horma.history import HISTORY_DIR, NotesHistory
from horma.history_files import Snapshot, write_snapshot
from horma.leftovers import clean_leftovers
from horma.note import parse_note
from horma.workspace import (
    INDEX_FILE,
    META_DIR,
    NOTES_DIR,
    RawLine,
    Workspace,
    WorkspaceError,
    parse_raw_line,
)

_REF_TOKEN = re.compile(r"[\w:.\-/#]+")  # the tokens Workspace.refs_in reads unit ids from
_WORD = re.compile(r"[^\W_]+")
# A citation as notes write it (format_citation): of raw lines of one segment, or a single-source note's (line N)
_CITED = re.compile(r"\((raw/[^\s()\[\]]*/units\.log):(\d+(?:,\d+)*)\)|\(line (\d+)\)")
MIN_WORD = 3  # shorter words (a, of, 12) say too little to mark a line as carrying forgotten text
MIN_TEXT = 16  # a forgotten text this long is also matched verbatim
KEEP_META = {"workspace.yaml", "write.lock"}  # .horma files that never hold unit content


def fold_words(text: str) -> set[str]:
    """Case- and accent-folded words (``Tomás`` -> ``tomas``), as slugs fold them in note paths."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return {w for w in _WORD.findall(ascii_text.casefold()) if len(w) >= MIN_WORD}


@dataclass
class Forgotten:
    """What marks derived text as carrying forgotten units (see the module docstring)."""

    ids: set[str]
    citations: set[tuple[str, int]]  # (raw units file, line number)
    gone_segments: set[str]  # raw units files that lose every unit
    words: set[str]
    texts: list[str]

    @classmethod
    def of(cls, forgotten: list[RawLine], remaining: list[RawLine], gone_segments: set[str]) -> Forgotten:
        kept: set[str] = set()
        for r in remaining:
            kept |= fold_words(f"{r.unit.id} {r.unit.time} {r.unit.actor} {r.unit.text}")
        words: set[str] = set()
        for r in forgotten:
            words |= fold_words(f"{r.unit.actor} {r.unit.text}")
        return cls({r.unit.id for r in forgotten}, {(r.path, r.lineno) for r in forgotten}, gone_segments,
                   words - kept, [t for r in forgotten if len(t := " ".join(r.unit.text.split())) >= MIN_TEXT])

    def mentions(self, text: str, single_source: str | None = None) -> bool:
        """Whether ``text`` names, cites or quotes a forgotten unit (``single_source``: a note's one raw file,
        which its ``(line N)`` citations point into)."""
        for tok in _REF_TOKEN.findall(text):
            if tok in self.ids or tok.strip(".:-/#") in self.ids:
                return True
        if any(c in self.citations for c in citations(text, single_source)):
            return True
        if any(seg.rsplit("/", 1)[0] in text for seg in self.gone_segments):
            return True
        if self.words and not self.words.isdisjoint(fold_words(text)):
            return True
        return any(t in text for t in self.texts)

    def mentions_record(self, line: str) -> bool:
        """:meth:`mentions` for one line of a log: a JSON record is judged by its decoded strings."""
        try:
            record = json.loads(line)
        except ValueError:
            return self.mentions(line)
        return self.mentions("\n".join(_strings(record)))

    # -- notes ---------------------------------------------------------------------
    def scrub(self, files: Snapshot) -> Snapshot:
        """``notes/`` and ``INDEX.md`` without the forgotten units (the same rules for every revision)."""
        texts = {rel: data.decode("utf-8", "replace") for rel, data in files.items()}
        deleted = {rel for rel, text in texts.items() if rel != INDEX_FILE and self._deletes(rel, text)}
        out: Snapshot = {}
        for rel, text in texts.items():
            if rel in deleted:
                continue
            new = self._scrub_file(rel, text, deleted)
            out[rel] = files[rel] if new == text else new.encode("utf-8")
        return out

    def _deletes(self, rel: str, text: str) -> bool:
        parts = rel.split("/")
        name_words = fold_words(" ".join(parts[2:]) if len(parts) >= 3 else parts[-1].removesuffix(".md"))
        if not self.words.isdisjoint(name_words):
            return True
        try:
            note = parse_note(rel, text)
        except WorkspaceError:
            return False
        if not self.words.isdisjoint(fold_words(note.title)):
            return True
        return bool(note.sources) and not self._sources(note.sources)

    def _sources(self, sources: list[dict]) -> list[dict]:
        out = []
        for s in sources:
            if s["path"] in self.gone_segments:
                continue
            units = [u for u in s["units"] if u not in self.ids]
            if units or not s["units"]:
                out.append({"path": s["path"], "units": units})
        return out

    def _scrub_file(self, rel: str, text: str, deleted: set[str]) -> str:
        folder = rel.rsplit("/", 1)[0] + "/"
        gone = [p for d in deleted for p in (d, d.removeprefix(folder), d.removeprefix(f"{NOTES_DIR}/"))]

        def kept(line: str, single: str | None = None) -> str:
            line = self._uncite(line, single)
            return line if line and not self.mentions(line, single) and not any(p in line for p in gone) else ""

        try:
            note = parse_note(rel, text) if rel != INDEX_FILE else None
        except WorkspaceError:
            note = None
        if note is None:  # INDEX.md, or a file whose front matter does not parse: line by line
            return "".join(kept(line) for line in text.splitlines(keepends=True))
        single = note.sources[0]["path"] if len(note.sources) == 1 else None
        body = "".join(kept(line, single) for line in note.body.splitlines(keepends=True))
        sources = self._sources(note.sources)
        if sources != note.sources:  # a mention page counts the units it cites
            body = recount(body, sum(len(s["units"]) for s in sources))
        links = [link for link in note.links if link not in deleted]
        if sources == note.sources and links == note.links:
            return text[: len(text) - len(note.body)] + body  # the front matter exactly as written
        note.sources, note.links, note.body = sources, links, body
        return note.render()

    def _uncite(self, line: str, single: str | None) -> str:
        """``line`` without the forgotten raw lines among its citations; "" when it cited only those.

        A mention page cites a segment's lines of one day at once (``units.log:3,4,9``): forgetting line 4
        keeps the line, citing 3 and 9, where dropping it lost the other units' citations.
        """
        if not self.citations:
            return line
        cited = False

        def trim(m: re.Match) -> str:
            nonlocal cited
            path, numbers = (m[1], [int(n) for n in m[2].split(",")]) if m[1] else (single, [int(m[3])])
            left = [n for n in numbers if (path, n) not in self.citations]
            cited = cited or bool(left)
            if len(left) == len(numbers):
                return m[0]
            return format_citation(m[1], *left) if left and m[1] else ""

        out = _CITED.sub(trim, line)
        return out if out == line or cited else ""


def _strings(value) -> Iterable[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield str(k)
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


@dataclass
class ForgetReport:
    """What :func:`forget` removed (or, with ``dry_run``, would remove)."""

    units: list[str] = field(default_factory=list)
    raw_files: list[str] = field(default_factory=list)  # rewritten without the units
    raw_deleted: list[str] = field(default_factory=list)  # left with no unit: deleted
    notes_changed: list[str] = field(default_factory=list)
    notes_deleted: list[str] = field(default_factory=list)
    note_lines: int = 0
    meta_changed: list[str] = field(default_factory=list)
    meta_deleted: list[str] = field(default_factory=list)
    revisions: int = 0
    dry_run: bool = False

    def as_dict(self) -> dict:
        return dict(self.__dict__)


Progress = Callable[[int, int], None]  # (revisions rewritten, of how many): the slow part, for a bar


def forget(workspace: Workspace, selection: Selection, dry_run: bool = False,
           progress: Progress | None = None) -> ForgetReport:
    """Forget the selected units everywhere in the workspace (see the module docstring).

    Refuses, changing nothing, when nothing matches or a ``--unit`` id is not archived.
    ``progress`` hears of each history revision rewritten.
    """
    with workspace.writer():
        if not dry_run:
            clean_leftovers(workspace.root)  # a killed archive's temp file may hold the units' text
        return _forget(workspace, selection, dry_run, progress)


def _forget(ws: Workspace, selection: Selection, dry_run: bool, progress: Progress | None = None) -> ForgetReport:
    lines = list(ws.iter_raw())
    chosen = [r for r in lines if selection.matches(r)]
    unknown = sorted(selection.units - {r.unit.id for r in lines})
    if unknown:
        raise NotFound(f"no archived unit with id {', '.join(unknown)}: nothing forgotten")
    if not chosen:
        raise NotFound("no archived unit matches: nothing forgotten")
    by_file: dict[str, set[int]] = {}
    for r in chosen:
        by_file.setdefault(r.path, set()).add(r.lineno)
    remaining = [r for r in lines if r.lineno not in by_file.get(r.path, ())]
    still_used = {r.path for r in remaining}
    gone_segments = {p for p in by_file if p not in still_used}
    marks = Forgotten.of(chosen, remaining, gone_segments)

    with NotesHistory(ws) as history:
        return _apply(ws, history, chosen, by_file, gone_segments, marks, dry_run, progress)


def _apply(ws: Workspace, history: NotesHistory, chosen: list[RawLine], by_file: dict[str, set[int]],
           gone_segments: set[str], marks: Forgotten, dry_run: bool, progress: Progress | None) -> ForgetReport:
    current = history.snapshot()
    scrubbed = marks.scrub(current)
    report = ForgetReport(units=[r.unit.id for r in chosen], dry_run=dry_run,
                          raw_files=sorted(set(by_file) - gone_segments), raw_deleted=sorted(gone_segments))
    report.notes_deleted = sorted(r for r in current if r not in scrubbed)
    report.notes_changed = sorted(r for r in scrubbed if scrubbed[r] != current[r])
    report.note_lines = sum(_count_lines(current[r]) - _count_lines(scrubbed.get(r, b"")) for r in current)
    meta_plan = _plan_meta(ws, marks)
    report.meta_changed = sorted(rel for rel, text in meta_plan.items() if text is not None)
    report.meta_deleted = sorted(rel for rel, text in meta_plan.items() if text is None)
    report.revisions = len(history.log()) + 1  # with the commit of the scrubbed notes
    if dry_run:
        return report

    write_snapshot(ws, scrubbed, current)
    history.commit(f"forget: {len(chosen)} unit(s) removed")
    done = 0

    def scrub(snapshot: Snapshot) -> Snapshot:
        nonlocal done
        done += 1
        if progress is not None:
            progress(done, report.revisions)
        return marks.scrub(snapshot)

    report.revisions = history.rewrite(scrub)
    for rel, text in meta_plan.items():
        path = ws.root / rel
        if text is None:
            path.unlink()
        else:
            atomic_write(path, text)
    index_dir = _clear_index(ws)
    for rel, numbers in by_file.items():
        _rewrite_raw(ws, rel, numbers, rel in gone_segments)
    _rebuild_index(ws, index_dir)
    return report


def _count_lines(data: bytes) -> int:
    return data.count(b"\n")


def _plan_meta(ws: Workspace, marks: Forgotten) -> dict[str, str | None]:
    """``.horma/`` files that mention a forgotten unit -> their new text (None: delete the file).

    The history is rewritten and the index rebuilt on their own; everything
    else is a log or a cache: a trajectory is deleted whole, other files lose
    the lines that mention a forgotten unit.
    """
    plan: dict[str, str | None] = {}
    meta = ws.meta
    for folder, dirs, names in os.walk(meta):
        if folder == str(meta):
            dirs[:] = [d for d in dirs if d != "index" and not d.startswith(HISTORY_DIR)]
        for name in names:
            path = os.path.join(folder, name)
            rel = os.path.relpath(path, ws.root).replace(os.sep, "/")
            if (folder == str(meta) and name in KEEP_META) or not stat.S_ISREG(os.lstat(path).st_mode):
                continue
            with open(path, encoding="utf-8", errors="replace", newline="") as fh:
                lines = fh.read().splitlines(keepends=True)
            kept = [line for line in lines if not marks.mentions_record(line)]
            if len(kept) == len(lines):
                continue
            whole = rel.startswith(f"{META_DIR}/trajectories/")  # a run with gaps would mislead: drop it
            plan[rel] = None if whole or not kept else "".join(kept)
    return plan


def _clear_index(ws: Workspace):
    """Delete every file of the search index (its database and any leftover payloads): it is rebuilt."""
    from horma.index import index_folder

    folder = index_folder(ws)
    if folder.is_dir():
        for p in folder.iterdir():
            if p.is_dir() and not p.is_symlink():
                shutil.rmtree(p)
            else:
                p.unlink()
    return folder


def _rebuild_index(ws: Workspace, folder) -> None:
    from horma.index import open_index

    folder.mkdir(parents=True, exist_ok=True)
    with open_index(ws) as idx:
        idx.sync(str(ws.root), rebuild=True)


def _rewrite_raw(ws: Workspace, rel: str, numbers: set[int], gone: bool) -> None:
    """Blank the forgotten lines of one units file atomically, or delete it (and its folder) when none is left."""
    path = ws.resolve(rel)
    if gone:
        path.unlink()
        with contextlib.suppress(OSError):  # something else is in the folder: leave it
            path.parent.rmdir()
        return
    lines = path.read_text(encoding="utf-8").split("\n")
    for n in numbers:
        if parse_raw_line(lines[n - 1]) is not None:
            lines[n - 1] = ""
    atomic_write(path, "\n".join(lines), mode=0o444)


__all__ = ["ForgetReport", "Forgotten", "Selection", "fold_words", "forget"]
