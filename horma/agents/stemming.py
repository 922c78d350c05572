"""Porter stems as the search index makes them: what topic words are matched on.

Kept apart from :mod:`horma.agents.extraction` (what a segment says: dates,
names, topics, key phrases) because this is a small engine of its own, an
in-memory SQLite FTS5 table with a memo and a lock, that any code wanting the
index's stems can use.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterable
from functools import lru_cache

from horma.core.index_schema import TOKENIZER


class _Porter:
    """Porter stems from SQLite's FTS5 ``porter`` tokenizer: the stemmer the search index itself applies.

    The stdlib has it (no import costs 1.6 s, as ``nltk``'s package does), it
    stems in C, and topic words then meet exactly the terms ``hsearch``
    matches. Words are stemmed in batches (one insert, one select) and
    memoised: stemming is a pure function, so the memo cannot go stale.
    """

    MEMO = 1 << 18  # words; cleared when full

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.memo: dict[str, str] = {}
        self.db = sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None)
        self.db.execute(f"CREATE VIRTUAL TABLE w USING fts5(x, tokenize='{TOKENIZER}')")
        self.db.execute("CREATE VIRTUAL TABLE v USING fts5vocab(w, 'instance')")

    def stems(self, words: Iterable[str]) -> dict[str, str]:
        memo = self.memo
        out: dict[str, str] = {}
        new: dict[str, None] = {}
        for w in words:
            s = memo.get(w)
            if s is None:
                new[w] = None
            else:
                out[w] = s
        if new:
            batch = list(new)
            with self.lock:
                self.db.execute("BEGIN")
                self.db.executemany("INSERT INTO w(rowid, x) VALUES(?, ?)", enumerate(batch))
                got = dict(self.db.execute("SELECT doc, term FROM v WHERE offset = 0"))
                self.db.execute("DELETE FROM w")
                self.db.execute("COMMIT")
                if len(memo) + len(batch) > self.MEMO:
                    memo.clear()
                for i, w in enumerate(batch):
                    memo[w] = out[w] = got.get(i, w)
        return out


@lru_cache(maxsize=1)
def _porter() -> _Porter:
    return _Porter()


def stems(words: Iterable[str]) -> dict[str, str]:
    """A mapping that holds the Porter stem of every word in ``words`` (lower-cased words)."""
    return _porter().stems(words)


def stem(word: str) -> str:
    """Porter stem of a lower-cased word ('painted', 'painting', 'paints' -> 'paint')."""
    return stems((word,))[word]


__all__ = ["stem", "stems"]
