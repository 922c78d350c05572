"""Training data from LoCoMo: the navigator's episodes as chat transcripts (SFT) and retrieval tasks (GRPO).

Each question's conversation becomes a workspace through the ordinary
manager path (archive + heuristic notes + index), under ``DIR/workspaces``.
The zero-LLM navigator then answers it in the read view, and its trajectory
is rendered as the conversation the LLM retriever would have had: the same
system prompt and task (``retriever_prompts``), the same tools (``bash`` and
the retriever's ``select``/``done``), the same observations (``bash`` output
as the loop formats it, ``select`` as the context answers). Records are in
the messages + tools format chat templates and TRL's SFTTrainer take
(OpenAI-style ``tool_calls``), each with its Jaccard and strict recall.

The navigator runs with short hsearch pages (``page_chars``) so a transcript
fits a small model's context: more pages, each short, same ranking.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from horma.agents.loop import BASH, bash_observation
from horma.agents.manager import Manager
from horma.agents.navigator import navigate
from horma.agents.retriever import retriever_prompts, retriever_tools
from horma.agents.trajectory import Trajectory, read_trajectory
from horma.bench.locomo import QA, Conversation, load_locomo, questions, select_split
from horma.bench.metrics import strict_evidence_recall
from horma.context import Context
from horma.llm import ToolSpec
from horma.sandbox import View, open_sandbox
from horma.train.environment import RetrievalTask
from horma.train.reward import evidence_jaccard
from horma.train.trajectories import (
    RecordedRun,
    Skipped,
    TrajectoryError,
    normalize,
    read_recorded_run,
    replay,
    trajectory_files,
)
from horma.workspace import Workspace

SFT_FILE, GRPO_FILE, WORKSPACES = "sft.jsonl", "grpo.jsonl", "workspaces"
DEFAULT_PAGE_CHARS = 1500


def tool_schemas(specs: list[ToolSpec]) -> list[dict]:
    """Tool specs in the function-calling schema chat templates and trainers read."""
    return [{"type": "function", "function": {"name": t.name, "description": t.description,
                                              "parameters": t.parameters}} for t in specs]


def build_workspace(conv: Conversation, root: Path, backend: str) -> Workspace:
    """One conversation archived and organized by the heuristic manager (the benchmark harness's path)."""
    target = root / conv.sample_id
    if target.exists():
        shutil.rmtree(target)
    ws = Workspace.init(target)
    with Manager(ws, "heuristic", backend=backend) as manager:
        for s in conv.sessions:
            manager.record(list(s.units), s.slug(conv.sample_id), s.time)
    return ws


def navigator_steps(steps: list[dict], done_observation: str) -> list[dict]:
    """A navigator trajectory's steps with the observations the LLM retriever would have read."""
    seen = []
    for step in steps:
        if step["action"] == "bash":
            step = {**step, "observation": bash_observation(step["observation"], step.get("exit_code") or 0)}
        elif step["action"] == "done":
            step = {**step, "observation": done_observation}
        seen.append(step)
    return seen


def transcript(query: str, budget: int, steps: list[dict]) -> dict:
    """A retriever trajectory's steps (observations as the model read them) as a conversation (messages + tools).

    A step the loop recorded as ``invalid`` (a reply it could not run) is the
    model's text and the error it was told, as the loop sent it.
    """
    system, task = retriever_prompts(query, budget)
    messages: list[dict] = [{"role": "system", "content": system}, {"role": "user", "content": task}]
    for i, step in enumerate(steps):
        call_id = f"call_{i}"
        name, args = step["action"], step["args"]
        if name == "invalid":
            messages.append({"role": "assistant", "content": step.get("message") or ""})
            messages.append({"role": "user", "content": step["observation"]})
            continue
        messages.append({"role": "assistant", "content": "", "tool_calls": [
            {"id": call_id, "type": "function", "function": {"name": name, "arguments": args}}]})
        messages.append({"role": "tool", "tool_call_id": call_id, "name": name, "content": step["observation"]})
    return {"messages": messages}


def scores(ctx: Context, conv: Conversation, qa: QA) -> tuple[float, float | None]:
    """Jaccard and strict recall of a context against the question's evidence, from its provenance."""
    texts = [conv.unit(e).text for e in qa.evidence]
    return evidence_jaccard(ctx.refs, qa.evidence), strict_evidence_recall(ctx.text, texts)


@dataclass
class ExportSummary:
    out: str
    questions: int
    episodes: int
    tasks: int
    no_evidence: int
    mean_jaccard: float | None
    mean_recall: float | None
    trajectories: int = 0  # episodes from --trajectories
    trajectory_mean_jaccard: float | None = None
    skipped: dict[str, int] = field(default_factory=dict)  # trajectory files not used, by reason
    skipped_files: list[dict] = field(default_factory=list)

    def as_dict(self) -> dict:
        return dict(self.__dict__)


def _plan(convs: list[Conversation], limit: int | None, categories: set[int]) -> list[tuple[Conversation, list[QA]]]:
    plan, left = [], limit
    for conv in convs:
        qs = questions(conv, categories)
        if left is not None:
            qs, left = qs[:left], left - min(left, len(qs))
        if qs:
            plan.append((conv, qs))
        if left == 0:
            break
    return plan


def _episodes_by_question(paths: list[Path], plan: list[tuple[Conversation, list[QA]]]
                          ) -> tuple[dict[str, list[RecordedRun]], list[Skipped]]:
    """Every trajectory read now (the export rebuilds workspaces a path may point into), grouped by question."""
    asked: dict[str, int] = {}
    for _, qs in plan:
        for qa in qs:
            asked[normalize(qa.question)] = asked.get(normalize(qa.question), 0) + 1
    found: dict[str, list[RecordedRun]] = {}
    skipped: list[Skipped] = []
    for path in trajectory_files(paths):
        ep = read_recorded_run(path)
        if isinstance(ep, Skipped):
            skipped.append(ep)
        elif normalize(ep.query) not in asked:
            skipped.append(Skipped(ep.file, "unmatched", f"no exported question is {normalize(ep.query)!r}"))
        elif asked[normalize(ep.query)] > 1:
            skipped.append(Skipped(ep.file, "ambiguous", f"{asked[normalize(ep.query)]} exported questions read "
                                                         f"{normalize(ep.query)!r}"))
        else:
            found.setdefault(normalize(ep.query), []).append(ep)
    return found, skipped


def export(data: str | Path, out: str | Path, *, split: str = "dev", limit: int | None = None,
           budget: int = 1000, categories: frozenset[int] = frozenset({2, 4, 5}), backend: str = "auto",
           page_chars: int = DEFAULT_PAGE_CHARS, trajectories: Sequence[str | Path] = (),
           on_progress: Callable[[str, int, int], None] | None = None) -> ExportSummary:
    """Write ``out/sft.jsonl``, ``out/grpo.jsonl`` and the workspaces they name; questions in file order.

    Questions without evidence get an SFT episode but no GRPO task (nothing to reward).
    Each retriever trajectory in ``trajectories`` (files, or folders searched for
    ``*.jsonl``) whose query is an exported question becomes one more SFT
    episode after the navigator's; the others are counted by reason in the summary.
    """
    plan = _plan(select_split(load_locomo(data), split), limit, set(categories))
    found, skipped = _episodes_by_question([Path(p) for p in trajectories], plan)  # before anything is written
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    total = sum(len(qs) for _, qs in plan)
    done = episodes = tasks = no_evidence = 0
    jac: list[float] = []
    rec: list[float] = []
    traj_jac: list[float] = []
    tools = tool_schemas([BASH, *(t.spec for t in retriever_tools(None, None))])  # type: ignore[arg-type]
    with (out / SFT_FILE).open("w", encoding="utf-8") as sft, (out / GRPO_FILE).open("w", encoding="utf-8") as grpo:
        for conv, qs in plan:
            if on_progress:
                on_progress(f"{conv.sample_id}: ingest", done, total)
            ws = build_workspace(conv, out / WORKSPACES, backend)
            with open_sandbox(ws.root, backend, View.READ) as box:
                for qa in qs:
                    qid = f"{conv.sample_id}/q{qa.index}"
                    ctx = Context(qa.question, budget, ws)
                    traj = Trajectory(ws.trajectories, "retriever", qa.question, policy="heuristic",
                                      budget=budget, backend=box.backend)
                    navigate(box, ctx, traj, page_chars=page_chars)
                    traj.end("done", tokens=ctx.tokens, refs=ctx.refs)
                    steps = [r for r in read_trajectory(traj.path) if r.get("type") == "step"]
                    done_obs = retriever_tools(box, ctx)[1].handler({}).observation
                    j, r = scores(ctx, conv, qa)
                    record = {**transcript(qa.question, budget, navigator_steps(steps, done_obs)), "tools": tools,
                              "id": qid, "source": "navigator", "jaccard": j, "recall": r}
                    sft.write(json.dumps(record, ensure_ascii=False) + "\n")
                    episodes += 1
                    for ep in found.get(normalize(qa.question), []):
                        try:
                            replayed = replay(ep, ws)
                        except TrajectoryError as exc:
                            skipped.append(Skipped(ep.file, "replay_failed", str(exc)))
                            continue
                        tj, tr = scores(replayed, conv, qa)
                        record = {**transcript(ep.query, ep.budget, ep.steps), "tools": tools, "id": qid,
                                  "source": f"{ep.policy}:{ep.file}", "jaccard": tj, "recall": tr}
                        sft.write(json.dumps(record, ensure_ascii=False) + "\n")
                        traj_jac.append(tj)
                    if qa.evidence:
                        jac.append(j)
                        rec.append(r if r is not None else 0.0)
                        texts = tuple(conv.unit(e).text for e in qa.evidence)
                        task = RetrievalTask(qid, qa.question, str(ws.root.resolve()), qa.evidence, texts, budget)
                        grpo.write(json.dumps(task.as_dict(), ensure_ascii=False) + "\n")
                        tasks += 1
                    else:
                        no_evidence += 1
                    done += 1
                    if on_progress:
                        on_progress(f"{conv.sample_id}: navigate", done, total)
    mean = (lambda xs: round(sum(xs) / len(xs), 4) if xs else None)
    reasons: dict[str, int] = {}
    for sk in skipped:
        reasons[sk.reason] = reasons.get(sk.reason, 0) + 1
    return ExportSummary(str(out), total, episodes, tasks, no_evidence, mean(jac), mean(rec),
                         len(traj_jac), mean(traj_jac), reasons, [sk.as_dict() for sk in skipped])
