"""LLMs behind one small Protocol: one module per provider, chosen by a spec string.

Specs (the same string in CLI flags, config and the API)::

    anthropic:claude-sonnet-5-5            Anthropic Messages API, native tool use
    openai:gpt-4o-mini                     OpenAI Chat Completions, native tool calls
    openai:qwen2.5-7b@http://127.0.0.1:8000/v1
                                           any OpenAI-compatible server (vLLM, llama.cpp,
                                           Ollama, LM Studio); without tool calling the
                                           text protocol is used (see text_protocol.py)
    scripted:replies.yaml                  replays a file of replies (tests, demos)
    hf:PATH                                a local checkpoint (``horma train`` output, a .gguf file, or
                                           ``hf:smollm2``) run in-process by transformers (see hf.py)

Messages are provider-neutral dicts; each provider converts them to its wire
format::

    {"role": "user", "content": str}
    {"role": "assistant", "content": str, "tool_calls": [ToolCall.as_dict(), ...]}
    {"role": "tool", "tool_call_id": str, "name": str, "content": str, "is_error": bool (optional)}

Plain completions (answers, judging, feedback) pass one user message and no
tools and read ``Reply.text``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from horma.errors import HormaError
from horma.llm.accounting import Accounting
from horma.registry import Registry

__all__ = [
    "LLM",
    "Accounting",
    "ContextOverflow",
    "LLMError",
    "Reply",
    "ToolCall",
    "ToolSpec",
    "Usage",
    "make_llm",
    "parse_spec",
]

DEFAULT_ANTHROPIC_MODEL = "claude-sonnet-5-5"


class LLMError(HormaError):
    """A model could not be reached or used (bad spec, missing key, retries exhausted)."""

    code = "provider"
    exit_code = 6


class ContextOverflow(LLMError):
    """The conversation no longer fits the model's context window (the server said so)."""


# provider -> what builds its LLM from (model, **options); imported when a spec names it
PROVIDERS: Registry[Callable[..., LLM]] = Registry("provider", LLMError)
PROVIDERS.register("anthropic", "horma.llm.anthropic:AnthropicLLM")
PROVIDERS.register("openai", "horma.llm.openai:OpenAILLM")
PROVIDERS.register("scripted", "horma.llm.scripted:ScriptedLLM.from_file")  # the model is a script's path
PROVIDERS.register("hf", "horma.llm.hf:HFLLM")  # the model is a checkpoint's path


@dataclass
class ToolSpec:
    """A tool the model may call; ``parameters`` is a JSON schema object."""

    name: str
    description: str
    parameters: dict


@dataclass
class ToolCall:
    """One tool call from a reply.

    ``error`` is set when the call cannot be used as given (arguments that are
    not a JSON object, an unparseable text-protocol reply); ``raw_arguments``
    keeps what the model actually sent so the conversation can echo it back.
    """

    id: str
    name: str
    arguments: dict
    error: str | None = None
    raw_arguments: str | None = None

    def as_dict(self) -> dict:
        out: dict[str, Any] = {"id": self.id, "name": self.name, "arguments": self.arguments}
        if self.error is not None:
            out["error"] = self.error
        if self.raw_arguments is not None:
            out["raw_arguments"] = self.raw_arguments
        return out

    @classmethod
    def from_dict(cls, d: dict) -> ToolCall:
        return cls(d["id"], d["name"], dict(d.get("arguments") or {}), d.get("error"), d.get("raw_arguments"))


@dataclass
class Usage:
    input_tokens: int = 0
    output_tokens: int = 0


@dataclass
class Reply:
    text: str
    tool_calls: list[ToolCall] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    raw: Any = None

    def as_message(self) -> dict:
        """The reply as the assistant message to append to the conversation."""
        msg: dict[str, Any] = {"role": "assistant", "content": self.text}
        if self.tool_calls:
            msg["tool_calls"] = [c.as_dict() for c in self.tool_calls]
        return msg


@runtime_checkable
class LLM(Protocol):
    spec: str
    stats: Accounting

    def complete(self, system: str, messages: list[dict], tools: list[ToolSpec] | None = None) -> Reply:
        """One model call; raises LLMError once retries are exhausted."""
        ...


def parse_spec(spec: str) -> tuple[str, str, str | None]:
    """``provider:model[@base_url]`` -> (provider, model, base_url)."""
    provider, colon, rest = spec.strip().partition(":")
    if not colon or provider not in PROVIDERS:
        raise LLMError(
            f"bad model spec {spec!r}: expected provider:model with provider one of "
            f"{PROVIDERS.choices()} (e.g. anthropic:{DEFAULT_ANTHROPIC_MODEL})"
        )
    if provider in ("scripted", "hf"):  # a path, not model@url
        return provider, rest, None
    model, at, base_url = rest.partition("@")
    if not model:
        if provider != "anthropic":
            raise LLMError(f"bad model spec {spec!r}: no model name after '{provider}:'")
        model = DEFAULT_ANTHROPIC_MODEL
    if at and not base_url.startswith(("http://", "https://")):
        raise LLMError(f"bad model spec {spec!r}: the part after '@' must be an http(s) base URL")
    return provider, model, base_url or None


def make_llm(spec: str, **options: Any) -> LLM:
    """Build the LLM a spec names.

    Options (all optional): ``api_key``, ``base_url``, ``max_tokens``,
    ``temperature``, ``timeout`` (seconds per request), ``max_retries``,
    ``retry_base_delay``, ``retry_max_delay``, ``tool_protocol``
    (``auto`` | ``native`` | ``text``, OpenAI only), ``price``
    (``(usd_per_mtok_in, usd_per_mtok_out)`` for a model the table does not know).
    """
    provider, model, base_url = parse_spec(spec)
    if base_url:
        options["base_url"] = base_url
    options["spec"] = spec.strip()
    return PROVIDERS.get(provider)(model, **options)
