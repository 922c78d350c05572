"""Sources: loaders that turn a dataset or a log into segments of units.

A segment is what the manager archives as one raw folder (a dialogue session,
an episode segment, a day of a log). Loaders validate everything before the
caller touches a workspace, so a bad file changes nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

from horma.errors import BadArgument
from horma.workspace import Unit


class SourceError(BadArgument):
    """A dataset file the user gave is malformed; the message names the file and the place."""


@dataclass(frozen=True)
class Segment:
    """One session or episode segment: archived as one ``raw/<time>__<slug>/`` folder.

    The one segment type: sources and importers yield it, the eval harness's QA tasks carry it.
    ``time`` None: left to ``Memory.record``, as for a record without one.
    """

    slug: str
    time: str | None
    units: tuple[Unit, ...]


__all__ = ["Segment", "SourceError"]
