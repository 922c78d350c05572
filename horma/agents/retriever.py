"""The retriever ``M_r``: navigate the read view and build a budgeted context.

Every policy (a :class:`~horma.agents.policies.RetrieverPolicy` from the
registry) acts through one action space: bash commands in the sandbox, then
``select`` (add verified lines to the context) and ``done``. The heuristic
navigator is scripted; the LLM one is the agent loop with the ``select`` and
``done`` tools. Either way the run is one trajectory under
``.horma/trajectories/``, and the result is a :class:`~horma.context.Recall`:
the context plus how it was obtained (steps, trace, how it stopped, its cost).
"""

from __future__ import annotations

import datetime as _dt
import os
import posixpath
import shlex
from typing import TYPE_CHECKING, Any

from horma.agents.policies import Retrieval, RetrieverPolicy, SandboxedAgent, policy_names
from horma.context import Context, Recall
from horma.llm.accounting import Meter
from horma.resources import SANDBOX_BIN
from horma.sandbox import Sandbox, View
from horma.workspace import WorkspaceError

if TYPE_CHECKING:
    from horma.agents.loop import Tool


def check_query(query: str, budget: int) -> str:
    """The query, stripped; refuses what no retriever can act on."""
    if not isinstance(query, str):
        raise WorkspaceError(f"the query must be a string, got {type(query).__name__}")
    if not query.strip():
        raise WorkspaceError("the query is empty (or only whitespace)")
    try:
        query.encode("utf-8")
    except UnicodeEncodeError as exc:  # e.g. bytes that were not UTF-8 on the command line
        raise WorkspaceError(f"the query is not valid text: a lone surrogate at character {exc.start}"
                             " (was it typed in another encoding than UTF-8?)") from None
    if "\x00" in query:  # no command line carries it: hsearch would get a cut or empty query
        raise WorkspaceError(f"the query holds a NUL character at {query.index(chr(0))}")
    if isinstance(budget, bool) or not isinstance(budget, int) or budget <= 0:
        raise WorkspaceError(f"the budget must be a positive number of tokens, got {budget!r}")
    return " ".join(query.split())


def check_asked(asked: str | None) -> str:
    """When a question is asked, as YYYY-MM-DD: today when not given; any ISO date or time is accepted."""
    if asked is None:
        return _dt.date.today().isoformat()
    try:
        return _dt.date.fromisoformat(str(asked).strip()[:10]).isoformat()
    except ValueError:
        raise WorkspaceError(f"asked: {asked!r} is not a date (YYYY-MM-DD, or an ISO time)") from None


def resolve_in_sandbox(sandbox: Sandbox, path: str) -> str:
    """A path the agent typed, relative to its shell's cwd, as a workspace-relative path.

    The shell sees the workspace at ``sandbox.home`` (a container path for
    docker, the host path for local); the Context wants workspace paths.
    """
    home = sandbox.home
    full = posixpath.normpath(posixpath.join(sandbox.cwd, path.strip()))
    if full == home:
        return "."
    if not full.startswith(home.rstrip("/") + "/"):
        raise WorkspaceError(f"{path}: path leaves the workspace")
    return full[len(home.rstrip("/")) + 1 :]


def sandbox_helpers() -> list[str]:
    """``name: what it does`` for each helper command baked into the sandbox, for the prompts.

    The description is the first docstring line of the helper itself, so a
    new helper shows up in the prompts without touching them.
    """
    if not SANDBOX_BIN.is_dir():
        return []
    out = []
    for p in sorted(SANDBOX_BIN.iterdir()):
        if not p.is_file() or "." in p.name or not os.access(p, os.X_OK):
            continue
        head = p.read_text(encoding="utf-8", errors="replace").splitlines()[:3]
        doc = next((line.strip().strip('"').strip() for line in head if line.startswith('"""')), "")
        out.append(doc if doc.startswith(f"{p.name}:") else p.name)
    return out


class Retriever(SandboxedAgent):
    """Answers ``recall(query, budget)`` with a :class:`Recall` built in the read view.

    The policy comes from :data:`horma.agents.policies.RETRIEVER_POLICIES`.
    One read-view session is kept open across recalls; every recall starts at
    the workspace root.
    """

    role = "retriever"
    impl: RetrieverPolicy
    view = View.READ

    def recall(self, query: str, budget: int = 1000, asked: str | None = None) -> Recall:
        query = check_query(query, budget)
        asked = check_asked(asked)
        box = self.sandbox  # opened once per Retriever; its start is not part of a recall's latency
        meter = Meter(self.llm, self.sandbox_commands)
        box.exec(f"cd {shlex.quote(box.home)}")
        ctx = Context(query=query, budget=budget, workspace=self.workspace, asked=asked)
        got = self.impl.retrieve(self, box, ctx)
        return ctx.result(steps=got.steps, trace=got.trace, stop=got.stop, faults=got.faults, cost=meter.cost())


