"""A folder of markdown notes or journal entries (Obsidian, Logseq, plain files), or one file.

One unit per paragraph (a list or a fenced code block counts as one), led by
its heading (``Groceries: oat milk, eggs``), so a line read alone still says
what it is about. One segment per file, dated by, first to last: a ``date``
(or ``created``) in the front matter, a date in the file's name
(``2024-03-02.md``, ``20240302-standup.md``), the file's modification time.

A unit's id is ``md:<file>:<hash of the file's path and the paragraph>``, so
importing the folder again archives only paragraphs that are new or changed;
hidden folders (``.obsidian``, ``.git``) are not read.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import re
from collections import Counter
from pathlib import Path

import yaml

from horma.importers import Import, Importer
from horma.sources import Segment, SourceError
from horma.units import UnitError, check_unit
from horma.workspace import Unit, slugify

SUFFIXES = (".md", ".markdown")
_NAME_DATE = re.compile(r"(?<!\d)(\d{4})-?(\d{2})-?(\d{2})(?!\d)")
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")


def _front_matter(text: str, where: Path) -> tuple[dict, str]:
    if not text.startswith("---\n"):
        return {}, text
    end = text.find("\n---", 4)
    if end < 0:
        return {}, text
    try:
        meta = yaml.safe_load(text[4:end]) or {}
    except yaml.YAMLError as exc:
        raise SourceError(f"{where}: front matter is not valid YAML ({str(exc).splitlines()[0]})") from None
    return (meta if isinstance(meta, dict) else {}), text[end + 4:].split("\n", 1)[-1]


def file_date(path: Path, meta: dict) -> str:
    """The day (or time) a note belongs to: front matter, then its name, then when it was last written."""
    for key in ("date", "created", "time"):
        value = meta.get(key)
        if isinstance(value, dt.datetime):
            return value.replace(tzinfo=None, microsecond=0).isoformat(sep=" ", timespec="minutes")
        if isinstance(value, dt.date):
            return value.isoformat()
        if isinstance(value, str) and _NAME_DATE.search(value):
            break  # a string date is read like a name below
    else:
        value = None
    for text in (value, path.name):
        m = _NAME_DATE.search(text) if isinstance(text, str) else None
        if m:
            try:
                return dt.date(*map(int, m.groups())).isoformat()
            except ValueError:
                pass
    return dt.datetime.fromtimestamp(path.stat().st_mtime).isoformat(sep=" ", timespec="minutes")


def paragraphs(body: str) -> list[tuple[str, str]]:
    """``(heading, paragraph)`` pairs in file order; a heading alone is context, not a unit."""
    out: list[tuple[str, str]] = []
    heading, fenced = "", False
    block: list[str] = []

    def flush() -> None:
        text = "\n".join(block).strip()
        if text:
            out.append((heading, text))
        block.clear()

    for line in body.splitlines():
        if _FENCE.match(line):
            fenced = not fenced
        if not fenced and (m := _HEADING.match(line)):
            flush()
            heading = m.group(2)
        elif not fenced and not line.strip():
            flush()
        else:
            block.append(line)
    flush()
    return out


def _note_files(path: Path) -> list[tuple[Path, str]]:
    if path.is_file():
        return [(path, path.name)]
    if not path.is_dir():
        raise SourceError(f"{path}: no such file or folder")
    files = [p for p in path.rglob("*") if p.suffix.lower() in SUFFIXES and p.is_file()
             and not any(part.startswith(".") for part in p.relative_to(path).parts)]
    return sorted((p, p.relative_to(path).as_posix()) for p in files)


def load(path: Path, me: str) -> Import:
    """Every note file under ``path``, one segment each, oldest first."""
    skipped: Counter[str] = Counter()
    segments: list[Segment] = []
    for file, rel in _note_files(path):
        try:
            text = file.read_text(encoding="utf-8")
        except UnicodeDecodeError as exc:
            raise SourceError(f"{file}: not UTF-8 text (byte {exc.start})") from None
        except OSError as exc:
            raise SourceError(f"{file}: cannot read ({exc.strerror})") from None
        meta, body = _front_matter(text, file)
        when = file_date(file, meta)
        stem = slugify(rel.rsplit(".", 1)[0], 60)
        units = []
        for heading, para in paragraphs(body):
            said = f"{heading}: {para}" if heading else para
            digest = hashlib.sha1(f"{rel}\n{said}".encode()).hexdigest()[:12]
            try:
                units.append(check_unit(Unit(f"md:{stem}:{digest}", when, me, said)))
            except UnitError as exc:
                raise SourceError(f"{file}: {exc}") from None
        if units:
            segments.append(Segment(slug=stem, time=when, units=tuple(dict.fromkeys(units))))
        else:
            skipped["empty file"] += 1
    if not segments and not skipped:
        raise SourceError(f"{path}: no markdown files ({', '.join(SUFFIXES)})")
    segments.sort(key=lambda s: s.time or "")  # an importer always dates its segments
    return Import(segments, skipped)


IMPORTER = Importer("markdown", "a folder of markdown notes or journal entries, or one .md file", load)
