"""The evidence-grounded reward ``J(C, E) = |C ∩ E| / |C ∪ E|`` over source unit ids, with optional shaping.

``C`` is the set of unit ids the selected context carries (its provenance,
``Context.refs``), ``E`` the question's evidence ids. The Jaccard itself is
the eval harness's (:func:`horma.bench.metrics.jaccard`), so training and
evaluation score the same thing. That function has no value without
evidence; here an empty ``E`` scores 1 for an empty context (nothing to find,
nothing taken) and 0 otherwise (every selected unit is noise).

Shaping, off by default (the paper's reward is the plain Jaccard):
``format_penalty`` per action the loop rejected as malformed (no action,
two actions, bad arguments), ``overflow_penalty`` per ``select`` refused
because it would overflow the budget. The shaped reward never goes below -1.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from horma.bench.metrics import jaccard


@dataclass(frozen=True)
class Shaping:
    format_penalty: float = 0.0
    overflow_penalty: float = 0.0


def evidence_jaccard(selected: Iterable[str], evidence: Iterable[str]) -> float:
    """``J(C, E)``; with no evidence, 1 for an empty context and 0 otherwise."""
    c, e = set(selected), set(evidence)
    value = jaccard(c, e)
    if value is None:
        return 0.0 if c else 1.0
    return value


def reward(selected: Iterable[str], evidence: Iterable[str], *, format_errors: int = 0, overflows: int = 0,
           shaping: Shaping = Shaping()) -> float:
    """The episode's reward: ``J(C, E)`` minus the shaping penalties, floored at -1."""
    value = evidence_jaccard(selected, evidence)
    value -= shaping.format_penalty * format_errors + shaping.overflow_penalty * overflows
    return max(value, -1.0)
