"""The one tool-using agent loop, shared by the manager and the retriever.

The model sees a system prompt and a task, and acts with tools: ``bash`` (run
in the sandbox, in the view the caller opened it with) plus the caller's own
tools, of which the terminal ones (``select``/``done``, ``done``) return
``finished=True``. Every action is one trajectory step. Bad calls (unknown
tool, malformed or missing arguments, a reply with no call) go back to the
model as error observations; enough of them in a row end the run, as does
the same action giving the same result again and again (``stalled``), and
the step, input-token and wall-time limits, with a status saying which. A model
error (the server unreachable after retries, or the conversation overflowing
the model's context) ends the run too. Whatever the model emits, the run
ends with a status and its ``faults`` counted by kind (:data:`FAULTS`), in
the result and in the trajectory's end record.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from horma.agents.trajectory import Trajectory
from horma.llm import LLM, ContextOverflow, LLMError, ToolCall, ToolSpec
from horma.llm.accounting import Cost, Meter
from horma.llm.text_protocol import NO_ACTION
from horma.sandbox import Sandbox, require_isolation
from horma.workspace import WorkspaceError

if TYPE_CHECKING:
    from horma.config import Settings

BASH = ToolSpec(
    name="bash",
    description="Run one bash command in the workspace; the working directory persists between "
    "calls. Returns the output and the exit code.",
    parameters={
        "type": "object",
        "properties": {"command": {"type": "string", "description": "The command line to run."}},
        "required": ["command"],
    },
)

_TYPES: dict[str, type | tuple[type, ...]] = {
    "string": str, "integer": int, "number": (int, float), "boolean": bool, "array": list, "object": dict,
}


# what went wrong, by kind: a call the tools cannot run, a reply in prose (no call), an empty reply,
# a model error (server fault after retries), the conversation overflowing the model's context
FAULTS = ("malformed", "prose", "empty", "llm_error", "context_overflow")


@dataclass
class ToolOutcome:
    observation: str
    finished: bool = False
    exit_code: int | None = None  # set by bash; recorded in the trajectory


@dataclass
class Tool:
    spec: ToolSpec
    handler: Callable[[dict], ToolOutcome]


@dataclass
class RunLimits:
    max_steps: int = 30
    max_input_tokens: int | None = None
    max_seconds: float | None = None
    max_format_errors: int = 3
    # the same action with the same result this many times in a row: the model is stuck, and every
    # further step only spends tokens (small models loop on a select that is already in the context)
    max_repeats: int = 3

    @classmethod
    def from_config(cls, cfg: Settings) -> RunLimits:
        """The ``agent.*`` settings of a :class:`horma.config.Settings`."""
        return cls(**{name: cfg.get(f"agent.{name}") for name in cls.__dataclass_fields__})


@dataclass
class AgentResult:
    status: str  # done | max_steps | format_errors | stalled | token_limit | time_limit | llm_error | context_overflow
    steps: int
    cost: Cost  # the run's tokens, LLM calls, sandbox commands, wall time and dollars
    trajectory: Path
    final: dict | None = None
    error: str | None = None
    faults: dict[str, int] = field(default_factory=lambda: dict.fromkeys(FAULTS, 0))


def argument_error(spec: ToolSpec, args: dict) -> str | None:
    """What is wrong with ``args`` for ``spec`` (required, known names, JSON types), or None."""
    props = spec.parameters.get("properties") or {}
    missing = [n for n in spec.parameters.get("required") or [] if n not in args]
    if missing:
        return f"{spec.name}: missing required argument(s) {', '.join(missing)}"
    unknown = [n for n in args if n not in props]
    if unknown:
        return f"{spec.name}: unknown argument(s) {', '.join(unknown)}; known: {', '.join(props) or 'none'}"
    for name, value in args.items():
        want = _TYPES.get(props[name].get("type", ""))
        if want and value is not None and (not isinstance(value, want) or (want is int and isinstance(value, bool))):
            return f"{spec.name}: argument {name} must be of type {props[name]['type']}, got {value!r}"
    return None


def bash_observation(output: str, exit_code: int) -> str:
    """What the model reads after a command (training data renders a navigator's commands the same way)."""
    out = output.rstrip("\n") if output.strip() else "(no output)"
    return f"{out}\n[exit code {exit_code}]"


def _bash_tool(sandbox: Sandbox) -> Tool:
    def run(args: dict) -> ToolOutcome:
        result = sandbox.exec(args["command"])
        return ToolOutcome(bash_observation(result.output, result.exit_code), exit_code=result.exit_code)

    return Tool(BASH, run)


def _format_error(call: ToolCall | None, table: dict[str, Tool]) -> str | None:
    if call is None:
        return "no tool call in your reply; act by calling exactly one tool"
    if call.error:
        return call.error
    if call.name not in table:
        return f"unknown tool {call.name!r}; tools: {', '.join(table)}"
    return argument_error(table[call.name].spec, call.arguments)


def _dispatch(call: ToolCall | None, table: dict[str, Tool], text: str) -> tuple[ToolOutcome, str | None]:
    """Run one call: its outcome, and the fault kind when it was a format error."""
    problem = _format_error(call, table)
    if problem or call is None:
        # no call at all (native tools) or the text protocol finding no action: prose, or nothing
        no_action = call is None or (not call.name and (call.error or "").startswith(NO_ACTION))
        kind = "malformed" if not no_action else "prose" if text.strip() else "empty"
        if kind == "empty":
            problem = "your reply was empty; act by calling exactly one tool"
        return ToolOutcome(f"format error: {problem}"), kind
    try:
        return table[call.name].handler(call.arguments), None
    except (WorkspaceError, ValueError) as exc:  # the tool refused these arguments
        return ToolOutcome(f"error: {exc}"), None


def _limit_hit(limits: RunLimits, steps: int, input_tokens: int, started: float) -> str | None:
    if steps >= limits.max_steps:
        return "max_steps"
    if limits.max_input_tokens is not None and input_tokens >= limits.max_input_tokens:
        return "token_limit"
    if limits.max_seconds is not None and time.monotonic() - started >= limits.max_seconds:
        return "time_limit"
    return None


def run_agent(
    llm: LLM,
    sandbox: Sandbox,
    *,
    role: str,
    system: str,
    task: str,
    tools: list[Tool],
    limits: RunLimits,
    trajectory_dir: Path,
    allow_unsafe_local: bool = False,
    meta: dict | None = None,
) -> AgentResult:
    """Let ``llm`` act in ``sandbox`` until a terminal tool finishes the run or a limit stops it.

    ``meta`` goes into the trajectory's start record (the retriever's query and budget, for training data).
    """
    require_isolation(sandbox, allow_unsafe_local)
    meter = Meter(llm, lambda: sandbox.commands)
    table = {"bash": _bash_tool(sandbox), **{t.spec.name: t for t in tools}}
    specs = [t.spec for t in table.values()]
    traj = Trajectory(trajectory_dir, role, task, llm=llm.spec, sandbox=sandbox.backend,
                      view=getattr(sandbox.view, "value", str(sandbox.view)), limits=asdict(limits), system=system,
                      **(meta or {}))
    messages: list[dict] = [{"role": "user", "content": task}]
    steps = calls = in_tok = out_tok = format_errors = repeats = 0
    last: tuple | None = None
    faults = dict.fromkeys(FAULTS, 0)
    status: str | None = None
    final: dict | None = None
    error: str | None = None
    started = time.monotonic()
    try:
        while status is None:
            status = _limit_hit(limits, steps, in_tok, started)
            if status:
                break
            t0 = time.monotonic()
            try:
                reply = llm.complete(system, messages, specs)
            except LLMError as exc:
                status = "context_overflow" if isinstance(exc, ContextOverflow) else "llm_error"
                faults[status] += 1
                error = str(exc)
                break
            llm_ms = (time.monotonic() - t0) * 1000
            calls += 1
            in_tok += reply.usage.input_tokens
            out_tok += reply.usage.output_tokens
            messages.append(reply.as_message())
            for i, call in enumerate(reply.tool_calls or [None]):
                t1 = time.monotonic()
                outcome, fault = _dispatch(call, table, reply.text)
                bad = fault is not None
                observation = outcome.observation
                format_errors = format_errors + 1 if bad else 0
                if fault:
                    faults[fault] += 1
                steps += 1
                first = i == 0
                action = call.name if call and call.name in table and not bad else "invalid"
                traj.step(action, call.arguments if call else {}, observation,
                          exit_code=outcome.exit_code,
                          message=reply.text if first else "", tool_call=call.as_dict() if call else None,
                          input_tokens=reply.usage.input_tokens if first else 0,
                          output_tokens=reply.usage.output_tokens if first else 0,
                          llm_ms=round(llm_ms, 3) if first else 0.0, fault=fault,
                          elapsed_ms=round((time.monotonic() - t1) * 1000, 3))
                if call is None:
                    messages.append({"role": "user", "content": observation})
                else:
                    messages.append({"role": "tool", "tool_call_id": call.id, "name": call.name,
                                     "content": observation, "is_error": bad})
                if outcome.finished and call is not None:
                    status, final = "done", {"action": call.name, "args": call.arguments, "observation": observation}
                    break
                if format_errors >= limits.max_format_errors:
                    status = "format_errors"
                    error = f"{format_errors} consecutive format errors; last: {observation}"
                    break
                # a missing call is a format error (bad), so call is set whenever the step is compared
                seen = None if bad or call is None else (action, repr(sorted(call.arguments.items())), observation)
                repeats = repeats + 1 if seen is not None and seen == last else 1
                last = seen
                if seen is not None and repeats >= limits.max_repeats:
                    status = "stalled"
                    error = f"the same {action} action gave the same result {repeats} times in a row"
                    break
                if steps >= limits.max_steps:
                    break
    finally:
        elapsed_ms = (time.monotonic() - started) * 1000
        traj.end(status or "crashed", llm_calls=calls, input_tokens=in_tok, output_tokens=out_tok,
                 elapsed_ms=round(elapsed_ms, 3), final=final, error=error, faults=faults)
    return AgentResult(status, steps, meter.cost(), traj.path, final, error, faults)

