"""The LLM manager policy: an LLM agent in the sandbox's write view writes the notes for a segment through bash.

The model works on what the record archived (the segment's path and the new
units' lines, in the ``manager_task`` prompt), with the skills as guidance;
``hindex`` then indexes what it wrote, inside the sandbox.
"""

from __future__ import annotations

import shlex

from horma.agents.policies import Organized, OrganizeTask, SandboxedAgent
from horma.workspace import WorkspaceError


class LLMManagerPolicy:
    """An LLM agent in the write view (the shared tool loop) writes the notes, then ``hindex`` indexes them.

    The model's commands run in the sandbox, so the index update runs there
    too: the model may have written, moved or deleted any note.
    """

    name = "llm"
    llm_driven = True
    needs_sandbox = True

    def organize(self, agent: SandboxedAgent, task: OrganizeTask) -> Organized:
        from horma.agents.loop import RunLimits, Tool, ToolOutcome, run_agent
        from horma.agents.retriever import sandbox_helpers
        from horma.llm import ToolSpec
        from horma.prompts import render_prompt
        from horma.skills import render_for_prompt

        segment, units = task.segment, task.units
        skills = render_for_prompt(task.domain, root=task.skills_dir)
        system = render_prompt("manager", skills=skills, helpers=sandbox_helpers())
        prompt = render_prompt("manager_task", segment=segment, time=units[0].time if units else "",
                               units=[u.line() for u in units])
        done = Tool(
            ToolSpec(name="done",
                     description="Finish: the new units are reflected in notes/ and INDEX.md.",
                     parameters={"type": "object",
                                 "properties": {"summary": {"type": "string", "description": "what changed, one line"}},
                                 "required": []}),
            lambda args: ToolOutcome(f"done: {args.get('summary', '')}".strip(), finished=True),
        )
        box = agent.sandbox
        result = run_agent(agent.llm, box, role="manager", system=system, task=prompt, tools=[done],
                           limits=agent.limits or RunLimits(), trajectory_dir=agent.workspace.trajectories,
                           allow_unsafe_local=agent.allow_unsafe_local)
        if result.status == "llm_error":  # the model was never reached: nothing done, the next record retries
            raise WorkspaceError(f"{segment}: the manager stopped without finishing ({result.status}: "
                                 f"{result.error}); re-run to organize it again")
        stopped = None
        if result.status != "done":
            # The model had its turn and used it up (a limit, its own format errors, a segment too big for its
            # context): a retry would do the same, so what it wrote is kept and indexed, and the stop is logged.
            stopped = {"status": result.status, "faults": result.faults,
                       "trajectory": agent.workspace.rel(result.trajectory)}
        indexed = box.exec(f"cd {shlex.quote(box.home)} && hindex")  # hsearch must see what the model wrote
        if indexed.exit_code != 0:
            raise WorkspaceError(f"{segment}: indexing the new notes failed: {indexed.output.strip()[-300:]}")
        return Organized(stopped)
