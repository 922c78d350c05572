"""Trajectories: every agent step as one JSON line under ``.horma/trajectories/``.

LLM and heuristic policies write the same format, so a heuristic navigator's
traces can later teach a small retriever and `horma trace` replays either.

Lines: a ``start`` record (with the format's ``schema`` version), one ``step``
record per action, an ``end`` record. A step holds ``action`` (bash | select |
done | ...), ``args``, ``observation``, ``exit_code``, ``elapsed_ms`` and, for
LLM steps, ``message`` (the model's text), ``input_tokens`` and
``output_tokens``. The pydantic models below are the format: a reader checks
every line against them, so a file from a newer horma, or a line that is not a
record, is one clear error instead of a KeyError deep in a replay.
"""

from __future__ import annotations

import datetime as dt
import json
import os
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from horma import trajectory_store
from horma.workspace import WorkspaceError, slugify

SCHEMA = 1  # the version a start record carries; a file without one predates versions and reads as 1


class _Record(BaseModel):
    model_config = ConfigDict(extra="allow")  # policies add their own fields (message, tokens, refs, ...)


class StartRecord(_Record):
    type: Literal["start"]
    role: str = ""
    task: str = ""
    time: str = ""
    schema_: int = Field(1, alias="schema")


class StepRecord(_Record):
    type: Literal["step"]
    action: str  # what every reader (trace, training export, replay) keys on
    step: int = 0
    args: dict[str, Any] = Field(default_factory=dict)
    observation: str = ""


class EndRecord(_Record):
    type: Literal["end"]
    status: str
    steps: int = 0


# tagged by "type", so a bad step is reported as a step's problem, not as "type should be 'start'"
TrajectoryRecord: TypeAdapter[StartRecord | StepRecord | EndRecord] = TypeAdapter(
    Annotated[StartRecord | StepRecord | EndRecord, Field(discriminator="type")])


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
        self._write({"type": "start", "schema": SCHEMA, "role": role, "task": task, "time": stamp, **meta})

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
    """All records of a trajectory file (a run cut off by a crash simply has no end record, and its torn
    last line is left out), each checked against the format; a file of a newer schema, a line that is
    not a record or a line before the last that is not JSON is refused."""
    out = []
    with open(path, encoding="utf-8") as fh:
        lines = [(n, line.strip()) for n, line in enumerate(fh, 1) if line.strip()]
        for n, line in lines:
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                if n == lines[-1][0]:
                    break  # a torn last line from a crash: the file is only ever appended to
                raise WorkspaceError(f"{path}:{n}: not JSON ({exc.msg})") from None
            try:
                parsed = TrajectoryRecord.validate_python(record)
            except ValidationError as exc:
                problem = exc.errors()[0]
                where = ".".join(str(x) for x in problem["loc"][1:]) or "record"
                raise WorkspaceError(f"{path}:{n}: not a trajectory record ({where}: {problem['msg']})") from None
            if isinstance(parsed, StartRecord) and parsed.schema_ > SCHEMA:
                raise WorkspaceError(f"{path}: trajectory schema {parsed.schema_} is newer than this horma's "
                                     f"({SCHEMA}); upgrade horma to read it")
            out.append(record)
    return out