class NavigatorPolicy:
    """The zero-LLM navigator (:func:`horma.agents.navigator.navigate`), recorded as a retriever trajectory."""

    name = "heuristic"
    llm_driven = False

    def retrieve(self, agent: SandboxedAgent, sandbox: Sandbox, context: Context) -> Retrieval:
        from horma.agents.navigator import navigate
        from horma.agents.trajectory import Trajectory

        ws = agent.workspace
        traj = Trajectory(ws.trajectories, "retriever", context.query, policy=self.name,
                          budget=context.budget, backend=sandbox.backend)
        try:
            navigate(sandbox, context, traj)
        except BaseException:
            traj.end("error")
            raise
        traj.end("done", tokens=context.tokens, refs=context.refs)
        return Retrieval(steps=traj.steps, trace=ws.rel(traj.path))


class LLMRetrieverPolicy:
    """An LLM agent in the read view (the shared tool loop) with the ``select`` and ``done`` tools."""

    name = "llm"
    llm_driven = True

    def retrieve(self, agent: SandboxedAgent, sandbox: Sandbox, context: Context) -> Retrieval:
        from horma.agents.loop import RunLimits, run_agent
        from horma.sandbox.views import index_dir
        from horma.vectors import nearest_lines

        ctx = context
        near = nearest_lines(str(index_dir(agent.workspace.root)), ctx.query, NEAR_IN_PROMPT)
        system, task = retriever_prompts(ctx.query, ctx.budget, near=near, asked=ctx.asked)
        result = run_agent(agent.llm, sandbox, role="retriever", system=system, task=task,
                           tools=retriever_tools(sandbox, ctx),
                           limits=agent.limits or RunLimits(), trajectory_dir=agent.workspace.trajectories,
                           allow_unsafe_local=agent.allow_unsafe_local,
                           meta={"policy": self.name, "query": ctx.query, "budget": ctx.budget})
        return Retrieval(result.steps, agent.workspace.rel(result.trajectory), result.status, result.faults)


NEAR_IN_PROMPT = 8  # lines nearest the query in meaning that the LLM retriever's task names


def retriever_prompts(query: str, budget: int, near: list[tuple[str, int, float]] | None = None,
                      asked: str | None = None) -> tuple[str, str]:
    """The LLM retriever's system prompt and task message (training data renders the same ones).

    ``near``: raw lines nearest the query by meaning, which the host embedded (the model never runs
    in the sandbox, so the agent's own ``hsearch`` ranks by words and dates); ``asked``: the question's
    date, for ``hsearch --today``.
    """
    from horma.prompts import render_prompt

    return (render_prompt("retriever", budget=budget, helpers=sandbox_helpers()),
            render_prompt("retriever_task", query=query, budget=budget, near=near or [], asked=asked))


def retriever_tools(box: Sandbox, ctx: Context) -> list[Tool]:
    """The terminal tools ``select`` and ``done`` acting on ``ctx`` (``bash`` comes from the loop).

    One definition for the LLM retriever, the training data's tool schema and
    the training environment, so a trained model meets the very tools it learned.
    """
    from horma.agents.loop import Tool, ToolOutcome
    from horma.llm import ToolSpec

    def select(args: dict[str, Any]) -> ToolOutcome:
        path = args.get("path")
        if not isinstance(path, str) or not path.strip():
            return ToolOutcome("refused: select needs a 'path'")
        try:
            rel = resolve_in_sandbox(box, path)
            start, end = _line(args.get("start")), _line(args.get("end"))
        except (WorkspaceError, ValueError) as exc:
            return ToolOutcome(f"refused: {exc}")
        return ToolOutcome(ctx.select(rel, start, end).observation())

    return [
        Tool(ToolSpec(name="select",
                      description="Add lines start..end (1-based, inclusive; omit both for the whole file) of a "
                                  "file to the context. Relative paths are resolved against your current directory.",
                      parameters={"type": "object",
                                  "properties": {"path": {"type": "string"},
                                                 "start": {"type": "integer", "minimum": 1},
                                                 "end": {"type": "integer", "minimum": 1}},
                                  "required": ["path"]}),
             select),
        Tool(ToolSpec(name="done", description="Finish: the context is what you selected.",
                      parameters={"type": "object", "properties": {}, "required": []}),
             lambda args: ToolOutcome(f"done: {ctx.tokens} tokens selected", finished=True)),
    ]


def _line(value: Any) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, str)) or not str(value).strip().isdigit():
        raise ValueError(f"line numbers must be positive integers, got {value!r}")
    return int(value)


POLICIES = policy_names("retriever")

__all__ = ["POLICIES", "LLMRetrieverPolicy", "NavigatorPolicy", "Recall", "Retriever", "check_asked", "check_query",
           "resolve_in_sandbox", "retriever_prompts", "retriever_tools", "sandbox_helpers"]
