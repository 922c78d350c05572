"""One ranked raw line: where it is in the archive, what it costs a context, and its score."""

from __future__ import annotations


class Hit:
    __slots__ = ("actor", "cost", "digest", "id", "lineno", "offset", "path", "score", "seg", "time", "uid")

    def __init__(self, row: tuple):
        self.id, self.seg, self.lineno, self.offset, self.uid, self.actor, self.time, self.cost, self.digest = row
        self.path = ""
        self.score = 0.0
