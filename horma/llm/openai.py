"""OpenAI Chat Completions, and any server that speaks it (vLLM, llama.cpp, Ollama, LM Studio).

``tool_protocol`` picks how tools reach the model:

- ``native``: ``tools`` / ``tool_calls`` (function calling);
- ``text``: the text protocol (one fenced bash block or one action line per
  reply, see text_protocol.py) for servers without tool calling;
- ``auto`` (default): native, switching to text for good the first time the
  server rejects the ``tools`` field.

The key comes from the options, else ``OPENAI_API_KEY``; a server at a
custom base URL may need none, so a placeholder is sent. Where a server
omits ``usage``, token counts fall back to the project's own token count.
"""

from __future__ import annotations

import json
import os
import time
from typing import Any

import openai

from horma.core.text import count_tokens
from horma.llm import ContextOverflow, LLMError, Reply, ToolCall, ToolSpec, Usage, text_protocol
from horma.llm.accounting import Accounting, price_for
from horma.llm.retry import RetryPolicy, Transient, retry_after, with_retries

OFFICIAL_HOST = "api.openai.com"
PROTOCOLS = ("auto", "native", "text")


class _ToolsRejected(Exception):
    """The server refused the ``tools`` field: it has no tool calling."""


def _message(exc: Any, limit: int = 300) -> str:
    """The server's error message on one line, cut at ``limit`` (some servers send whole validation dumps)."""
    body = getattr(exc, "body", None)
    text = str(getattr(exc, "message", "") or "")
    if isinstance(body, dict):
        err = body.get("error", body)
        if isinstance(err, dict) and err.get("message"):
            text = str(err["message"])
        elif isinstance(body.get("message"), str):
            text = body["message"]
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _context_overflow(exc: Exception) -> bool:
    """A 400 saying the prompt does not fit the model's context (OpenAI, vLLM and llama.cpp word it so)."""
    body = getattr(exc, "body", None)
    err = body.get("error", body) if isinstance(body, dict) else None
    if isinstance(err, dict) and err.get("code") == "context_length_exceeded":
        return True
    text = _message(exc, 10_000).lower()
    return "context length" in text or "context window" in text or "too many tokens" in text


def classify(exc: Exception) -> Transient | LLMError | None:
    """Which SDK errors are worth a retry; the rest become one clear LLMError."""
    if isinstance(exc, openai.APITimeoutError):
        return Transient("request timed out")
    if isinstance(exc, openai.APIConnectionError):
        return Transient(f"cannot connect ({exc})")
    if isinstance(exc, openai.APIStatusError):
        code = exc.status_code
        if code == 429 or code >= 500:
            return Transient(f"HTTP {code} {_message(exc)}", retry_after(exc.response))
        if code == 400 and _context_overflow(exc):
            return ContextOverflow(f"openai: HTTP {code} {_message(exc)}")
        return LLMError(f"openai: HTTP {code} {_message(exc)}")
    if isinstance(exc, openai.OpenAIError):
        return LLMError(f"openai: {exc}")
    return None


def _wire_call(c: dict) -> dict:
    args = c.get("raw_arguments")
    if args is None:
        args = json.dumps(c.get("arguments") or {})
    return {"id": c["id"], "type": "function", "function": {"name": c["name"] or "invalid", "arguments": args}}


def to_wire(system: str, messages: list[dict]) -> list[dict]:
    """Neutral messages -> chat messages with ``tool_calls`` and ``tool`` results."""
    out: list[dict] = [{"role": "system", "content": system}] if system else []
    for m in messages:
        if m["role"] == "assistant" and m.get("tool_calls"):
            # "" not null: llama-cpp-python's server rejects a null content (OpenAI takes either)
            out.append({"role": "assistant", "content": m.get("content") or "",
                        "tool_calls": [_wire_call(c) for c in m["tool_calls"]]})
        elif m["role"] == "tool":
            out.append({"role": "tool", "tool_call_id": m["tool_call_id"], "content": m["content"]})
        else:
            out.append({"role": m["role"], "content": m.get("content") or ""})
    return out


def _parse_call(call: Any) -> ToolCall:
    raw = call.function.arguments or "{}"
    try:
        args = json.loads(raw)
    except json.JSONDecodeError as exc:
        return ToolCall(call.id, call.function.name, {}, f"arguments are not valid JSON ({exc.msg})", raw)
    if not isinstance(args, dict):
        return ToolCall(call.id, call.function.name, {}, "arguments are not a JSON object", raw)
    return ToolCall(call.id, call.function.name, args, raw_arguments=raw)


