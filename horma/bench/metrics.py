"""Scores for one instance and their aggregation.

Token F1 follows LoCoMo's own evaluation code (``task_eval/evaluation.py``):
lower-case, drop commas and punctuation, drop ``a an the and``, Porter-stem
every token, then bag-of-tokens F1; category 1 (multi-hop) splits both sides
on commas and averages, over the reference parts, the best match among the
prediction parts; category 3 keeps the reference up to its first ``;``;
category 5 (adversarial) scores 1 when the answer says the information is not
available. Matching that code keeps our figures comparable with published ones.

Evidence metrics are computed from provenance, never from the answer:
*strict* recall counts an evidence unit only when its raw turn text appears
verbatim in the context (a note that merely cites an id does not count), and
Jaccard is the paper's reward ``|C ∩ E| / |C ∪ E|`` over unit ids.
"""

from __future__ import annotations

import math
import re
import string
from collections import Counter
from collections.abc import Iterable, Sequence
from functools import lru_cache

ABSTAIN_PHRASES = (
    "no information available",  # LoCoMo's own two phrases
    "not mentioned",
    "information is not available",
    "not available in",
)

_ARTICLES = re.compile(r"\b(a|an|the|and)\b")
_PUNCT = str.maketrans("", "", string.punctuation)


@lru_cache(maxsize=1)
def _stemmer():
    from nltk.stem import PorterStemmer

    return PorterStemmer()


def normalize_answer(text: str) -> str:
    """LoCoMo's normalization: lower, no commas or punctuation, no articles/``and``, single spaces."""
    text = str(text).replace(",", "").lower().translate(_PUNCT)
    return " ".join(_ARTICLES.sub(" ", text).split())


def answer_tokens(text: str) -> list[str]:
    stem = _stemmer().stem
    return [stem(w) for w in normalize_answer(text).split()]


def token_f1(prediction: str, reference: str) -> float:
    """Bag-of-stemmed-tokens F1 between one prediction and one reference."""
    pred, ref = answer_tokens(prediction), answer_tokens(reference)
    same = sum((Counter(pred) & Counter(ref)).values())
    if same == 0:
        return 0.0
    precision, recall = same / len(pred), same / len(ref)
    return 2 * precision * recall / (precision + recall)


def multi_answer_f1(prediction: str, reference: str) -> float:
    """Category 1: each comma-separated reference part scored by its best-matching prediction part."""
    preds = [p.strip() for p in str(prediction).split(",")]
    refs = [r.strip() for r in str(reference).split(",")]
    return sum(max(token_f1(p, r) for p in preds) for r in refs) / len(refs)


def says_not_available(answer: str) -> bool:
    """True when an answer declines because the memory does not hold the information."""
    low = " ".join(str(answer).lower().split())
    return any(p in low for p in ABSTAIN_PHRASES)


def locomo_f1(prediction: str, reference: str | None, category: int) -> float:
    """The LoCoMo answer score of one prediction, by category (see the module docstring)."""
    if category == 5:
        return 1.0 if says_not_available(prediction) else 0.0
    reference = "" if reference is None else str(reference)
    if category == 3:
        reference = reference.split(";")[0].strip()
    if category == 1:
        return multi_answer_f1(prediction, reference)
    return token_f1(prediction, reference)


def _flat(text: str) -> str:
    return " ".join(text.split())


def strict_evidence_recall(context: str, evidence_texts: Sequence[str]) -> float | None:
    """Share of evidence units whose raw text appears verbatim in the context; None without evidence."""
    if not evidence_texts:
        return None
    ctx = _flat(context)
    return sum(1 for t in evidence_texts if _flat(t) and _flat(t) in ctx) / len(evidence_texts)


def jaccard(selected: Iterable[str], evidence: Iterable[str]) -> float | None:
    """``|C ∩ E| / |C ∪ E|`` over unit ids (the paper's reward); None when there is no evidence."""
    c, e = set(selected), set(evidence)
    if not e:
        return None
    return len(c & e) / len(c | e)


def percentile(values: Sequence[float], q: float) -> float | None:
    """The ``q``-th percentile (0..100) by linear interpolation, as numpy's default."""
    if not values:
        return None
    xs = sorted(values)
    pos = (len(xs) - 1) * q / 100
    lo, hi = math.floor(pos), math.ceil(pos)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


def mean(values: Iterable[float | None]) -> float | None:
    """Mean over the values that are not None; None when there are none."""
    xs = [v for v in values if v is not None]
    return sum(xs) / len(xs) if xs else None
