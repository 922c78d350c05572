"""A scripted LLM: replays a fixed list of replies, for tests and offline demos.

Token usage is the project's own count of what was sent and returned, so
accounting and token limits behave as with a real provider. Every call is
recorded in ``calls`` for tests to inspect.
"""

from __future__ import annotations

import copy
import time
from pathlib import Path
from typing import Any

import yaml

from horma.core.text import count_tokens
from horma.llm import LLMError, Reply, ToolCall, ToolSpec, Usage
from horma.llm.accounting import Accounting


def _as_reply(item: Reply | str | dict, n: int) -> Reply:
    if isinstance(item, Reply):
        return item
    if isinstance(item, str):
        return Reply(item)
    if isinstance(item, dict):
        calls = []
        for i, c in enumerate(item.get("tool_calls") or []):
            if not isinstance(c, dict) or not isinstance(c.get("name"), str):
                raise LLMError(f"scripted reply {n}: each tool call needs a 'name'")
            calls.append(ToolCall(str(c.get("id") or f"call_{n}_{i}"), c["name"], dict(c.get("arguments") or {})))
        return Reply(str(item.get("text") or ""), calls)
    raise LLMError(f"scripted reply {n}: expected a string or a mapping, got {type(item).__name__}")


class ScriptedLLM:
    """Returns ``replies`` in order; raises LLMError when they run out."""

    def __init__(self, replies: list[Reply | str | dict], spec: str = "scripted:inline"):
        self.spec = spec
        self.stats = Accounting()
        self.replies = [_as_reply(r, i + 1) for i, r in enumerate(replies)]
        self.calls: list[dict[str, Any]] = []

    @classmethod
    def from_file(cls, path: str, **_options: Any) -> ScriptedLLM:
        """Load replies from a YAML/JSON list: strings, or ``{text, tool_calls: [{name, arguments}]}``.

        ``_options`` (max_tokens, timeouts, a key) are what ``make_llm`` hands every provider; a script
        replays what it says, so they change nothing here.
        """
        p = Path(path)
        if not p.is_file():
            raise LLMError(f"scripted: no such script file {path!r}")
        try:
            data = yaml.safe_load(p.read_text(encoding="utf-8"))
        except yaml.YAMLError as exc:
            raise LLMError(f"scripted: {path}: not valid YAML ({exc})") from exc
        if not isinstance(data, list):
            raise LLMError(f"scripted: {path}: expected a list of replies")
        return cls(data, spec=f"scripted:{path}")

    def complete(self, system: str, messages: list[dict], tools: list[ToolSpec] | None = None) -> Reply:
        t0 = time.monotonic()
        self.calls.append({"system": system, "messages": copy.deepcopy(messages), "tools": list(tools or [])})
        n = len(self.calls)
        if n > len(self.replies):
            raise LLMError(f"scripted LLM ran out of replies after {len(self.replies)} calls")
        template = self.replies[n - 1]
        reply = Reply(template.text, [copy.deepcopy(c) for c in template.tool_calls], raw=template.raw)
        sent = system + "".join(str(m.get("content") or "") for m in messages)
        got = reply.text + "".join(str(c.arguments) for c in reply.tool_calls)
        reply.usage = Usage(count_tokens(sent), count_tokens(got))
        self.stats.record(reply.usage.input_tokens, reply.usage.output_tokens, time.monotonic() - t0)
        return reply
