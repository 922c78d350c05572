"""Importers: a user's own history (a chat export, a folder of notes) as segments of units.

Each importer turns one file or folder into an :class:`Import`: the segments to
archive plus a tally of what was left out and why, so the summary can say it.
Everything is read and checked before a workspace is touched, so a bad export
changes nothing. Unit ids come from the source's own ids (message ids, a
paragraph's content hash): importing the same export again archives nothing,
and a newer export archives only what is new.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from horma.sources import Segment, SourceError


@dataclass
class Import:
    """What one importer read: segments in time order, and counts of what it skipped, by reason."""

    segments: list[Segment]
    skipped: Counter[str] = field(default_factory=Counter)

    @property
    def units(self) -> int:
        return sum(len(s.units) for s in self.segments)


Loader = Callable[[Path, str], Import]  # (path, the user's name as an actor) -> Import


@dataclass(frozen=True)
class Importer:
    name: str
    what: str  # the argument it takes, for --help
    load: Loader


def _registry() -> dict[str, Importer]:
    from horma.importers import chatgpt, claude, markdown

    return {imp.name: imp for imp in (chatgpt.IMPORTER, claude.IMPORTER, markdown.IMPORTER)}


def importer(name: str) -> Importer:
    """The importer called ``name``; SourceError listing the known ones otherwise."""
    known = _registry()
    if name not in known:
        raise SourceError(f"no importer {name!r} (known: {', '.join(sorted(known))})")
    return known[name]


def importer_names() -> list[str]:
    return sorted(_registry())


__all__ = ["Import", "Importer", "SourceError", "importer", "importer_names"]
