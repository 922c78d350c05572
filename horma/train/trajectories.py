"""Retriever trajectories (any policy, LLM ones included) as extra training episodes for ``horma train export``.

A trajectory file is read strictly: a start record naming the role, the
query and the budget, then step records. What the run selected is known from
its ``select`` observations (``selected PATH:LO-HI (N tokens); M tokens
left``), so the export replays exactly those lines into a fresh context over
its own workspace for the question: the context's provenance then gives the
Jaccard and the strict recall, the same code as for the navigator's episodes.
A replay must give back the very observations the run recorded; otherwise
the trajectory was made over another workspace and is reported, not used.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from horma.agents.trajectory import read_trajectory
from horma.context import Context
from horma.errors import BadArgument
from horma.workspace import Workspace, WorkspaceError

SELECTED = re.compile(r"^selected (?P<path>.+):(?P<lo>\d+)-(?P<hi>\d+) \(\d+ tokens\); \d+ tokens left$")


class TrajectoryError(BadArgument, ValueError):
    """A trajectory file that cannot be read as a retriever episode."""


@dataclass(frozen=True)
class RecordedRun:
    """One retriever run read back from its trajectory file."""

    file: str
    policy: str
    query: str
    budget: int
    steps: list[dict]


@dataclass(frozen=True)
class Skipped:
    file: str
    reason: str  # not_retriever | unparseable | unmatched | ambiguous | replay_failed
    detail: str

    def as_dict(self) -> dict:
        return {"file": self.file, "reason": self.reason, "detail": self.detail}


def normalize(question: str) -> str:
    """The form questions and queries are matched in: whitespace runs folded, ends stripped."""
    return " ".join(question.split())


def trajectory_files(paths: list[Path]) -> list[Path]:
    """The files named, and every ``*.jsonl`` under the folders named; a missing path is an error."""
    missing = [str(p) for p in paths if not p.exists()]
    if missing:
        raise TrajectoryError(f"--trajectories: no such file or folder: {', '.join(missing)}")
    out: list[Path] = []
    for p in paths:
        out.extend(sorted(p.rglob("*.jsonl")) if p.is_dir() else [p])
    return list(dict.fromkeys(out))


def read_recorded_run(path: Path) -> RecordedRun | Skipped:
    """The retriever episode in ``path``, or why it is not one (read by the one trajectory reader)."""
    try:
        records = read_trajectory(path)
        if not records or records[0].get("type") != "start":
            raise TrajectoryError("no start record")
        start = records[0]
        if start.get("role") != "retriever":
            return Skipped(str(path), "not_retriever", f"role {start.get('role')!r}")
        query, budget = start.get("query", start.get("task")), start.get("budget")
        if not isinstance(query, str) or isinstance(budget, bool) or not isinstance(budget, int) or budget <= 0:
            raise TrajectoryError("the start record names no query and budget")
        steps = [r for r in records[1:] if isinstance(r, dict) and r.get("type") == "step"]
        for s in steps:
            if not isinstance(s.get("action"), str) or not isinstance(s.get("args"), dict) \
                    or not isinstance(s.get("observation"), str):
                raise TrajectoryError(f"step {s.get('step')}: needs action, args and observation")
        return RecordedRun(str(path), str(start.get("policy") or "llm"), query, budget, steps)
    except (OSError, UnicodeDecodeError, TrajectoryError, WorkspaceError) as exc:
        return Skipped(str(path), "unparseable", str(exc))


def replay(episode: RecordedRun, workspace: Workspace) -> Context:
    """The episode's selections made again over ``workspace``; raises TrajectoryError where they differ."""
    ctx = Context(episode.query, episode.budget, workspace)
    for s in episode.steps:
        m = SELECTED.match(s["observation"]) if s["action"] == "select" else None
        if m is None:
            continue
        got = ctx.select(m["path"], int(m["lo"]), int(m["hi"])).observation()
        if got != s["observation"]:
            raise TrajectoryError(f"step {s.get('step')}: recorded {s['observation']!r}, replayed {got!r}")
    return ctx
