"""The one validation gate for units: every unit reaches ``raw/`` through :func:`check_units`.

The Python API (:meth:`horma.Memory.record`), the manager and every loader
(jsonl, LoCoMo, LongMemEval, ALFWorld through the API) call it, so a unit is
judged one way whatever door it came in by.

A unit is accepted only in the form the raw line format stores exactly:
``ID | time | actor: text``, one line per unit, read back by splitting lines
and fields. The gate returns that form, and what ``raw/`` gives back is equal
to it. Two normalisations, both documented and both stable (applying the
gate twice changes nothing):

- whitespace runs in ``actor`` and ``text`` fold to one space: newlines, tabs
  and every separator ``str.splitlines`` splits on (``\\r``, ``\\v``, ``\\f``,
  ``\\x1c``-``\\x1e``, ``\\x85``, U+2028, U+2029) are whitespace, so none can
  start a forged line; an empty actor is stored as ``-``;
- ``time`` becomes one ISO form, ``YYYY-MM-DD`` or ``YYYY-MM-DD HH:MM`` (with
  ``:SS`` and ``.ffffff`` only when they are not zero), from any form
  :meth:`datetime.datetime.fromisoformat` reads (``20230508T1356`` included):
  the form sorts as text in time order, which the segment folders rely on.
  An RFC 3339 time with ``Z`` or an offset (``2024-03-02T09:15:00+01:00``,
  ``t``/``z`` in either case) is converted to UTC and stored without the
  suffix: mixed offsets would not sort as text, and an agent's clock sends
  them. A time without one is stored as given (the source's own clock).

Everything else that would not round-trip is refused with a
:class:`UnitError`, not escaped: control characters (terminal escapes, NUL,
which makes grep call the archive binary) and lone surrogates (not UTF-8
encodable) have no meaning in a dialogue turn or a log line, and an escape
syntax would be one more format that grep, cat, the index and every agent
reading ``raw/`` must undo. An actor holding ``|`` (the field separator) is
refused too: ``grep '| user:'`` must find only that actor's turns.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable, Mapping
from typing import Any

from horma.errors import BadArgument
from horma.workspace import SEP, Unit, WorkspaceError

UNIT_FIELDS = ("id", "time", "actor", "text")
MAX_ID_CHARS = 200
# control characters (C0, DEL, C1) and lone surrogates; whitespace among them is folded first
_BAD_CHAR = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff]")
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")
_RFC3339_LOWER = re.compile(r"(?<=\d)t(?=\d)|(?<=\d)z$")  # RFC 3339 allows 't' and 'z'; fromisoformat does not


class UnitError(WorkspaceError):
    """A unit (or a name that becomes a path) the archive cannot store exactly; worded for the user."""

    code = "bad_unit"
    exit_code = BadArgument.exit_code


def _refuse_chars(value: str, what: str) -> None:
    bad = _BAD_CHAR.search(value)
    if bad:
        kind = "a lone surrogate" if "\ud800" <= bad.group() <= "\udfff" else "a control character"
        raise UnitError(f"{what} holds {kind} (U+{ord(bad.group()):04X}), which the archive does not store")


def normalize_time(value: object, what: str = "time") -> str:
    """``value`` in the archive's one ISO form (see the module docstring); UnitError when it is not a time."""
    if not isinstance(value, str):
        raise UnitError(f"{what} must be a string, got {type(value).__name__}")
    text = value.strip()
    hint = (f"{what} {value!r:.60} is not an ISO date or RFC 3339 date-time "
            "(e.g. 2024-03-02 18:05 or 2024-03-02T18:05:00Z)")
    if not text or _BAD_CHAR.search(text):
        raise UnitError(hint)
    try:
        return dt.date.fromisoformat(text).isoformat()
    except ValueError:
        pass
    try:
        t = dt.datetime.fromisoformat(_RFC3339_LOWER.sub(lambda m: m.group().upper(), text))
    except ValueError:
        raise UnitError(hint) from None
    if t.tzinfo is not None:
        t = t.astimezone(dt.timezone.utc).replace(tzinfo=None)
    spec = "minutes" if not (t.second or t.microsecond) else "seconds" if not t.microsecond else "microseconds"
    return t.isoformat(sep=" ", timespec=spec)


