"""Supervised warm start: TRL's SFTTrainer on the navigator's transcripts, rendered as the model will read them.

The exported records use the messages + tools format; the model, though,
acts through the text protocol (see :mod:`horma.llm.hf`), so each record is
rendered with the very function the ``hf:`` provider prompts with
(:func:`horma.llm.text_protocol.chat`), tool calls written as
:func:`~horma.llm.text_protocol.format_action` writes them.

The loss is on the model's own replies only. A transcript is mostly text
the model reads (a long system prompt, search results): trained on all of
it, a few steps go to memorising the system prompt and teach no action
(the first CPU run learned nothing that way). Tokens are cut the way the
``hf:`` provider cuts them at inference (each prompt's new text, then the
reply up to and including the end-of-turn token), so the masked sequence is
the very one the checkpoint will read and write. A transcript longer than
``max_length`` tokens is cut at the end: the first actions (the search, the
first selections) are always kept.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable
from pathlib import Path

from horma.filecheck import file_problem
from horma.llm import ToolCall, ToolSpec, text_protocol
from horma.workspace import WorkspaceError


def text_chat(record: dict) -> list[dict]:
    """One exported record as plain chat messages in the text protocol."""
    tools = [ToolSpec(t["function"]["name"], t["function"].get("description", ""), t["function"]["parameters"])
             for t in record.get("tools") or []]
    messages = record["messages"]
    if not messages or messages[0]["role"] != "system":
        raise ValueError("the first message must be the system prompt")
    neutral: list[dict] = []
    for m in messages[1:]:
        if m["role"] == "assistant":
            actions = [text_protocol.format_action(
                ToolCall(c.get("id", ""), c["function"]["name"], dict(c["function"].get("arguments") or {})), tools)
                for c in m.get("tool_calls") or []]
            content = "\n".join(x for x in [m.get("content") or "", *actions] if x)
            neutral.append({"role": "assistant", "content": content})
        elif m["role"] == "tool":
            neutral.append({"role": "tool", "tool_call_id": m.get("tool_call_id", ""), "name": m.get("name", ""),
                            "content": m["content"]})
        else:
            neutral.append({"role": m["role"], "content": m["content"]})
    return text_protocol.chat(messages[0]["content"], neutral, tools)


def load_sft(path: str | Path) -> list[dict]:
    p = Path(path)
    if problem := file_problem(p):
        raise WorkspaceError(f"{path}: {problem}")
    out = []
    for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1):
        if line.strip():
            try:
                rec = json.loads(line)
                out.append({"messages": text_chat(rec), "jaccard": rec.get("jaccard")})
            except (json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
                raise WorkspaceError(f"{path}:{n}: not a transcript ({type(exc).__name__}: {exc})") from None
    if not out:
        raise WorkspaceError(f"{path}: no transcripts")
    return out


def tokenize_chat(chat: list[dict], tokenizer, max_length: int | None = None) -> dict:
    """``input_ids`` of a rendered chat and ``assistant_masks`` (1 on the replies), as inference tokenizes them."""
    ids: list[int] = []
    mask: list[int] = []
    seen = ""

    def add(text: str, trained: int) -> None:
        new = tokenizer(text, add_special_tokens=False).input_ids
        ids.extend(new)
        mask.extend([trained] * len(new))

    for i, message in enumerate(chat):
        if message["role"] != "assistant":
            continue
        prompt = tokenizer.apply_chat_template(chat[:i], tokenize=False, add_generation_prompt=True)
        full = tokenizer.apply_chat_template(chat[: i + 1], tokenize=False)
        if not prompt.startswith(seen) or not full.startswith(prompt):
            raise ValueError("the chat template does not render the chat as a growing text")
        reply = full[len(prompt):]
        end = reply.find(tokenizer.eos_token) if tokenizer.eos_token else -1
        reply = reply[: end + len(tokenizer.eos_token)] if end >= 0 else reply
        add(prompt[len(seen):], 0)
        add(reply, 1)
        seen = prompt + reply
    if max_length:
        ids, mask = ids[:max_length], mask[:max_length]
    return {"input_ids": ids, "assistant_masks": mask}


def _cuda() -> bool:
    """Train on the GPU where there is one (``accelerate launch`` places each process on its own)."""
    import torch

    return torch.cuda.is_available()


def _bf16() -> bool:
    """bf16 mixed precision on a GPU, and on a CPU with AVX512-BF16 (1.7x faster steps on this project's CI CPU)."""
    import torch

    if torch.cuda.is_available():
        return torch.cuda.is_bf16_supported()
    return bool(getattr(torch.cpu, "_is_avx512_bf16_supported", lambda: False)())


def lora_config():
    from peft import LoraConfig

    return LoraConfig(r=16, lora_alpha=32, lora_dropout=0.0, target_modules="all-linear", task_type="CAUSAL_LM")


def save_checkpoint(model, tokenizer, out: Path, meta: dict) -> None:
    """Safetensors + tokenizer (+ what made them): a directory ``hf:OUT`` loads; LoRA adapters merged first."""
    if hasattr(model, "merge_and_unload"):
        model = model.merge_and_unload()
    model.save_pretrained(out, safe_serialization=True)
    tokenizer.save_pretrained(out)
    (out / "horma_train.json").write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")


def train_sft(data: str | Path, out: str | Path, *, model: str = "smollm2", steps: int = 20, lora: bool = False,
              learning_rate: float = 1e-4, max_length: int = 4096, batch_size: int = 1,
              echo: Callable[[str], None] | None = print) -> list[dict]:
    """Fine-tune on ``data`` (sft.jsonl) for ``steps`` optimizer steps; returns the per-step log."""
    from datasets import Dataset
    from trl import SFTConfig, SFTTrainer

    from horma.llm.hf import load
    from horma.train.log import StepLog

    rows = load_sft(data)
    out = Path(out)
    base, tokenizer = load(model)
    base.train()
    examples = []
    for n, row in enumerate(rows, 1):
        example = tokenize_chat(row["messages"], tokenizer, max_length)
        if 1 not in example["assistant_masks"]:
            raise WorkspaceError(f"{data}: transcript {n} has no reply within its first {max_length} tokens "
                                 "(the loss is on replies only): raise --max-length")
        examples.append(example)
    log = StepLog(out, echo)
    with tempfile.TemporaryDirectory(prefix="horma-sft-") as scratch:
        config = SFTConfig(output_dir=scratch, max_steps=steps, per_device_train_batch_size=batch_size,
                           learning_rate=learning_rate, lr_scheduler_type="constant", warmup_steps=0,
                           logging_steps=1, save_strategy="no", report_to=[], max_length=max_length,
                           use_cpu=not _cuda(), bf16=_bf16(), fp16=False, dataloader_num_workers=0, seed=0,
                           disable_tqdm=echo is None)
        trainer = SFTTrainer(model=base, args=config, processing_class=tokenizer,
                             train_dataset=Dataset.from_list(examples),
                             peft_config=lora_config() if lora else None, callbacks=[log])
        trainer.train()
        save_checkpoint(trainer.model, tokenizer, out, {"method": "sft", "base": model, "data": str(data),
                                                        "steps": steps, "lora": lora, "max_length": max_length,
                                                        "learning_rate": learning_rate})
    return log.records
