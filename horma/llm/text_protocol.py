"""The text protocol: tool use for models served without tool calling.

The model ends each reply with exactly one action: a fenced ```bash block, or
one line ``NAME ARG ...`` for any other tool (``select notes/a.md 3 9``,
``done``), arguments positional in the order of the tool's JSON schema, the
last string argument taking the rest of the line. Anything else (no action,
two actions, a bad argument) is a format error the loop reports back, the
same as a malformed native tool call, so both protocols share one loop.
"""

from __future__ import annotations

import re
import shlex

from horma.llm import ToolCall, ToolSpec
from horma.prompts import render_prompt

_FENCE = re.compile(r"^```[ \t]*([\w+-]*)[ \t]*\n(.*?)^```[ \t]*$", re.DOTALL | re.MULTILINE)
_SHELL_LANGS = {"", "bash", "sh", "shell", "console"}
NO_ACTION = "no action found"  # how a reply without any action (prose, or nothing) starts its error


def _params(tool: ToolSpec) -> list[tuple[str, dict]]:
    return list((tool.parameters.get("properties") or {}).items())


def usage_line(tool: ToolSpec) -> str:
    """``select PATH [START] [END]``: how a non-bash tool is written on one line."""
    required = set(tool.parameters.get("required") or [])
    args = [name.upper() if name in required else f"[{name.upper()}]" for name, _ in _params(tool)]
    return " ".join([tool.name, *args])


def instructions(tools: list[ToolSpec]) -> str:
    """The protocol's instructions, appended to the system prompt."""
    return render_prompt(
        "text_protocol",
        has_bash=any(t.name == "bash" for t in tools),
        tools=[
            {"name": t.name, "description": t.description, "usage": usage_line(t)}
            for t in tools
            if t.name != "bash"
        ],
    )


def _error(call_id: str, message: str, text: str) -> ToolCall:
    return ToolCall(call_id, "", {}, error=message, raw_arguments=text)


def _line_call(call_id: str, line: str, tool: ToolSpec) -> ToolCall:
    params = _params(tool)
    rest = line[len(tool.name) :].strip()
    last_is_text = bool(params) and params[-1][1].get("type", "string") == "string"
    try:
        parts = shlex.split(rest)  # quotes group a path with spaces
    except ValueError:
        parts = rest.split()
    if last_is_text and len(parts) > len(params):
        parts = rest.split(None, len(params) - 1)
    if len(parts) > len(params):
        return _error(call_id, f"{tool.name}: too many arguments; usage: {usage_line(tool)}", line)
    args: dict = {}
    for (name, schema), value in zip(params, parts, strict=False):
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        kind = schema.get("type")
        try:
            args[name] = int(value) if kind == "integer" else float(value) if kind == "number" else value
        except ValueError:
            return _error(call_id, f"{tool.name}: {name} must be of type {kind}, got {value!r}", line)
    missing = [n for n in tool.parameters.get("required") or [] if n not in args]
    if missing:
        return _error(call_id, f"{tool.name}: missing {', '.join(missing)}; usage: {usage_line(tool)}", line)
    return ToolCall(call_id, tool.name, args, raw_arguments=line)


def parse_action(text: str, tools: list[ToolSpec], call_id: str) -> ToolCall:
    """The one action in a reply, or a ToolCall with ``error`` saying what is wrong."""
    by_name = {t.name: t for t in tools if t.name != "bash"}
    actions: list[ToolCall] = []
    outside = _FENCE.sub("", text)
    for match in _FENCE.finditer(text):
        lang, body = match.group(1).lower(), match.group(2).strip()
        if lang not in _SHELL_LANGS:
            continue
        first = body.split(None, 1)[0] if body else ""
        if "\n" not in body and first in by_name:  # a terminal action put in a fence
            actions.append(_line_call(call_id, body, by_name[first]))
        elif body:
            actions.append(ToolCall(call_id, "bash", {"command": body}, raw_arguments=body))
    for raw in outside.splitlines():
        line = raw.strip().strip("`").strip()
        first = line.split(None, 1)[0] if line else ""
        if first in by_name:
            actions.append(_line_call(call_id, line, by_name[first]))
    if len(actions) == 1:
        return actions[0]
    names = " or ".join([*(["a ```bash block"] if any(t.name == "bash" for t in tools) else []),
                         *(f"one `{usage_line(t)}` line" for t in by_name.values())])
    if not actions:
        return _error(call_id, f"{NO_ACTION}: end your reply with exactly one action ({names})", text)
    return _error(call_id, f"{len(actions)} actions found: give exactly one action per reply ({names})", text)


def to_text_messages(messages: list[dict]) -> list[dict]:
    """Neutral messages as plain user/assistant turns (tool results become user turns)."""
    out: list[dict] = []
    for m in messages:
        if m["role"] == "tool":
            body = f"[{m.get('name') or 'tool'} result]\n{m['content']}"
            if out and out[-1]["role"] == "user":
                out[-1]["content"] += "\n\n" + body
            else:
                out.append({"role": "user", "content": body})
        elif m["role"] == "user" and out and out[-1]["role"] == "user":
            out[-1]["content"] += "\n\n" + m["content"]
        else:
            out.append({"role": m["role"], "content": m.get("content") or ""})
    return out


def chat(system: str, messages: list[dict], tools: list[ToolSpec]) -> list[dict]:
    """The whole conversation as the plain chat a model without tool calling reads, instructions included."""
    return [{"role": "system", "content": system + "\n" + instructions(tools)}, *to_text_messages(messages)]


def format_action(call: ToolCall, tools: list[ToolSpec]) -> str:
    """A tool call written as :func:`parse_action` reads it back (training transcripts need the text)."""
    if call.name == "bash":
        return f"```bash\n{call.arguments['command']}\n```"
    tool = next((t for t in tools if t.name == call.name), None)
    if tool is None:
        raise ValueError(f"unknown tool {call.name!r}")
    values = [call.arguments.get(name) for name, _ in _params(tool)]
    while values and values[-1] is None:
        values.pop()
    if None in values:
        raise ValueError(f"{call.name}: an argument before the last one is missing; the line form is positional")
    return " ".join([call.name, *(shlex.quote(str(v)) for v in values)])