def as_unit(item: object) -> Unit:
    """A Unit, or a mapping with exactly its four string fields, as a Unit (not yet checked)."""
    if isinstance(item, Unit):
        return item
    if not isinstance(item, Mapping):
        raise UnitError(f"a unit must be a horma.Unit or a mapping, got {type(item).__name__}")
    missing = [k for k in UNIT_FIELDS if k not in item]
    if missing:
        raise UnitError(f"unit {dict(item)!r:.80}: missing field {missing[0]!r}")
    extra = sorted(map(str, set(item) - set(UNIT_FIELDS)))
    if extra:
        raise UnitError(f"unit {item.get('id')!r:.60}: unknown field {extra[0]!r}")
    return Unit(**{k: item[k] for k in UNIT_FIELDS})


def check_unit(unit: object) -> Unit:
    """The unit as the archive stores it; UnitError naming the unit and field when it cannot be stored."""
    unit = as_unit(unit)
    for name in ("id", "time", "actor", "text"):
        value = getattr(unit, name)
        if not isinstance(value, str):
            shown = unit.id if isinstance(unit.id, str) else "?"
            raise UnitError(f"unit {shown!r:.60}: field {name!r} must be a string, got {type(value).__name__}")
    uid = unit.id
    if not uid or len(uid) > MAX_ID_CHARS or SEP.strip() in uid or any(c.isspace() for c in uid):
        raise UnitError(f"unit id {uid!r:.60} is empty or contains whitespace or '|' "
                        f"(or is longer than {MAX_ID_CHARS} characters)")
    _refuse_chars(uid, f"unit id {uid!r:.60}")
    where = f"unit {uid}"
    time = normalize_time(unit.time, f"{where}: field 'time'")
    actor = " ".join(unit.actor.split()) or "-"
    _refuse_chars(actor, f"{where}: actor")
    if SEP.strip() in actor:
        raise UnitError(f"{where}: actor {actor!r:.60} contains '|', which separates the fields of a raw line")
    if ": " in actor:
        raise UnitError(f"{where}: actor {actor!r:.60} contains ': ', which separates the actor from the text")
    text = " ".join(unit.text.split())
    if not text:
        raise UnitError(f"{where}: empty text")
    _refuse_chars(text, f"{where}: text")
    if (time, actor, text) == (unit.time, unit.actor, unit.text):
        return unit
    return Unit(id=uid, time=time, actor=actor, text=text)


def check_units(units: Iterable[Unit | Mapping[str, Any]]) -> list[Unit]:
    """A batch (Units or mappings) as the archive stores it: each unit checked, repeats of one unit kept once.

    Two units with one id and different content are refused: the archive keeps
    one unit per id, so one of them would be silently lost.
    """
    if isinstance(units, (str, bytes, Unit, Mapping)) or not isinstance(units, Iterable):
        raise UnitError(f"units must be a list of horma.Unit or mappings, got {type(units).__name__}")
    out: list[Unit] = []
    seen: dict[str, Unit] = {}
    for raw in units:
        unit = check_unit(raw)
        first = seen.get(unit.id)
        if first is None:
            seen[unit.id] = unit
            out.append(unit)
        elif first != unit:
            raise UnitError(f"unit id {unit.id!r:.60} appears twice in one batch with different content")
    if not out:
        raise UnitError("no units to record (empty session)")
    return out


def check_name(value: object, what: str) -> str:
    """A name that becomes one folder (a LoCoMo ``sample_id``): letters, digits, ``.``, ``_``, ``-``.

    Refused rather than slugified: two ids that slugify alike would share a
    workspace, and a refused ``../x`` says what is wrong.
    """
    if not isinstance(value, str) or not _NAME.fullmatch(value):
        raise UnitError(f"{what} {value!r:.60} cannot name a folder: use letters, digits, '.', '_' or '-' "
                        "(starting with a letter or digit, at most 128 characters)")
    return value


__all__ = ["UNIT_FIELDS", "UnitError", "as_unit", "check_name", "check_unit", "check_units", "normalize_time"]
