"""Anthropic Messages API with native tool use (``tool_use`` / ``tool_result`` blocks).

The paper's backbone is Claude Sonnet 4.5, hence the default model. The key and
base URL come from the options, else ``ANTHROPIC_API_KEY`` / ``ANTHROPIC_BASE_URL``.
"""

from __future__ import annotations

import json
import os
import time
from typing import Any

import anthropic

from horma.llm import LLMError, Reply, ToolCall, ToolSpec, Usage
from horma.llm.accounting import Accounting, price_for
from horma.llm.retry import RetryPolicy, Transient, retry_after, with_retries


def classify(exc: Exception) -> Transient | LLMError | None:
    """Which SDK errors are worth a retry; the rest become one clear LLMError."""
    if isinstance(exc, anthropic.APITimeoutError):
        return Transient("request timed out")
    if isinstance(exc, anthropic.APIConnectionError):
        return Transient(f"cannot connect ({exc})")
    if isinstance(exc, anthropic.APIStatusError):
        code = exc.status_code
        if code == 429 or code >= 500:
            return Transient(f"HTTP {code} {_message(exc)}", retry_after(exc.response))
        return LLMError(f"anthropic: HTTP {code} {_message(exc)}")
    if isinstance(exc, anthropic.AnthropicError):
        return LLMError(f"anthropic: {exc}")
    return None


def _message(exc: Any) -> str:
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        err = body.get("error")
        if isinstance(err, dict) and err.get("message"):
            return str(err["message"])
    return str(getattr(exc, "message", "") or "")


def to_wire(messages: list[dict]) -> list[dict]:
    """Neutral messages -> Messages API turns; tool results join the following user turn."""
    out: list[dict] = []

    def user_blocks() -> list:
        if not out or out[-1]["role"] != "user":
            out.append({"role": "user", "content": []})
        return out[-1]["content"]

    for m in messages:
        if m["role"] == "assistant":
            blocks: list[dict] = []
            if m.get("content"):
                blocks.append({"type": "text", "text": m["content"]})
            for c in m.get("tool_calls") or []:
                blocks.append({"type": "tool_use", "id": c["id"], "name": c["name"] or "invalid",
                               "input": c.get("arguments") or {}})
            out.append({"role": "assistant", "content": blocks or [{"type": "text", "text": "(no reply)"}]})
        elif m["role"] == "tool":
            result = {"type": "tool_result", "tool_use_id": m["tool_call_id"], "content": m["content"] or "(no output)"}
            if m.get("is_error"):
                result["is_error"] = True
            user_blocks().append(result)
        else:
            user_blocks().append({"type": "text", "text": m["content"]})
    return out


def from_wire(message: Any) -> Reply:
    texts, calls = [], []
    for block in message.content:
        if block.type == "text":
            texts.append(block.text)
        elif block.type == "tool_use":
            args = block.input
            if isinstance(args, dict):
                calls.append(ToolCall(block.id, block.name, args))
            else:
                calls.append(ToolCall(block.id, block.name, {}, error="arguments are not a JSON object",
                                      raw_arguments=json.dumps(args)))
    usage = Usage(message.usage.input_tokens or 0, message.usage.output_tokens or 0)
    return Reply("\n".join(texts), calls, usage, raw=message)


class AnthropicLLM:
    def __init__(
        self,
        model: str,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        max_tokens: int = 4096,
        temperature: float | None = None,
        timeout: float = 120.0,
        max_retries: int = 4,
        retry_base_delay: float = 1.0,
        retry_max_delay: float = 30.0,
        price: tuple[float, float] | None = None,
        spec: str | None = None,
        **_ignored: Any,
    ):
        key = api_key or os.environ.get("ANTHROPIC_API_KEY")
        if not key:
            raise LLMError("anthropic: no API key: set ANTHROPIC_API_KEY or providers.anthropic.api_key in the config")
        self.model = model
        self.spec = spec or f"anthropic:{model}"
        self.max_tokens = max_tokens
        self.temperature = temperature
        self.policy = RetryPolicy(max_retries, retry_base_delay, retry_max_delay)
        self.stats = Accounting(price=price or price_for(model))
        self._client = anthropic.Anthropic(
            api_key=key,
            base_url=base_url or os.environ.get("ANTHROPIC_BASE_URL") or None,
            timeout=timeout,
            max_retries=0,
        )

    def complete(self, system: str, messages: list[dict], tools: list[ToolSpec] | None = None) -> Reply:
        params: dict[str, Any] = {"model": self.model, "max_tokens": self.max_tokens,
                                  "messages": to_wire(messages)}
        if system:
            params["system"] = system
        if self.temperature is not None:  # not a named SDK argument any more; the API still takes it
            params["extra_body"] = {"temperature": self.temperature}
        if tools:
            params["tools"] = [{"name": t.name, "description": t.description, "input_schema": t.parameters}
                               for t in tools]
        t0 = time.monotonic()
        message = with_retries(lambda: self._client.messages.create(**params), classify, self.policy,
                               f"anthropic {self.model}", on_retry=self._count_retry)
        reply = from_wire(message)
        self.stats.record(reply.usage.input_tokens, reply.usage.output_tokens, time.monotonic() - t0)
        return reply

    def _count_retry(self) -> None:
        self.stats.retries += 1
