"""Conversational QA benchmarks (LoCoMo, LongMemEval) as runner tasks.

A task is one history (a LoCoMo conversation, a LongMemEval haystack) plus
the questions asked of it: the method records the history once, session by
session, then answers every question, so building a memory is paid once per
history, as in the paper. A task carries everything it needs and pickles, so
the runner can hand it to a worker process (or a Ray task) as it is.
"""

from __future__ import annotations

import shutil
import time as _time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from horma.bench.methods import make_method
from horma.bench.metrics import jaccard, locomo_f1, says_not_available, strict_evidence_recall, token_f1
from horma.sources import Segment
from horma.workspace import slugify

if TYPE_CHECKING:
    from horma.bench.runner import RunSettings


@dataclass(frozen=True)
class QAItem:
    """One question. ``locomo_category`` selects LoCoMo's per-category F1; ``abstain`` marks
    questions whose right answer is that the history does not say (LoCoMo 5, LongMemEval ``_abs``)."""

    id: str
    question: str
    reference: str | None
    category: str
    evidence: tuple[str, ...]
    evidence_texts: tuple[str, ...]
    abstain: bool = False
    locomo_category: int | None = None
    asked: str | None = None  # when the question is asked (LongMemEval's question_date)

    def f1(self, answer: str) -> float:
        if self.locomo_category is not None:
            return locomo_f1(answer, self.reference, self.locomo_category)
        if self.abstain:
            return 1.0 if says_not_available(answer) else 0.0
        return token_f1(answer, self.reference or "")


@dataclass(frozen=True)
class QATask:
    id: str
    segments: tuple[Segment, ...]
    items: tuple[QAItem, ...]

    def instance_ids(self) -> list[str]:
        return [q.id for q in self.items]

    def run(self, settings: RunSettings, todo: Sequence[str], emit: Callable[[dict], None]) -> None:
        run_qa_task(self, settings, todo, emit)


def run_qa_task(task: QATask, settings: RunSettings, todo: Sequence[str], emit: Callable[[dict], None]) -> None:
    """Record the history with the method, then recall (and answer, and score) each question in ``todo``."""
    wanted = set(todo)
    items = [q for q in task.items if q.id in wanted]
    if not items:
        return
    workdir = settings.workdir / slugify(task.id, 80)
    if workdir.exists():
        shutil.rmtree(workdir)  # a rerun rebuilds the memory from scratch: same input, same memory
    workdir.mkdir(parents=True)
    answerer = judge = None
    if not settings.retrieval_only:
        answerer = settings.make_llm("primary", settings.llm)
        judge = settings.make_llm("judge", settings.judge) if settings.judge else None
    units = sum(len(s.units) for s in task.segments)
    with make_method(settings.method, workdir, settings.options) as method:
        t0 = _time.perf_counter()
        for seg in task.segments:
            method.record(seg.units, seg.slug, seg.time)
        method.ready()
        ingest_ms = (_time.perf_counter() - t0) * 1000
        for q in items:
            got = method.recall(q.question, settings.budget, asked=q.asked)
            rec: dict[str, Any] = {
                "id": q.id,
                "task": task.id,
                "category": q.category,
                "question": q.question,
                "reference": q.reference,
                "context_tokens": got.tokens,
                "evidence_recall": strict_evidence_recall(got.text, q.evidence_texts),
                "jaccard": jaccard(got.refs, q.evidence),
                "llm_calls": got.cost.llm_calls,
                "steps": got.steps,
                "input_tokens": got.cost.input_tokens + (got.tokens if answerer is None else 0),
                "refs": got.refs,
                "evidence": list(q.evidence),
                "history_units": units,
                "ingest_ms": ingest_ms,
                "retrieval_ms": got.cost.wall_ms,
            }
            if answerer is not None:
                rec.update(answer_question(answerer, judge, q, got.text))
                rec["input_tokens"] += rec.pop("answer_input_tokens")
            emit(rec)


def answer_question(llm, judge, q: QAItem, context: str) -> dict:
    """The primary agent's answer from the context alone, its F1 and (with a judge) its verdict."""
    from horma.bench.judge import judge_answer
    from horma.llm import ContextOverflow
    from horma.prompts import render_prompt

    question = f"{q.question} (asked on {q.asked})" if q.asked else q.question
    prompt = render_prompt("primary", question=question, context=context)
    t0 = _time.perf_counter()
    try:
        reply = llm.complete("", [{"role": "user", "content": prompt}])
    except ContextOverflow:  # the context does not fit this model: no answer, counted, not a failed task
        return {"answer": "", "answer_input_tokens": 0, "answer_ms": (_time.perf_counter() - t0) * 1000,
                "f1": 0.0, "context_overflow": True}
    out = {"answer": reply.text.strip(), "answer_input_tokens": reply.usage.input_tokens,
           "answer_ms": (_time.perf_counter() - t0) * 1000, "context_overflow": False}
    out["f1"] = q.f1(out["answer"])
    if judge is not None:
        verdict = judge_answer(judge, q.question, q.reference, out["answer"], q.abstain)
        out["judge"] = verdict.correct
        out["judge_reasoning"] = verdict.reasoning or verdict.raw[:300]
    return out


# -- LoCoMo ---------------------------------------------------------------------
def locomo_tasks(path: str, split: str = "dev", categories: Sequence[int] = (2, 4, 5)) -> list[QATask]:
    """One task per conversation of the split, with its questions of ``categories``.

    Instance ids are ``<sample_id>/q<index in the sample's qa list>``: stable
    across runs and category selections, so resuming matches questions exactly.
    """
    from horma.bench.locomo import load_locomo, questions, select_split

    convs = select_split(load_locomo(path), split)
    tasks = []
    for conv in convs:
        segments = tuple(Segment(s.slug(conv.sample_id), s.time, s.units) for s in conv.sessions)
        items = tuple(
            QAItem(
                id=f"{conv.sample_id}/q{qa.index}",
                question=qa.question,
                reference=qa.answer if qa.category != 5 else None,
                category=qa.category_name,
                evidence=qa.evidence,
                evidence_texts=tuple(conv.unit(e).text for e in qa.evidence),
                abstain=qa.category == 5,
                locomo_category=qa.category,
                asked=qa.asked,
            )
            for qa in questions(conv, set(categories))
        )
        if items:
            tasks.append(QATask(conv.sample_id, segments, items))
    return tasks
