"""The eval harness's conversational QA tasks (LoCoMo, LongMemEval) as a refinement arena.

Kept out of :mod:`horma.refine`, whose loop knows no benchmark (:class:`horma.refine.Arena`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from horma.refine import H_PRIME, H, Outcome, RefineTask


class QAArena:
    """The eval harness's QA tasks as a refinement arena.

    ``H`` is the harness's ``full`` method (every unit, no limit) and ``H'`` its
    ``horma`` method under ``budget``; both answer with the same primary model
    through :func:`horma.bench.qa.answer_question`, so a round measures exactly
    what ``horma eval`` would. A question succeeds when the judge (if given)
    says correct, else when its LoCoMo-style F1 reaches ``success_f1``.
    The memory is rebuilt from scratch for every ``H'`` run: the skills changed.
    """

    def __init__(self, domain: str, qa_tasks: Sequence[Any], answerer: Any, *, judge: Any = None,
                 budget: int | None = 10_000, success_f1: float = 0.5, options: Any = None,
                 limit: int | None = None):
        from horma.bench.methods import MethodOptions
        from horma.config import load_config

        self.domain = domain
        self.answerer, self.judge = answerer, judge
        self.budget, self.success_f1 = budget, success_f1
        self.options = options or MethodOptions(load_config(overrides={"policies.domain": domain}))
        self.qa_tasks = list(qa_tasks)
        items = [(t, q) for t in self.qa_tasks for q in t.items]
        self._items = items[:limit] if limit is not None else items

    def tasks(self) -> list[RefineTask]:
        return [
            RefineTask(id=q.id, question=q.question, category=q.category,
                 reference=q.reference if q.reference is not None
                 else "(not in the history: the right answer says it is not mentioned)",
                 evidence="\n".join(f"{e}: {text}" for e, text in zip(q.evidence, q.evidence_texts, strict=False)))
            for _, q in self._items
        ]

    def run(self, condition: str, tasks: Sequence[RefineTask], workdir: Path,
            advance: Callable[[], None]) -> dict[str, Outcome]:
        from horma.bench.methods import make_method
        from horma.bench.qa import answer_question

        method = {H: "full", H_PRIME: "horma"}[condition]
        budget = None if condition == H else self.budget
        wanted = {t.id for t in tasks}
        out: dict[str, Outcome] = {}
        for qa_task in self.qa_tasks:
            items = [q for q in qa_task.items if q.id in wanted]
            if not items:
                continue
            wd = workdir / re.sub(r"[^\w.\-]+", "_", qa_task.id)
            wd.mkdir(parents=True, exist_ok=True)
            with make_method(method, wd, self.options) as m:
                for seg in qa_task.segments:
                    m.record(seg.units, seg.slug, seg.time)
                for q in items:
                    got = m.recall(q.question, budget)
                    rec = answer_question(self.answerer, self.judge, q, got.text)
                    ok = rec["judge"] is True if "judge" in rec else rec["f1"] >= self.success_f1
                    score = float(rec["judge"] is True) if "judge" in rec else rec["f1"]
                    out[q.id] = Outcome(q.id, ok, score, rec["answer"], got.text, got.tokens)
                    advance()
        return out
