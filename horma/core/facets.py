"""A question about two events gets each event's best turn first.

"How long had I been bird watching when I attended the workshop?", "Which came first, the festival or
my Spanish classes?", "How many days passed between the day I cancelled X and the day I ordered Y?" are
answered by one turn per event. Ranked as a whole, the question's first event wins: its turn, the reply
after it and the rest of its session stand ahead of the second event's turn, and a small budget holds
only the first (LongMemEval at 250 tokens: 13 such questions found one of two turns where flat BM25 found
both). So each part is also ranked alone and its best turn goes first (docs/benchmarks.md, session 13).

Stdlib only: ``hsearch`` ranks the same way inside the sandbox.
"""

from __future__ import annotations

from horma.core.text import STOPWORDS

# What joins the two events of a question: "A or B"; "A when B" where B has a subject of its own
# ("...when I attended the workshop"; not "a therapy for John when away from the court", one event and its
# circumstance); and "between A and B", where "and" joins them only after "between" (elsewhere it joins two
# names). Not "before" / "after": "What diet did I try before the Mediterranean one?" asks one thing, and
# the second part only dates it (the assistant chats lost it at 250 tokens when it was read as two).
SUBJECTS = frozenset(("i", "we", "you", "he", "she", "they", "it", "my", "our", "your", "his", "her", "their"))
MIN_WORDS = 2  # content words a part needs to stand for an event ("or not" is not one)


def facets(words: list[str], names: frozenset[str] | set[str] = frozenset()) -> list[list[str]]:
    """The parts of a question about two or more events, as word lists; [] for a question about one.

    ``words`` are the question's lower-cased words; ``names`` (speakers) do not count as content words:
    "What did Jon say to Gina when..." needs an event on each side, not a name.
    """
    if "between" in words and "and" in words[words.index("between") + 1:]:
        i = words.index("between")
        j = words.index("and", i + 1)
        parts = [words[i + 1:j], words[j + 1:]]
    else:
        parts = [[]]
        for i, w in enumerate(words):
            after = words[i + 1] if i + 1 < len(words) else ""
            if w == "or" or (w == "when" and (after in SUBJECTS or after in names)):
                parts.append([])
            else:
                parts[-1].append(w)
    parts = [p for p in parts if len({w for w in p if w not in STOPWORDS and w not in names}) >= MIN_WORDS]
    return parts if len(parts) >= 2 else []


def first_of_each(ranked: list, tops: list) -> list:
    """``ranked`` with ``tops`` (each part's best hit, in the question's order) moved to the front and scored
    as its best, so the order stays by score for whoever cuts it (``--cut``); each unit once."""
    best = max((h.score for h in ranked[:1]), default=0.0)
    have = {h.id: h for h in ranked}
    first = []
    for top in tops:
        h = have.get(top.id, top)
        if h not in first:
            h.score = max(h.score, best)
            first.append(h)
    ids = {h.id for h in first}
    return first + [h for h in ranked if h.id not in ids]
