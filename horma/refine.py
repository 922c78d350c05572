"""Contrastive skill refinement: the manager learns from where its memory won or lost.

Per round, every task runs twice: with the raw history ``H`` (unconstrained)
and with the managed memory ``H'`` (manager + retriever guided by the current
skill library). Tasks where ``H`` succeeds and ``H'`` fails form the
*exogenous* set (the manager lost information); tasks where ``H'`` succeeds
and ``H`` fails form the *endogenous* set (structure removed noise). One LLM
call per such task writes contrastive feedback from both contexts; one more
call turns the round's feedback into new skills (JSON), which are validated,
de-duplicated against the library, numbered ``exo_NNN`` / ``end_NNN`` and
appended. The library after each round is kept (``history/<domain>/`` in the skills folder), so
rounds can be compared and rolled back.

Everything lands in the run directory::

    OUT/log.jsonl                    one line per decision (sets, skills added/rejected, errors)
    OUT/round_<N>/calls/NNN_*.json   every prompt and reply, with usage and timing
    OUT/round_<N>/outcomes.jsonl     per task: H and H' answer, score, success
    OUT/round_<N>/report.json        the round's figures
    OUT/report.json                  all rounds
    OUT/skill_growth.png             skills vs round, score vs round

A benchmark takes part through the small :class:`Arena` protocol, so the
loop knows nothing about LoCoMo or ALFWorld.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Protocol

from horma.core.text import TOKEN_PATTERN
from horma.errors import HormaError
from horma.prompts import render_prompt
from horma.skill_proposals import ProposalError, Review, parse_proposals, review_proposals
from horma.skill_rounds import save_round
from horma.skills import (
    HEURISTIC_OPTIONS,
    Skill,
    domain_file,
    load_library,
    read_skill_file,
    rounds,
)
from horma.workspace import atomic_write

_TOKEN_RE = re.compile(TOKEN_PATTERN)  # token spans by the project's one token rule


H = "H"  # raw history, the unconstrained baseline
H_PRIME = "H'"  # managed memory
CONDITIONS = (H, H_PRIME)


@dataclass(frozen=True)
class RefineTask:
    """One task as refinement sees it. ``evidence`` is the raw text the answer rests on, if known."""

    id: str
    question: str
    reference: str
    category: str = ""
    evidence: str = ""


@dataclass(frozen=True)
class Outcome:
    """One run of a task under one condition."""

    task_id: str
    success: bool
    score: float
    answer: str
    context: str
    tokens: int


ProgressHook = Callable[[str, int], Callable[[], None]]
"""Given a label and a total, returns the function to call once per finished item."""


def no_progress(label: str, total: int) -> Callable[[], None]:
    return lambda: None


class Arena(Protocol):
    """A benchmark as the refinement loop sees it.

    ``run`` executes ``tasks`` under ``condition`` (:data:`H` or :data:`H_PRIME`);
    for ``H'`` it must build the memory fresh, with the skill library as it
    stands now (in ``RefineConfig.skills_dir``): the library grows between rounds. ``workdir`` is a fresh
    folder for its workspaces and results.
    """

    domain: str

    def tasks(self) -> list[RefineTask]: ...

    def run(self, condition: str, tasks: Sequence[RefineTask], workdir: Path,
            advance: Callable[[], None]) -> dict[str, Outcome]: ...


class ChatModel(Protocol):
    """The slice of ``horma.llm.LLM`` refinement uses."""

    def complete(self, system: str, messages: list[dict[str, Any]], tools: Any = None) -> Any: ...


@dataclass
class RefineConfig:
    rounds: int = 1
    max_new_skills: int = 8  # per round, as asked of the augmentation call
    context_cap: int = 3000  # tokens of each context shown in a feedback prompt
    rerun_h: bool = False  # H does not depend on skills: by default it runs in the first round only
    skills_dir: Path | None = None  # the library grown (the ``skills.dir`` setting); None: the project's skills/


@dataclass
class RoundReport:
    round: int
    tasks: int
    score_h: float
    score_hp: float
    success_h: float
    success_hp: float
    exogenous: list[str]
    endogenous: list[str]
    feedback_failed: list[str]
    added: list[str]
    duplicates: list[dict[str, str]]
    invalid: list[dict[str, str]]
    library_size: int
    snapshot: str
    h_reused: bool = False


@dataclass
class RefineReport:
    domain: str
    out: str
    start_round: int
    start_size: int
    rounds: list[RoundReport] = field(default_factory=list)
    plot: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


class RefineError(HormaError):
    """Refinement cannot start or continue; worded for the user."""


# -- logging -------------------------------------------------------------------
class RunLog:
    """The run directory's record: decisions in ``log.jsonl``, each LLM call in its own file."""

    def __init__(self, out: Path):
        self.out = out
        out.mkdir(parents=True, exist_ok=True)
        self._fh = (out / "log.jsonl").open("a", encoding="utf-8")
        self._calls = 0

    def event(self, kind: str, **fields: Any) -> None:
        self._fh.write(json.dumps({"time": time.time(), "event": kind, **fields}, ensure_ascii=False) + "\n")
        self._fh.flush()

    def call(self, round_: int, purpose: str, record: dict[str, Any]) -> Path:
        self._calls += 1
        path = self.out / f"round_{round_}" / "calls" / f"{self._calls:03d}_{purpose}.json"
        atomic_write(path, json.dumps(record, ensure_ascii=False, indent=1))
        return path

    def close(self) -> None:
        self._fh.close()


