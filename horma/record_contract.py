"""The record contract: what an agent sending units (MCP ``record``, :meth:`horma.Memory.record`) may rely on.

- Idempotent by id: a unit whose id is archived with the same time, actor and
  text is *unchanged*; the same id with anything different is a *conflict*,
  listed with both versions and never archived (the archive keeps one unit
  per id and never rewrites one). Every id of a batch comes back under
  exactly one of archived / unchanged / conflict.
- ``time`` is optional: a unit sent without one is stamped now, in UTC, and
  its resend compares actor and text only (the stamp is ours, not the
  sender's). RFC 3339 times with ``Z`` or an offset are converted to UTC
  (:func:`horma.units.normalize_time`).
- Line breaks are refused by default, never silently folded: a raw line is
  one unit, and text that changed on the way in could not be checked against
  a resend. ``newlines="fold"`` joins lines with a space on request.
- ``actor`` must be a non-empty name without ``|`` or a line break.

Loaders of whole datasets (LoCoMo, LongMemEval, JSONL) keep their documented
folding in :func:`horma.units.check_unit`; this module is the stricter door
agents use.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from horma.units import UNIT_FIELDS, UnitError, check_units
from horma.workspace import SEP, Unit, Workspace, parse_raw_line

NEWLINES = ("refuse", "fold")
FIELDS = ("time", "actor", "text")
# every separator str.splitlines() splits on: any of them would start a new raw line
_LINE_BREAK = re.compile("[\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")


@dataclass(frozen=True)
class Batch:
    """A batch as the contract accepted it: units in the archive's form, and the ids sent without a time."""

    units: list[Unit]
    untimed: frozenset[str]


@dataclass(frozen=True)
class Conflict:
    """An id already archived with other content: both versions, and which fields differ."""

    id: str
    fields: tuple[str, ...]
    archived: Unit
    sent: Unit

    def as_dict(self) -> dict[str, Any]:
        def side(u: Unit) -> dict[str, str]:
            return {"time": u.time, "actor": u.actor, "text": u.text}

        return {"id": self.id, "fields": list(self.fields), "archived": side(self.archived), "sent": side(self.sent)}


@dataclass(frozen=True)
class Verdict:
    """Each id of a batch sorted: new (to archive), unchanged (already archived alike), conflict."""

    new: list[Unit]
    unchanged: list[str]
    conflicts: list[Conflict]


def now_utc() -> str:
    """Now in UTC, in the archive's time form (seconds kept: two records a minute apart stay ordered)."""
    return dt.datetime.now(dt.timezone.utc).replace(tzinfo=None, microsecond=0).isoformat(sep=" ")


def _fields(item: Unit | Mapping[str, Any]) -> dict[str, Any]:
    if isinstance(item, Unit):
        return {"id": item.id, "time": item.time, "actor": item.actor, "text": item.text}
    if not isinstance(item, Mapping):
        raise UnitError(f"a unit must be a horma.Unit or a mapping, got {type(item).__name__}")
    extra = sorted(map(str, set(item) - set(UNIT_FIELDS)))
    if extra:
        raise UnitError(f"unit {item.get('id')!r:.60}: unknown field {extra[0]!r}")
    return dict(item)


def _check_text(value: Any, where: str, newlines: str) -> Any:
    """``value`` with line breaks folded (``fold``), or UnitError naming where the first one is (``refuse``)."""
    brk = _LINE_BREAK.search(value) if isinstance(value, str) else None  # check_units names a wrong type
    if brk is None:
        return value
    if newlines == "fold":
        return " ".join(value.split())
    raise UnitError(f"{where}: text holds a line break (U+{ord(brk.group()):04X} after "
                    f"{value[max(0, brk.start() - 20):brk.start()]!r}); a raw line is one unit: send each line "
                    "as its own unit, or pass newlines='fold' to join the lines with a space")


def _check_actor(value: Any, where: str) -> None:
    """A name: not empty, no ``|`` (the field separator), no line break (folding a name would hide a typo)."""
    if not isinstance(value, str):
        return  # check_units names the wrong type
    if not value.strip():
        raise UnitError(f"{where}: empty actor; say who spoke or acted (e.g. 'user')")
    if SEP.strip() in value:
        raise UnitError(f"{where}: actor {value!r:.60} contains '|', which separates the fields of a raw line")
    brk = _LINE_BREAK.search(value)
    if brk is not None:
        raise UnitError(f"{where}: actor holds a line break (U+{ord(brk.group()):04X} in {value!r:.60})")


def accept(items: Iterable[Unit | Mapping[str, Any]], newlines: str = "refuse") -> Batch:
    """The batch in the archive's form, or UnitError for the first unit the contract refuses (nothing written)."""
    if newlines not in NEWLINES:
        raise UnitError(f"newlines must be one of {', '.join(NEWLINES)}, got {newlines!r}")
    if isinstance(items, (str, bytes, Unit, Mapping)) or not isinstance(items, Iterable):
        raise UnitError(f"units must be a list of horma.Unit or mappings, got {type(items).__name__}")
    stamp = now_utc()
    units: list[Unit] = []
    untimed: set[str] = set()
    for item in items:
        f = _fields(item)
        uid = f.get("id")
        if "id" not in f or "actor" not in f or "text" not in f:
            missing = next(k for k in ("id", "actor", "text") if k not in f)
            raise UnitError(f"unit {dict(f)!r:.80}: missing field {missing!r}")
        where = f"unit {uid!r:.60}"
        if f.get("time") is None:
            f["time"] = stamp
            if isinstance(uid, str):  # any other id is refused by check_units below
                untimed.add(uid)
        _check_actor(f["actor"], where)
        units.append(Unit(id=f["id"], time=f["time"], actor=f["actor"], text=_check_text(f["text"], where, newlines)))
    return Batch(check_units(units), frozenset(untimed))


def sort_batch(ws: Workspace, units: list[Unit], untimed: frozenset[str] = frozenset()) -> Verdict:
    """Sort checked units against the archive (callers hold the writer lock, so the answer stays true)."""
    known = ws.unit_ids()
    resent = {u.id for u in units if u.id in known}
    archived: dict[str, Unit] = {}
    for path in ws.files_holding(resent) if resent else ():
        for line in ws.read_raw(path).split("\n"):
            unit = parse_raw_line(line)
            if unit is not None and unit.id in resent:
                archived[unit.id] = unit
    new, unchanged, conflicts = [], [], []
    for u in units:
        old = archived.get(u.id)
        if old is None:
            new.append(u)
            continue
        differ = tuple(f for f in FIELDS if getattr(old, f) != getattr(u, f) and not (f == "time" and u.id in untimed))
        if differ:
            conflicts.append(Conflict(u.id, differ, old, u))
        else:
            unchanged.append(u.id)
    return Verdict(new, unchanged, conflicts)


__all__ = ["NEWLINES", "Batch", "Conflict", "Verdict", "accept", "now_utc", "sort_batch"]
