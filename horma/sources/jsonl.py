"""Generic units as JSON lines: ``{"id", "time", "actor", "text"}`` per line, optional ``"session"``.

For any source that is not a built-in benchmark. Validation is strict (unknown
fields, a wrong type, a duplicate id or a truncated last line are errors) so
that a typo in a field name cannot silently drop data.
Units with a ``session`` field are grouped by it; the others by calendar day.
"""

from __future__ import annotations

import json
from pathlib import Path

from horma.filecheck import file_problem
from horma.sources import Segment, SourceError
from horma.units import UnitError, check_unit
from horma.workspace import Unit

REQUIRED = ("id", "time", "actor", "text")
OPTIONAL = ("session",)


def _unit(path: Path, lineno: int, record: object) -> tuple[Unit, str | None]:
    where = f"{path}: line {lineno}"
    if not isinstance(record, dict):
        raise SourceError(f"{where}: expected a JSON object, got {type(record).__name__}")
    unknown = sorted(set(record) - set(REQUIRED) - set(OPTIONAL))
    if unknown:
        raise SourceError(
            f"{where}: unknown field {unknown[0]!r} (allowed: {', '.join(REQUIRED + OPTIONAL)})"
        )
    for key in REQUIRED:
        if key not in record:
            raise SourceError(f"{where}: missing field {key!r}")
        if not isinstance(record[key], str):
            raise SourceError(f"{where}: field {key!r} must be a string, got {type(record[key]).__name__}")
    if not record["text"].strip():
        raise SourceError(f"{where}: field 'text' is empty")
    session = record.get("session")
    if session is not None and (not isinstance(session, str) or not session.strip()):
        raise SourceError(f"{where}: field 'session' must be a non-empty string")
    try:
        unit = check_unit(Unit(id=record["id"], time=record["time"], actor=record["actor"], text=record["text"]))
    except UnitError as exc:
        raise SourceError(f"{where}: {exc}") from None
    return unit, session


def load_jsonl(path: str | Path) -> list[Segment]:
    """All segments of a units file, in file order; raises SourceError naming the first problem."""
    path = Path(path)
    if problem := file_problem(path):
        raise SourceError(f"{path}: {problem}")
    try:
        # JSON lines end at "\n" only: splitlines() would also split inside a string holding U+2028
        lines = path.read_text(encoding="utf-8").split("\n")
        if lines and not lines[-1]:
            lines.pop()
    except UnicodeDecodeError as exc:
        raise SourceError(f"{path}: not UTF-8 text (byte {exc.start})") from None
    except OSError as exc:
        raise SourceError(f"{path}: cannot read ({exc.strerror})") from None
    groups: dict[tuple[str, str], list[Unit]] = {}
    seen: dict[str, int] = {}
    for lineno, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            hint = " (truncated file?)" if lineno == len(lines) else ""
            raise SourceError(f"{path}: line {lineno}: not valid JSON{hint}: {exc.msg}") from None
        unit, session = _unit(path, lineno, record)
        if unit.id in seen:
            raise SourceError(f"{path}: line {lineno}: duplicate id {unit.id!r} (first on line {seen[unit.id]})")
        seen[unit.id] = lineno
        key = ("session", session) if session is not None else ("day", unit.time[:10])
        groups.setdefault(key, []).append(unit)
    if not groups:
        raise SourceError(f"{path}: no units (empty file)")
    return [
        Segment(slug=name if kind == "session" else f"session-{i}", time=units[0].time, units=tuple(units))
        for i, ((kind, name), units) in enumerate(groups.items(), 1)
    ]
