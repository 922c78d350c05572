"""One line per optimizer step, printed and appended to ``CKPT/train_log.jsonl``."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from transformers import TrainerCallback

LOG_FILE = "train_log.jsonl"
KEEP = ("loss", "reward", "reward_std", "learning_rate", "grad_norm", "completions/mean_length")


class StepLog(TrainerCallback):
    """Writes what the trainer logs at every step (``logging_steps=1``): loss, mean reward, ..."""

    def __init__(self, out: Path, echo: Callable[[str], None] | None = print, extra: Callable[[], dict] | None = None):
        self.path = Path(out) / LOG_FILE
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.write_text("", encoding="utf-8")
        self.echo = echo
        self.extra = extra
        self.records: list[dict] = []

    def on_log(self, args, state, control, logs=None, **kwargs):  # transformers' signature
        logs = logs or {}
        if not any(k in logs for k in ("loss", "reward")):
            return
        rec = {"step": state.global_step, **{k: round(float(logs[k]), 6) for k in KEEP if k in logs}}
        if self.extra:
            rec.update(self.extra())
        self.records.append(rec)
        with self.path.open("a", encoding="utf-8") as fh:
            fh.write(json.dumps(rec) + "\n")
        if self.echo:
            self.echo("step " + " ".join(f"{k}={v}" for k, v in rec.items() if k != "step").join(
                [f"{rec['step']}: ", ""]))