class OpenAILLM:
    def __init__(
        self,
        model: str,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        max_tokens: int | None = None,
        temperature: float | None = None,
        timeout: float = 120.0,
        max_retries: int = 4,
        retry_base_delay: float = 1.0,
        retry_max_delay: float = 30.0,
        tool_protocol: str = "auto",
        price: tuple[float, float] | None = None,
        spec: str | None = None,
        **_ignored: Any,
    ):
        if tool_protocol not in PROTOCOLS:
            raise LLMError(f"openai: tool_protocol must be one of {', '.join(PROTOCOLS)}, got {tool_protocol!r}")
        base_url = base_url or os.environ.get("OPENAI_BASE_URL") or None
        official = base_url is None or OFFICIAL_HOST in base_url
        key = api_key or os.environ.get("OPENAI_API_KEY")
        if not key:
            if official:
                raise LLMError("openai: no API key: set OPENAI_API_KEY, or give a local server's base URL")
            key = "not-needed"  # local OpenAI-compatible servers usually ignore the key
        self.model = model
        self.spec = spec or (f"openai:{model}@{base_url}" if base_url else f"openai:{model}")
        self.max_tokens = max_tokens
        # OpenAI's newer models take only max_completion_tokens; local servers know max_tokens
        self.max_tokens_field = "max_completion_tokens" if official else "max_tokens"
        self.temperature = temperature
        self.tool_protocol = tool_protocol
        self.policy = RetryPolicy(max_retries, retry_base_delay, retry_max_delay)
        self.stats = Accounting(price=price or price_for(model))
        self._client = openai.OpenAI(api_key=key, base_url=base_url, timeout=timeout, max_retries=0)
        self._calls = 0

    def complete(self, system: str, messages: list[dict], tools: list[ToolSpec] | None = None) -> Reply:
        t0 = time.monotonic()
        if tools and self.tool_protocol != "text":
            try:
                reply = self._native(system, messages, tools)
            except _ToolsRejected:
                self.tool_protocol = "text"
                reply = self._text(system, messages, tools)
        elif tools:
            reply = self._text(system, messages, tools)
        else:
            reply = self._request(to_wire(system, messages), None)[0]
        self.stats.record(reply.usage.input_tokens, reply.usage.output_tokens, time.monotonic() - t0)
        return reply

    def _native(self, system: str, messages: list[dict], tools: list[ToolSpec]) -> Reply:
        wire_tools = [{"type": "function", "function": {"name": t.name, "description": t.description,
                                                        "parameters": t.parameters}} for t in tools]
        reply, choice = self._request(to_wire(system, messages), wire_tools)
        reply.tool_calls = [_parse_call(c) for c in choice.message.tool_calls or []]
        return reply

    def _text(self, system: str, messages: list[dict], tools: list[ToolSpec]) -> Reply:
        reply, _ = self._request(text_protocol.chat(system, messages, tools), None)
        reply.tool_calls = [text_protocol.parse_action(reply.text, tools, f"text-{self._calls}")]
        return reply

    def _request(self, wire: list[dict], tools: list[dict] | None) -> tuple[Reply, Any]:
        params: dict[str, Any] = {"model": self.model, "messages": wire}
        if tools:
            params["tools"] = tools
            # OpenAI's default when tools are given, but llama.cpp's function-calling format ignores tools without it
            params["tool_choice"] = "auto"
        if self.max_tokens is not None:
            params[self.max_tokens_field] = self.max_tokens
        if self.temperature is not None:
            params["temperature"] = self.temperature

        def classify_here(exc: Exception) -> Transient | LLMError | None:
            if (tools and self.tool_protocol == "auto" and isinstance(exc, openai.APIStatusError)
                    and 400 <= exc.status_code < 500 and exc.status_code != 429 and "tool" in _message(exc).lower()):
                return None
            return classify(exc)

        try:
            completion = with_retries(lambda: self._client.chat.completions.create(**params), classify_here,
                                      self.policy, f"openai {self.model}", on_retry=self._count_retry)
        except openai.APIStatusError as exc:
            raise _ToolsRejected(_message(exc)) from exc
        self._calls += 1
        if not completion.choices:
            raise LLMError(f"openai {self.model}: the server returned no choices")
        choice = completion.choices[0]
        text = choice.message.content or ""
        if completion.usage is not None:
            usage = Usage(completion.usage.prompt_tokens or 0, completion.usage.completion_tokens or 0)
        else:
            usage = Usage(count_tokens(json.dumps(wire)), count_tokens(text))
        return Reply(text, [], usage, raw=completion), choice

    def _count_retry(self) -> None:
        self.stats.retries += 1
