"""Retrieval episodes of a policy model, run by the LLM retriever itself in the task's read-view sandbox.

GRPO rollouts and the training bench both act through here: the model is
the ``llm`` of an ordinary :class:`~horma.agents.retriever.Retriever` with
the ``llm`` policy, so its replies go through the one agent loop, the
sandbox's bash and the retriever's own ``select`` / ``done`` tools; what
the episode selected is read back from the context's provenance and its
trajectory, and scored by :mod:`horma.train.reward`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from horma.agents.loop import RunLimits
from horma.agents.retriever import Retriever
from horma.agents.trajectory import read_trajectory
from horma.bench.metrics import strict_evidence_recall
from horma.filecheck import file_problem
from horma.train.reward import Shaping, reward
from horma.workspace import Workspace, WorkspaceError


@dataclass(frozen=True)
class RetrievalTask:
    """One line of ``grpo.jsonl``: a question, the workspace that holds its conversation, its evidence."""

    id: str
    query: str
    workspace: str
    evidence: tuple[str, ...]
    evidence_texts: tuple[str, ...]
    budget: int

    def as_dict(self) -> dict:
        return {"id": self.id, "query": self.query, "workspace": self.workspace, "evidence": list(self.evidence),
                "evidence_texts": list(self.evidence_texts), "budget": self.budget}


def load_tasks(path: str | Path) -> list[RetrievalTask]:
    """Read ``grpo.jsonl``; WorkspaceError naming the line when one is malformed."""
    p = Path(path)
    if problem := file_problem(p):
        raise WorkspaceError(f"{path}: {problem}")
    tasks = []
    for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            d = json.loads(line)
            tasks.append(RetrievalTask(str(d["id"]), str(d["query"]), str(d["workspace"]), tuple(d["evidence"]),
                              tuple(d.get("evidence_texts") or ()), int(d["budget"])))
        except (json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
            raise WorkspaceError(f"{path}:{n}: not a task line ({type(exc).__name__}: {exc})") from None
    if not tasks:
        raise WorkspaceError(f"{path}: no tasks")
    return tasks


@dataclass
class Episode:
    """One run of a :class:`RetrievalTask` by the policy model, scored: a GRPO rollout.

    A run read back from a trajectory file, to be replayed, is a
    :class:`horma.train.trajectories.RecordedRun`."""

    task: RetrievalTask
    refs: list[str]
    tokens: int
    status: str  # the agent loop's: done | max_steps | format_errors | ...
    steps: int
    format_errors: int
    overflows: int
    reward: float
    recall: float | None
    trace: str | None = None
    actions: list[str] = field(default_factory=list)

    @property
    def valid(self) -> bool:
        """Every action well-formed and the episode ended with ``done``."""
        return self.status == "done" and self.format_errors == 0

    def as_dict(self) -> dict:
        return {"task": self.task.id, "refs": self.refs, "tokens": self.tokens, "status": self.status,
                "steps": self.steps, "format_errors": self.format_errors, "overflows": self.overflows,
                "valid": self.valid, "reward": self.reward, "recall": self.recall, "actions": self.actions,
                "trace": self.trace}


class RetrievalEnvironment:
    """Runs episodes; keeps one read-view sandbox open per workspace across episodes."""

    def __init__(self, *, backend: str = "auto", limits: RunLimits | None = None, shaping: Shaping = Shaping(),
                 allow_unsafe_local: bool = False):
        self.backend = backend
        self.limits = limits or RunLimits(max_steps=8)
        self.shaping = shaping
        self.allow_unsafe_local = allow_unsafe_local
        self._retrievers: dict[str, Retriever] = {}

    def _retriever(self, workspace: str, llm) -> Retriever:
        r = self._retrievers.get(workspace)
        if r is None:
            r = self._retrievers[workspace] = Retriever(
                Workspace.open(workspace), "llm", backend=self.backend, llm=llm,
                allow_unsafe_local=self.allow_unsafe_local, limits=self.limits)
        r.llm = llm
        return r

    def run(self, task: RetrievalTask, llm) -> Episode:
        retriever = self._retriever(task.workspace, llm)
        rec = retriever.recall(task.query, task.budget)
        records = read_trajectory(retriever.workspace.root / rec.trace) if rec.trace else []
        steps = [r for r in records if r.get("type") == "step"]
        end = next((r for r in records if r.get("type") == "end"), {})
        errors = sum(1 for s in steps if s["action"] == "invalid")
        overflows = sum(1 for s in steps if s["action"] == "select" and str(s["observation"]).startswith("refused:")
                        and "are left" in str(s["observation"]))
        recall = strict_evidence_recall(rec.text, task.evidence_texts) if task.evidence_texts else None
        return Episode(task, rec.refs, rec.tokens, end.get("status", "crashed"), len(steps), errors, overflows,
                       reward(rec.refs, task.evidence, format_errors=errors, overflows=overflows,
                              shaping=self.shaping),
                       recall, rec.trace, [s["action"] for s in steps])

    def close(self) -> None:
        for r in self._retrievers.values():
            r.close()
        self._retrievers.clear()

    def __enter__(self) -> RetrievalEnvironment:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
