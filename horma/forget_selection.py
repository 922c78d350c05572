"""Which units `horma forget` removes: a checked selection by id, actor, time, segment or words.

Kept apart from :mod:`horma.forget` (which does the removing) so the rules a
user's options are read by stay small and readable; ``horma.forget.Selection``
is this class.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from horma.errors import BadArgument
from horma.workspace import RAW_DIR, UNITS_FILE, RawLine

_TIME = re.compile(r"\d{4}(-\d{2}(-\d{2}([ T]\d{2}(:\d{2}(:\d{2})?)?)?)?)?")


def _normalize_time(value: str) -> str:
    return value.strip().replace("T", " ")


@dataclass(frozen=True)
class Selection:
    """Which units to forget: every option given must match (a repeated option matches any of its values)."""

    units: frozenset[str] = frozenset()
    actors: frozenset[str] = frozenset()
    before: str | None = None
    after: str | None = None
    segments: frozenset[str] = frozenset()  # raw units-file paths
    texts: frozenset[str] = frozenset()  # casefolded: a unit whose text holds any of them matches

    @classmethod
    def of(cls, units: Iterable[str] = (), actors: Iterable[str] = (), before: str | None = None,
           after: str | None = None, segments: Iterable[str] = (), texts: Iterable[str] = ()) -> Selection:
        """A checked selection: at least one option, times as ``YYYY[-MM[-DD[ HH[:MM[:SS]]]]]``.

        ``texts`` (``--match``) is matched without regard to case, as words are
        searched everywhere else; an empty one would match every unit, so it is refused.
        """
        texts = [" ".join(t.split()).casefold() for t in texts]
        if any(not t for t in texts):
            raise BadArgument("--match '': give some text (an empty match would forget every unit)")
        for name, value in (("--before", before), ("--after", after)):
            if value is not None and not _TIME.fullmatch(value.strip()):
                raise BadArgument(f"{name} {value!r}: expected a time like 2024-03-01 or 2024-03-01 18:05")
        segs = frozenset(_segment_path(s) for s in segments)
        sel = cls(frozenset(units), frozenset(actors), _normalize_time(before) if before else None,
                  _normalize_time(after) if after else None, segs, frozenset(texts))
        if not (sel.units or sel.actors or sel.before or sel.after or sel.segments or sel.texts):
            raise BadArgument("say what to forget: --unit, --match, --actor, --before, --after or --segment")
        return sel

    def matches(self, raw: RawLine) -> bool:
        u = raw.unit
        t = _normalize_time(u.time)
        return ((not self.units or u.id in self.units)
                and (not self.actors or u.actor in self.actors)
                and (self.before is None or t < self.before)
                and (self.after is None or t >= self.after)
                and (not self.segments or raw.path in self.segments)
                and (not self.texts or any(t in u.text.casefold() for t in self.texts)))


def _segment_path(value: str) -> str:
    """``2024-03-02T18-05__s1``, ``raw/2024-03-02T18-05__s1`` or its units file -> the units file path."""
    parts = [p for p in value.strip().strip("/").split("/") if p]
    if parts and parts[0] == RAW_DIR:
        parts = parts[1:]
    if parts and parts[-1] == UNITS_FILE:
        parts = parts[:-1]
    if len(parts) != 1 or parts[0] in (".", ".."):
        raise BadArgument(f"--segment {value!r}: give a raw segment folder (see `horma tree WS`)")
    return f"{RAW_DIR}/{parts[0]}/{UNITS_FILE}"