def _chat(llm: ChatModel, log: RunLog, round_: int, purpose: str, system: str,
          messages: list[dict[str, Any]]) -> str:
    """One logged LLM call; the exception (if any) is logged and re-raised."""
    started = time.perf_counter()
    record: dict[str, Any] = {"purpose": purpose, "system": system, "messages": messages}
    try:
        reply = llm.complete(system, messages)
    except Exception as exc:
        record.update(error=f"{type(exc).__name__}: {exc}", elapsed_ms=_ms(started))
        log.call(round_, purpose, record)
        raise
    usage = getattr(reply, "usage", None)
    record.update(reply=reply.text, elapsed_ms=_ms(started),
                  usage=usage if isinstance(usage, dict) else getattr(usage, "__dict__", str(usage)))
    log.call(round_, purpose, record)
    return reply.text


def _ms(started: float) -> int:
    return int((time.perf_counter() - started) * 1000)


# -- prompts -------------------------------------------------------------------
def shorten(text: str, cap: int) -> tuple[str, bool]:
    """Keep the first and last ``cap/2`` tokens of a long context, with a marker between."""
    spans = [m.span() for m in _TOKEN_RE.finditer(text)]
    if len(spans) <= cap:
        return text, False
    half = max(cap // 2, 1)
    head = text[: spans[half - 1][1]]
    tail = text[spans[-half][0]:]
    return f"{head}\n[... {len(spans) - 2 * half} tokens left out ...]\n{tail}", True


def feedback_prompt(kind: str, task: RefineTask, h: Outcome, hp: Outcome, skills: Sequence[Skill],
                    cap: int) -> str:
    h_context, h_cut = shorten(h.context, cap)
    hp_context, hp_cut = shorten(hp.context, cap)
    return render_prompt(f"feedback_{kind}", task=task, h=h, hp=hp, skills=skills,
                         h_context=h_context, h_truncated=h_cut,
                         hp_context=hp_context, hp_truncated=hp_cut)


def augment_prompt(round_: int, feedback: Sequence[dict[str, str]], skills: Sequence[Skill],
                   max_new: int) -> str:
    options = {name: (typ.__name__, text) for name, (typ, text) in HEURISTIC_OPTIONS.items()}
    return render_prompt("skills_augment", round=round_, feedback=feedback, skills=skills,
                         options=options, max_new=max_new)


# -- the loop ------------------------------------------------------------------
def _mean(xs: Sequence[float]) -> float:
    return sum(xs) / len(xs) if xs else 0.0


def _domain_skills(domain: str, root: Path | None) -> list[Skill]:
    path = domain_file(domain, root)
    return read_skill_file(path) if path.is_file() else []


def refine(arena: Arena, llm: ChatModel, out: Path, config: RefineConfig,
           progress: ProgressHook = no_progress) -> RefineReport:
    """Run ``config.rounds`` refinement rounds; returns (and writes) the report."""
    domain = arena.domain
    tasks = arena.tasks()
    if not tasks:
        raise RefineError("no tasks to refine on (check --limit, --split and the data file)")
    if len({t.id for t in tasks}) != len(tasks):
        raise RefineError("task ids are not unique")
    root = config.skills_dir
    current = _domain_skills(domain, root)
    load_library(None, root=root)  # a broken base library fails here, before any LLM call
    kept = rounds(domain, root)
    if not kept:
        save_round(domain, 0, current, root=root)
        kept = [0]
    first = max(kept) + 1
    log = RunLog(out)
    report = RefineReport(domain=domain, out=str(out), start_round=first, start_size=len(current))
    log.event("start", domain=domain, tasks=len(tasks), rounds=config.rounds, first_round=first,
              library_size=len(current))
    system = render_prompt("refine_system")
    h_cache: dict[str, Outcome] = {}
    try:
        for r in range(first, first + config.rounds):
            rr = _round(arena, llm, log, system, tasks, r, out / f"round_{r}", config, h_cache, progress)
            report.rounds.append(rr)
            atomic_write(out / "report.json", json.dumps(report.as_dict(), indent=1))
        from horma.refine_plot import plot_growth  # matplotlib: loaded only when a plot is drawn

        report.plot = str(plot_growth(report, out / "skill_growth.png"))
        atomic_write(out / "report.json", json.dumps(report.as_dict(), indent=1))
        log.event("end", plot=report.plot)
    finally:
        log.close()
    return report


def _round(arena: Arena, llm: ChatModel, log: RunLog, system: str, tasks: list[RefineTask], r: int,
           rdir: Path, config: RefineConfig, h_cache: dict[str, Outcome],
           progress: ProgressHook) -> RoundReport:
    library = load_library(arena.domain, root=config.skills_dir)
    base_ids = {b.id for b in load_library(None, root=config.skills_dir)}
    domain_skills = [s for s in library if s.id not in base_ids]
    log.event("round_start", round=r, library_size=len(domain_skills))

    reuse_h = bool(h_cache) and not config.rerun_h
    if not reuse_h:
        h_cache.clear()
        h_cache.update(arena.run(H, tasks, rdir / "H", progress(f"round {r}: H (raw history)", len(tasks))))
    hp = arena.run(H_PRIME, tasks, rdir / "H_prime", progress(f"round {r}: H' (managed memory)", len(tasks)))
    missing = [t.id for t in tasks if t.id not in h_cache or t.id not in hp]
    if missing:
        raise RefineError(f"round {r}: the arena returned no outcome for {len(missing)} task(s), e.g. {missing[0]}")
    with (rdir / "outcomes.jsonl").open("w", encoding="utf-8") as fh:
        for t in tasks:
            fh.write(json.dumps({"task": asdict(t), H: asdict(h_cache[t.id]), H_PRIME: asdict(hp[t.id])},
                                ensure_ascii=False) + "\n")

    sets = {
        "exogenous": [t for t in tasks if h_cache[t.id].success and not hp[t.id].success],
        "endogenous": [t for t in tasks if hp[t.id].success and not h_cache[t.id].success],
    }
    log.event("contrastive_sets", round=r, **{k: [t.id for t in v] for k, v in sets.items()})

    feedback: list[dict[str, str]] = []
    failed: list[str] = []
    advance = progress(f"round {r}: feedback", sum(len(v) for v in sets.values()))
    for kind, members in sets.items():
        for t in members:
            prompt = feedback_prompt(kind, t, h_cache[t.id], hp[t.id], library, config.context_cap)
            try:
                text = _chat(llm, log, r, f"feedback_{kind[:3]}", system, [{"role": "user", "content": prompt}])
            except Exception as exc:  # one provider failure must not end a long run
                failed.append(t.id)
                log.event("feedback_failed", round=r, task=t.id, error=f"{type(exc).__name__}: {exc}")
            else:
                feedback.append({"kind": kind, "task_id": t.id, "text": text.strip()})
            advance()

    review = Review()
    if feedback:
        proposals = _propose(llm, log, system, r, feedback, library, config.max_new_skills)
        task_ids = {k: [f["task_id"] for f in feedback if f["kind"] == k] for k in sets}
        review = review_proposals(proposals, library, r, task_ids)
        for s in review.accepted:
            log.event("skill_added", round=r, id=s.id, title=s.title, sources=s.sources)
        for d in review.duplicates:
            log.event("skill_duplicate", round=r, **d)
        for bad in review.invalid:
            log.event("skill_invalid", round=r, **bad)
    else:
        log.event("no_feedback", round=r, reason="no contrastive tasks" if not failed else "all feedback calls failed")

    snap = save_round(arena.domain, r, domain_skills + review.accepted, root=config.skills_dir)
    rr = RoundReport(
        round=r, tasks=len(tasks),
        score_h=_mean([h_cache[t.id].score for t in tasks]),
        score_hp=_mean([hp[t.id].score for t in tasks]),
        success_h=_mean([float(h_cache[t.id].success) for t in tasks]),
        success_hp=_mean([float(hp[t.id].success) for t in tasks]),
        exogenous=[t.id for t in sets["exogenous"]], endogenous=[t.id for t in sets["endogenous"]],
        feedback_failed=failed, added=[s.id for s in review.accepted],
        duplicates=review.duplicates, invalid=review.invalid,
        library_size=len(domain_skills) + len(review.accepted), snapshot=str(snap), h_reused=reuse_h,
    )
    atomic_write(rdir / "report.json", json.dumps(asdict(rr), indent=1))
    log.event("round_end", **asdict(rr))
    return rr


def _propose(llm: ChatModel, log: RunLog, system: str, r: int, feedback: list[dict[str, str]],
             library: Sequence[Skill], max_new: int) -> list[Any]:
    """The augmentation call; an invalid reply gets one retry, then the round adds nothing."""
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": augment_prompt(r, feedback, library, max_new)}]
    for attempt in (1, 2):
        try:
            text = _chat(llm, log, r, "skills_augment", system, messages)
        except Exception as exc:
            log.event("augment_failed", round=r, attempt=attempt, error=f"{type(exc).__name__}: {exc}")
            return []
        try:
            return parse_proposals(text)
        except ProposalError as exc:
            log.event("augment_invalid_json", round=r, attempt=attempt, error=str(exc))
            messages = [*messages, {"role": "assistant", "content": text},
                        {"role": "user", "content": f"That reply could not be used ({exc}). "
                                                    'Reply again with the JSON object {"skills": [...]} only.'}]
    log.event("augment_skipped", round=r, reason="no valid JSON after one retry")
    return []
