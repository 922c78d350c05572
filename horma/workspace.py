"""The workspace: the file tree that is the agent's memory.

Layout (see docs/architecture.md):

- ``raw/<timestamp>__<slug>/units.log``: the raw archive, written by code only,
  append-only, one self-describing line per unit
  (``D3:7 | 2023-05-08 13:56 | Caroline: I went to the support group``).
- ``notes/``: markdown notes with YAML front matter, written by the manager.
- ``INDEX.md``: what is where.
- ``.horma/``: metadata (layout version, writer lock, trajectories, logs).

The raw files are the source of truth for which units exist: the set of
archived unit ids is derived from them, so there is no second manifest that a
crash could leave out of step.
"""

from __future__ import annotations

import datetime as dt
import os
import re
import unicodedata
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import yaml
from filelock import FileLock, Timeout

from horma.archive_ids import ArchiveIds
from horma.core.layout import INDEX_FILE, LAYOUT_VERSION, META_DIR, NOTES_DIR, RAW_DIR, UNITS_FILE
from horma.core.text import SEP, format_unit, parse_unit
from horma.file_writes import FileSig, FileWriter, atomic_write, file_sig
from horma.filecheck import file_problem
from horma.modes import readable_writes
from horma.note import Note, parse_note
from horma.workspace_error import WorkspaceError

# Names kept importable from here though they live in horma.file_writes, horma.note and
# horma.workspace_error: dozens of modules import them from horma.workspace, among them the
# manager, refine, skills and history modules being split on other branches.
__all__ = [
    "INDEX_FILE", "META_DIR", "NOTES_DIR", "RAW_DIR", "SEP", "UNITS_FILE", "FileSig", "FileWriter", "Note",
    "RawLine", "Unit", "Workspace", "WorkspaceError", "atomic_write", "file_sig", "now_iso", "parse_note",
    "parse_raw_line", "slugify", "timestamp_dirname",
]

DEFAULT_INDEX = """# INDEX

- `raw/` the exact archive: one folder per session or episode segment, one line per unit
  (`ID | time | actor: text`). Written by code, never edited.
- `notes/` notes written by the memory manager, each with `sources:` back to raw lines.
"""


@dataclass(frozen=True)
class Unit:
    """One source unit: a dialogue turn, an environment step, a log line.

    ``id`` is the unit's id in its source (a LoCoMo dia_id, a LongMemEval
    session/turn, an ALFWorld step) and is what evidence and provenance are
    measured in.
    """

    id: str
    time: str
    actor: str
    text: str

    def line(self) -> str:
        """The unit as one greppable raw line."""
        return format_unit(self.id, self.time, self.actor, self.text)


@dataclass(frozen=True)
class RawLine:
    """A unit as read back from the archive, with where it lives."""

    path: str  # workspace-relative path of the units file
    lineno: int  # 1-based
    unit: Unit


def parse_raw_line(line: str) -> Unit | None:
    """Parse ``ID | time | actor: text``; None for lines that are not units."""
    parts = parse_unit(line)
    return None if parts is None else Unit(*parts)


