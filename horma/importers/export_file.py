"""Reading a chat service's data export: the zip it mails you, or the conversations.json inside it.

Both ChatGPT and Claude ship a zip whose ``conversations.json`` is a JSON array
of conversations (ChatGPT has also split it into ``conversations-NNN.json``
parts). Only those members are read; the zip's media files are never
extracted.
"""

from __future__ import annotations

import datetime as dt
import json
import zipfile
from collections import Counter
from collections.abc import Callable
from pathlib import Path, PurePosixPath
from typing import Any

from horma.importers import Import
from horma.sources import Segment, SourceError
from horma.units import UnitError, check_unit, normalize_time
from horma.workspace import Unit

# (one conversation of the export, where it is for messages, the user's name, the skip tally) -> its segment
Conversation = Callable[[Any, str, str, Counter], "Segment | None"]

MAX_JSON_BYTES = 4 << 30  # a declared size above this is a zip bomb, not a chat history


def _is_conversations(name: str) -> bool:
    stem = PurePosixPath(name)
    return stem.suffix == ".json" and (stem.stem == "conversations" or stem.stem.startswith("conversations-"))


def _parse(text: bytes, where: str) -> list[Any]:
    try:
        data = json.loads(text)
    except UnicodeDecodeError as exc:
        raise SourceError(f"{where}: not UTF-8 text (byte {exc.start})") from None
    except json.JSONDecodeError as exc:
        raise SourceError(f"{where}: not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from None
    if not isinstance(data, list):
        raise SourceError(f"{where}: expected a JSON array of conversations, got {type(data).__name__}")
    return data


def read_conversations(path: Path) -> list[tuple[str, Any]]:
    """Every conversation object in the export, each with where it came from (for error messages)."""
    if not path.exists():
        raise SourceError(f"{path}: no such file")
    if path.is_dir():
        path = path / "conversations.json"
        if not path.is_file():
            raise SourceError(f"{path.parent}: no conversations.json in this folder")
    try:
        if not zipfile.is_zipfile(path):
            data = _parse(path.read_bytes(), str(path))
            return [(f"{path}: conversation {i}", c) for i, c in enumerate(data, 1)]
        with zipfile.ZipFile(path) as zf:
            members = sorted((m for m in zf.infolist() if _is_conversations(m.filename)), key=lambda m: m.filename)
            if not members:
                raise SourceError(f"{path}: no conversations.json in this zip (is it a ChatGPT or Claude export?)")
            out: list[tuple[str, Any]] = []
            for m in members:
                if m.file_size > MAX_JSON_BYTES:
                    raise SourceError(f"{path}: {m.filename} claims {m.file_size} bytes; refusing to unpack it")
                where = f"{path}!{m.filename}"
                out += [(f"{where}: conversation {i}", c) for i, c in enumerate(_parse(zf.read(m), where), 1)]
            return out
    except zipfile.BadZipFile as exc:
        raise SourceError(f"{path}: a damaged zip ({exc})") from None
    except OSError as exc:
        raise SourceError(f"{path}: cannot read ({exc.strerror or exc})") from None


def local_time(value: Any, where: str) -> str | None:
    """An export's instant (Unix seconds, or ISO 8601 with an offset) as this machine's local time.

    The archive stores times without an offset (they sort as text); the local
    clock is the one the user saw when they chatted. None when the export has
    no time for it.
    """
    if value is None or value == "":
        return None
    try:
        if isinstance(value, bool):
            raise TypeError
        if isinstance(value, (int, float)):
            t = dt.datetime.fromtimestamp(float(value), tz=dt.timezone.utc)
        elif isinstance(value, str):
            t = dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
            if t.tzinfo is None:
                t = t.replace(tzinfo=dt.timezone.utc)
        else:
            raise TypeError
    except (TypeError, ValueError, OverflowError, OSError):
        raise SourceError(f"{where}: {value!r:.60} is not a timestamp") from None
    return normalize_time(t.astimezone().replace(tzinfo=None, microsecond=0).isoformat(sep=" "))


def field_of(obj: Any, key: str, kind: type | tuple[type, ...], where: str, default: Any = None) -> Any:
    """``obj[key]`` when it has the expected type, ``default`` when absent or null; SourceError otherwise."""
    if not isinstance(obj, dict):
        raise SourceError(f"{where}: expected a JSON object, got {type(obj).__name__}")
    value = obj.get(key)
    if value is None:
        return default
    if not isinstance(value, kind):
        raise SourceError(f"{where}: field {key!r} has the wrong type ({type(value).__name__})")
    return value


def load_export(path: Path, me: str, conversation: Conversation) -> Import:
    """Every conversation of an export as ``conversation`` reads it, oldest first."""
    skipped: Counter[str] = Counter()
    segments = [seg for where, conv in read_conversations(path)
                if (seg := conversation(conv, where, me, skipped)) is not None]
    segments.sort(key=lambda s: s.time or "")  # an importer always dates its segments
    return Import(segments, skipped)


def message_unit(uid: str, when: str, actor: str, text: str, where: str) -> Unit:
    """One message as a checked unit; a message the archive cannot hold is a SourceError naming it."""
    try:
        return check_unit(Unit(uid, when, actor, text))
    except UnitError as exc:
        raise SourceError(f"{where}: {exc}") from None


def conversation_segment(title: str, started: str | None, units: list[Unit], skipped: Counter[str]) -> Segment | None:
    """The conversation's segment, or None (counted) when nothing in it was kept."""
    if not units:
        skipped["empty conversation"] += 1
        return None
    return Segment(slug=title, time=started or units[0].time, units=tuple(units))
