"""One ranked raw line: where it is in the archive, what it costs a context, and its score."""

from __future__ import annotations


class Hit:
    __slots__ = ("actor", "cost", "digest", "id", "lineno", "offset", "path", "score", "seg", "talk", "time", "uid")

    def __init__(self, row: tuple):
        """``row``: the unit's id, seg, lineno, offset, uid, actor, time, cost, digest, and its segment's talk
        (:mod:`horma.core.talks`; the segment where it is left out)."""
        self.id, self.seg, self.lineno, self.offset, self.uid, self.actor, self.time, self.cost, self.digest = row[:9]
        self.talk = row[9] if len(row) > 9 else self.seg
        self.path = ""
        self.score = 0.0


def distinct(hits: list[Hit]) -> list[Hit]:
    """Each text once (the best-ranked copy): a repeated line spends budget and tells nothing new."""
    seen: set[int] = set()
    out = []
    for h in hits:
        if h.digest not in seen:  # CRC-32 of the text: a clash among one query's few hundred hits is unlikely
            seen.add(h.digest)
            out.append(h)
    return out