def slugify(text: str, max_len: int = 48) -> str:
    """A filesystem-safe, readable slug; accents fold to ASCII (``Tomás`` -> ``tomas``, not ``tom-s``)."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    slug = re.sub(r"[^a-z0-9]+", "-", ascii_text.lower()).strip("-")
    return slug[:max_len].strip("-") or "segment"


def timestamp_dirname(time: str) -> str:
    """``2023-05-08 13:56`` -> ``2023-05-08T13-56``: ISO order, no colons in paths."""
    t = time.strip().replace(" ", "T").replace(":", "-")
    return re.sub(r"[^0-9A-Za-z\-T]", "", t) or "undated"


_REF_TOKEN = re.compile(r"[\w:.\-/#]+")

class Workspace:
    """A memory workspace on disk.

    Writers take ``.horma/write.lock`` (see :meth:`writer`); readers never
    lock, because every write is a rename of a complete file.
    """

    def __init__(self, root: str | os.PathLike[str]):
        self.root = Path(root).resolve()
        self._archive = ArchiveIds(self.root, self.raw_files, self.read_raw)

    # -- layout ---------------------------------------------------------------
    @classmethod
    def init(cls, root: str | os.PathLike[str]) -> Workspace:
        """Create an empty workspace (or return the existing one unchanged)."""
        path = Path(root)
        if path.exists() and not path.is_dir():
            raise WorkspaceError(f"{path}: exists and is not a directory")
        if path.is_dir() and any(path.iterdir()) and not (path / META_DIR).is_dir():
            raise WorkspaceError(f"{path}: directory is not empty and is not a horma workspace")
        ws = cls(path)
        try:
            with readable_writes():
                for sub in (RAW_DIR, NOTES_DIR, f"{META_DIR}/trajectories"):
                    (ws.root / sub).mkdir(parents=True, exist_ok=True)
                meta = ws.root / META_DIR / "workspace.yaml"
                if not meta.exists():  # a new workspace: its folder (a mkdtemp one is 0700) opens to the sandbox user
                    os.chmod(ws.root, ws.root.stat().st_mode | 0o055)
                    atomic_write(meta, yaml.safe_dump({"layout_version": LAYOUT_VERSION}))
                if not (ws.root / INDEX_FILE).exists():
                    atomic_write(ws.root / INDEX_FILE, DEFAULT_INDEX)
        except OSError as exc:  # a parent that is a file, no permission, a full disk
            raise WorkspaceError(f"{path}: cannot create the workspace ({exc.strerror})") from None
        return ws

    @classmethod
    def open(cls, root: str | os.PathLike[str]) -> Workspace:
        """Open an existing workspace; a clear error if it is not one."""
        ws = cls(root)
        if not (ws.root / META_DIR / "workspace.yaml").is_file():
            raise WorkspaceError(f"{root}: not a horma workspace (run `horma init {root}` first)")
        return ws

    @property
    def meta(self) -> Path:
        return self.root / META_DIR

    @property
    def trajectories(self) -> Path:
        return self.meta / "trajectories"

    def resolve(self, rel: str) -> Path:
        """A workspace-relative path as an absolute one; refuses paths that leave the workspace."""
        if not isinstance(rel, str) or "\x00" in rel:
            raise WorkspaceError(f"{rel!r:.80}: not a path")
        try:
            p = (self.root / rel.lstrip("/")).resolve()
        except ValueError:  # a lone surrogate: no file system name encodes it
            raise WorkspaceError(f"{rel!r:.80}: not a path") from None
        if p != self.root and self.root not in p.parents:
            raise WorkspaceError(f"{rel}: path leaves the workspace")
        return p

    def rel(self, path: Path) -> str:
        return path.resolve().relative_to(self.root).as_posix()

    @contextmanager
    def writer(self, timeout: float = 30.0) -> Iterator[None]:
        """Hold the writer lock so two processes never interleave writes."""
        self.meta.mkdir(parents=True, exist_ok=True)
        lock = FileLock(str(self.meta / "write.lock"))
        try:
            lock.acquire(timeout=timeout)
        except Timeout as exc:
            raise WorkspaceError(
                f"{self.root}: another process is writing to this workspace (lock held > {timeout:.0f}s)"
            ) from exc
        try:
            with readable_writes():  # the sandbox user reads what we write (horma.modes)
                yield
        finally:
            lock.release()

    # -- raw archive ----------------------------------------------------------
    def inside(self, path: str | os.PathLike[str]) -> bool:
        """Whether ``path``, links followed, is the workspace or lies in it: host code reads nothing else."""
        real = os.path.realpath(path)
        return real == str(self.root) or real.startswith(f"{self.root}{os.sep}")

    def raw_files(self) -> list[Path]:
        """Units files in archive order (segment folders sort by timestamp); links out of the workspace skipped."""
        return sorted(p for p in (self.root / RAW_DIR).glob(f"*/{UNITS_FILE}") if self.inside(p))

    def read_raw(self, path: Path) -> str:
        """A units file's text; a WorkspaceError naming the file when it is not UTF-8 or cannot be read."""
        try:
            return path.read_text(encoding="utf-8")
        except UnicodeDecodeError as exc:
            raise WorkspaceError(f"{self.rel(path)}: not UTF-8 text at byte {exc.start} (the archive was "
                                 "edited or damaged outside horma)") from None
        except OSError as exc:
            raise WorkspaceError(f"{path}: cannot read ({exc.strerror})") from None

    def iter_raw(self) -> Iterator[RawLine]:
        for f in self.raw_files():
            rel = self.rel(f)
            for i, line in enumerate(self.read_raw(f).split("\n"), 1):
                unit = parse_raw_line(line)
                if unit is not None:
                    yield RawLine(rel, i, unit)

    def segment_files(self) -> list[Path]:
        """:meth:`raw_files`, listed again only when ``raw/`` changed (:mod:`horma.archive_ids`)."""
        return self._archive.files()

    def unit_ids(self) -> set[str]:
        """Ids of every archived unit, seeing what other processes added since the last call."""
        return self._archive.ids()

    def raw_changed(self) -> None:
        """Another process appended to a segment: look at ``raw/`` again on the next call."""
        self._archive.look_again()

    def files_holding(self, ids: set[str]) -> list[Path]:
        """The units files holding any of ``ids``, from the id cache: a resent batch reads only those."""
        return self._archive.holding(ids)

    def _fresh(self, units: Iterable[Unit]) -> list[Unit]:
        """The units not archived yet, each id once; a bad id refuses the whole batch."""
        known = self.unit_ids()
        new: list[Unit] = []
        seen: set[str] = set()
        for u in units:
            if not u.id or SEP.strip() in u.id or any(c.isspace() for c in u.id):
                raise WorkspaceError(f"unit id {u.id!r} is empty or contains whitespace or '|'")
            if u.id in known or u.id in seen:
                continue
            seen.add(u.id)
            new.append(u)
        return new

    def archive(self, units: Iterable[Unit], slug: str, time: str | None = None) -> str | None:
        """Archive units not yet archived into a new segment; return its path or None.

        Idempotent by unit id; atomic (the units file appears complete or not at
        all), so an ingest killed at any point and re-run archives every unit
        exactly once. Callers hold :meth:`writer`.
        """
        known = self.unit_ids()
        new = self._fresh(units)
        if not new:
            return None
        stamp = timestamp_dirname(time or new[0].time)
        base = f"{stamp}__{slugify(slug)}"
        seg = self.root / RAW_DIR / base
        n = 2
        while (seg / UNITS_FILE).exists():
            seg = self.root / RAW_DIR / f"{base}-{n}"
            n += 1
        text = _lines(new)
        seg.mkdir(parents=True, exist_ok=True)
        try:
            atomic_write(seg / UNITS_FILE, text, mode=0o444)
        except BaseException:
            seg.rmdir()  # never leave an empty segment folder behind
            raise
        self._archive.wrote(seg / UNITS_FILE, text, (u.id for u in new), known, appended=False)
        return self.rel(seg / UNITS_FILE)

    def append(self, units: Iterable[Unit], segment: str) -> str | None:
        """Add the units not archived yet to the end of an archived segment; return its path, or None.

        How a conversation recorded a message at a time stays one segment
        (``horma.agents.manager``): the raw archive is append-only, one folder a
        session. Atomic like :meth:`archive` (the whole file is written anew
        and renamed over the old one: a reader sees it before or after, never
        half), idempotent by unit id. Callers hold :meth:`writer`.
        """
        known = self.unit_ids()
        new = self._fresh(units)
        if not new:
            return None
        path = self.resolve(segment)
        if not (path.name == UNITS_FILE and path.parent.parent == self.root / RAW_DIR and path.is_file()):
            raise WorkspaceError(f"{segment}: not an archived segment")
        old = self.read_raw(path)
        if old and not old.endswith("\n"):
            raise WorkspaceError(f"{segment}: its last line is cut (the archive was edited outside horma)")
        text = old + _lines(new)
        atomic_write(path, text, mode=0o444)
        self._archive.wrote(path, text, (u.id for u in new), known, appended=True)
        return self.rel(path)

    # -- notes ----------------------------------------------------------------
    def note_files(self) -> list[Path]:
        """Note files; a link out of the workspace (or a dangling one) is not a note."""
        return sorted(p for p in (self.root / NOTES_DIR).rglob("*.md") if self.inside(p) and p.is_file())

    def read_note(self, rel: str) -> Note:
        p = self.resolve(rel)
        if problem := file_problem(p):
            raise WorkspaceError(f"{rel}: {problem}")
        return parse_note(rel, p.read_text(encoding="utf-8"))

    def write_note(self, note: Note) -> None:
        """Write a note atomically (callers hold :meth:`writer`)."""
        p = self.resolve(note.path)
        if self.root / NOTES_DIR not in p.parents:
            raise WorkspaceError(f"{note.path}: notes live under {NOTES_DIR}/")
        atomic_write(p, note.render())

    def write_index(self, text: str) -> None:
        atomic_write(self.root / INDEX_FILE, text)

    # -- provenance -----------------------------------------------------------
    def refs_in(self, text: str) -> list[str]:
        """Unit ids cited in a piece of text, in order of first mention."""
        known = self.unit_ids()
        out: list[str] = []
        for tok in _REF_TOKEN.findall(text):
            for cand in (tok, tok.strip(".:-/#")):
                if cand in known and cand not in out:
                    out.append(cand)
                    break
        return out

    def provenance(self, rel: str, start: int = 1, end: int | None = None) -> list[str]:
        """Which unit ids lines ``start..end`` (1-based, inclusive) of a file cover.

        A raw line covers its own unit; a note line covers the unit ids it cites.
        """
        p = self.resolve(rel)
        if problem := file_problem(p):
            raise WorkspaceError(f"{rel}: {problem}")
        lines = p.read_text(encoding="utf-8", errors="replace").splitlines()
        end = len(lines) if end is None else min(end, len(lines))
        if start < 1 or start > max(end, 1):
            raise WorkspaceError(f"{rel}: bad line range {start}-{end}")
        chunk = lines[start - 1 : end]
        if rel.startswith(f"{RAW_DIR}/"):
            ids = []
            for line in chunk:
                unit = parse_raw_line(line)
                if unit is not None:
                    ids.append(unit.id)
            return ids
        return self.refs_in("\n".join(chunk))

    def raw_lines_for(self, unit_ids: Iterable[str]) -> list[RawLine]:
        """The raw lines of the given units, in archive order (for `show --follow`)."""
        wanted = set(unit_ids)
        return [r for r in self.iter_raw() if r.unit.id in wanted]


def _lines(units: list[Unit]) -> str:
    text = "".join(u.line() + "\n" for u in units)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:  # the gate (horma.units) refuses these; this is the last line
        raise WorkspaceError(f"unit text is not encodable as UTF-8 ({exc.reason})") from None
    return text


def now_iso() -> str:
    return dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
