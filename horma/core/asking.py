"""A turn that asks holds the question's words, not its answer: how much of its own match to keep.

"Wow John, joining the fire brigade? That's great! How's it been so far?" matches "What community
service was Maria involved in?" by the words of its own question, and the reply after it, which answers,
already takes that whole score (``search.ASKED_WEIGHT``). Kept whole, the asking turn also stood above the
answer in a small context. But a user's long turn to an assistant often tells its facts first and asks
after them ("I still remember being on the debate team ... what do data scientists earn?"): there the
match lies in what it tells. So a turn that asks keeps its match but for the part of it that lies in its
questions: of the query's words it holds, the share found in the sentences that end in "?" (or, matched
by meaning alone, the share of all its words in them) loses :data:`ASKED_OWN`'s complement.

Measured on every dev set (docs/benchmarks.md, session 23): LoCoMo +0.007 at 300 tokens and gains at
100-700, the chat sets +0.005 to +0.014 at a few small budgets, LongMemEval +0.005 to +0.007 at
1000-2000, nothing lower at any budget of any set. The whole match discounted by 0.7 whatever the
sentence (session 20) lost LongMemEval 0.017 at 3000; in proportion to the share of all the turn's words
that lie in its questions, 0.002 at 1000 and 3000.

Stdlib only, like all of :mod:`horma.core`: ``hsearch`` runs it in the sandbox, reading the raw lines.
"""

from __future__ import annotations

import re

from horma.core import text as ht
from horma.core.hit import Hit
from horma.core.layout import RawLines

ASKED_OWN = 0.7  # what a match lying wholly in a turn's questions keeps (session 20's ASKED_OWN)
ASK_TOP = 100  # the best own matches whose text is read: a discount further down changes no context
PREFIX = 5  # words are compared by their first letters, a stemmer's rough equal ("adopt", "adoption")


_SENTENCE = re.compile(r"[^.!?]*([.!?]+)")


def sentences(body: str) -> list[tuple[str, bool]]:
    """``body`` split after each run of ".", "!" or "?": (sentence, whether it asks)."""
    out = []
    end = 0
    for m in _SENTENCE.finditer(body):
        out.append((m.group(), "?" in m.group(1)))
        end = m.end()
    if body[end:].strip():
        out.append((body[end:], False))
    return out


def question_share(body: str, wanted: set[str]) -> float:
    """The share of a turn's match that lies in its questions: of the ``wanted`` words (the query's, by
    their first :data:`PREFIX` letters) that it holds, those in sentences that ask; with none of them, the
    share of all its words in such sentences."""
    held = asked = words = asking = 0
    for sentence, asks in sentences(body):
        ws = ht.words(sentence)
        found = sum(1 for w in ws if w[:PREFIX] in wanted)
        held += found
        words += len(ws)
        if asks:
            asked += found
            asking += len(ws)
    if held:
        return asked / held
    return asking / words if words else 0.0


def kept(root: str, hits: list[Hit], query_words: list[str]) -> dict[int, float]:
    """The factor each of ``hits`` (turns that ask, best own match first) keeps of its own match, read from
    the raw lines under ``root``; a line that cannot be read keeps all of it."""
    if not root:
        return {}
    wanted = {w[:PREFIX] for w in query_words}
    out: dict[int, float] = {}
    with RawLines(root) as lines:
        for h in sorted(hits[:ASK_TOP], key=lambda h: (h.path, h.offset)):
            try:
                unit = ht.parse_unit(lines.read(h.path, h.offset))
            except OSError:  # forgotten since it was indexed, a link out, not in this view: nothing to discount
                continue
            if unit is not None:
                out[h.id] = 1.0 - (1.0 - ASKED_OWN) * question_share(unit[3], wanted)
    return out
