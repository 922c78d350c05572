"""Trajectories: every agent step as one JSON line under ``.horma/trajectories/``.

LLM and heuristic policies write the same format, so a heuristic navigator's
traces can later teach a small retriever and `horma trace` replays either.

Lines: a ``start`` record, one ``step`` record per action, an ``end`` record.
A step holds ``action`` (bash | select | done | ...), ``args``,
``observation``, ``exit_code``, ``elapsed_ms`` and, for LLM steps,
``message`` (the model's text), ``input_tokens`` and ``output_tokens``.
"""

from __future__ import annotations

import datetime as dt
import json
import os
from pathlib import Path
from typing import Any

from horma import trajectory_store
from horma.workspace import slugify


class Trajectory:
    """An append-only JSONL log of one agent run; each line is flushed as written."""

    def __init__(self, directory: Path, role: str, task: str, **meta: Any):
        directory.mkdir(parents=True, exist_ok=True)
        trajectory_store.created(directory)  # keeps the folder within its caps
        stamp = dt.datetime.now(dt.timezone.utc).strftime("%Y%m%dT%H%M%S%fZ")
        self.path = directory / f"{stamp}__{role}__{slugify(task, 32)}.jsonl"
        self.role = role
        self.steps = 0
        self._fh = self.path.open("a", encoding="utf-8")
        self._write({"type": "start", "role": role, "task": task, "time": stamp, **meta})

    def _write(self, record: dict[str, Any]) -> None:
        self._fh.write(json.dumps(record, ensure_ascii=False) + "\n")
        self._fh.flush()

    def step(self, action: str, args: dict[str, Any], observation: str, **fields: Any) -> None:
        self.steps += 1
        self._write({"type": "step", "step": self.steps, "action": action, "args": args,
                     "observation": observation, **fields})

    def end(self, status: str, **fields: Any) -> None:
        self._write({"type": "end", "status": status, "steps": self.steps, **fields})
        self._fh.close()

    def close(self) -> None:
        if not self._fh.closed:
            self._fh.close()


def read_trajectory(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """All records of a trajectory file (a run cut off by a crash simply has no end record)."""
    out = []
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            line = line.strip()
            if line:
                try:
                    out.append(json.loads(line))
                except json.JSONDecodeError:
                    break  # a torn last line from a crash
    return out
