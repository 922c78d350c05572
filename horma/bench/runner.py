"""The evaluation runner: tasks -> method -> records -> summary, resumable and parallel.

A benchmark is a list of *tasks* (a conversation with its questions, an
ALFWorld game); a task is self-contained and picklable and has one method,
``run(settings, todo, emit)``, that runs the instances named in ``todo`` and
emits one record (a JSON-able dict) per instance. The runner only schedules:

- ``DIR/results.jsonl`` gets one line per finished instance, flushed as it
  arrives; a re-run with the same ``DIR`` skips the ids already there, so a
  killed run resumes where it stopped (a torn last line is dropped);
- ``DIR/run.json`` records what the run is (benchmark, data, method,
  budget, models); resuming into a folder of a different run is refused;
- ``DIR/summary.json`` holds the means per category and overall, with
  p50/p95 for every ``*_ms`` latency;
- ``workers > 1`` runs tasks in parallel processes; records stream back
  through a queue. Fanning out on Ray needs no change to tasks:
  ``ray.remote(collect_task).remote(task, settings, todo)`` returns the same
  records.
"""

from __future__ import annotations

import json
import multiprocessing as mp
import os
import queue as _queue
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from horma.bench.methods import MethodOptions
from horma.bench.metrics import mean, percentile
from horma.errors import HormaError
from horma.file_writes import atomic_write

RESULTS = "results.jsonl"
SUMMARY = "summary.json"
RUN_INFO = "run.json"
ERRORS = "errors.jsonl"
NOT_AGGREGATED = {"history_units"}


class RunError(HormaError):
    """The run cannot start or continue as asked; worded for the user."""


class BenchTask(Protocol):
    """One unit of work for the eval runner: a slice of a benchmark (a conversation's questions, a game) that
    answers for some instance ids and, run in a worker, emits one record per instance. Not refinement's
    :class:`horma.refine.RefineTask` nor training's :class:`horma.train.environment.RetrievalTask`."""

    id: str

    def instance_ids(self) -> list[str]: ...

    def run(self, settings: RunSettings, todo: Sequence[str], emit: Callable[[dict], None]) -> None: ...


@dataclass(frozen=True)
class RunSettings:
    """Everything a task needs besides itself; it pickles to workers, settings included.

    ``llm`` is the primary agent's model spec and ``judge`` the judge's;
    ``None`` falls back to the settings' ``models.<role>`` (``options.settings``).
    """

    method: str
    budget: int | None
    out: Path
    retrieval_only: bool = False
    llm: str | None = None
    judge: str | None = None
    options: MethodOptions = field(default_factory=MethodOptions)
    max_steps: int = 50  # agent benchmarks: the horizon

    @property
    def workdir(self) -> Path:
        return self.out / "work"

    def make_llm(self, role: str, spec: str | None) -> Any:
        """The model for ``role``, built from the settings (keys, timeouts) in this process."""
        return self.options.settings.llm_for(role, spec)

    def identity(self) -> dict[str, Any]:
        """What must match for a resumed run to continue this one."""
        return {"method": self.method, "budget": self.budget, "retrieval_only": self.retrieval_only,
                "llm": None if self.retrieval_only else self.llm,
                "judge": None if self.retrieval_only else self.judge,
                **self.options.policies(), "memory_llm": self.memory_llm(), "max_steps": self.max_steps}

    def memory_llm(self) -> str | None:
        """The model spec horma's LLM-driven policies use (None when both are heuristic): part of a run's
        identity, so a resumed run never mixes two models' results."""
        from horma.agents.policies import policy_class

        specs = {self.options.settings.model(role) for role, name in self.options.policies().items()
                 if policy_class(role, name).llm_driven}
        return ", ".join(sorted(specs)) or None


@dataclass
class RunResult:
    out: Path
    summary: dict[str, Any]
    records: list[dict[str, Any]]
    resumed: int  # instances found finished in DIR
    ran: int  # instances run now
    errors: list[dict[str, Any]]


def collect_task(task: BenchTask, settings: RunSettings, todo: Sequence[str]) -> list[dict]:
    """Run one task and return its records: the unit of work for any executor (a process, Ray)."""
    out: list[dict] = []
    task.run(settings, todo, out.append)
    return out


def _stream_task(task: BenchTask, settings: RunSettings, todo: Sequence[str], sink: Any) -> None:
    """Worker-process entry: stream records back through ``sink`` as they are made."""
    task.run(settings, todo, sink.put)


# -- results file ---------------------------------------------------------------
def read_results(path: Path) -> list[dict]:
    """Records in a results file; a torn last line (a killed run) is cut off the file."""
    if not path.is_file():
        return []
    data = path.read_bytes()
    keep = data if data.endswith(b"\n") else data[: data.rfind(b"\n") + 1]
    if len(keep) != len(data):
        with path.open("r+b") as fh:
            fh.truncate(len(keep))
    records = []
    for line in keep.decode("utf-8").splitlines():
        if line.strip():
            try:
                records.append(json.loads(line))
            except json.JSONDecodeError:
                continue
    return records


class _Results:
    def __init__(self, path: Path):
        self._fh = path.open("a", encoding="utf-8")

    def write(self, record: dict) -> None:
        self._fh.write(json.dumps(record, ensure_ascii=False) + "\n")
        self._fh.flush()
        os.fsync(self._fh.fileno())

    def close(self) -> None:
        self._fh.close()


def _check_run_info(out: Path, info: dict) -> None:
    path = out / RUN_INFO
    if path.is_file():
        old = json.loads(path.read_text(encoding="utf-8"))
        if "policy" in old:  # a run started when one --policy named both roles resumes as both
            shared = old.pop("policy")
            old.setdefault("manager", shared)
            old.setdefault("retriever", shared)
        for key, value in info.items():
            if old.get(key) != value:
                raise RunError(
                    f"{out} holds a run with {key}={old.get(key)!r}, not {value!r}: "
                    "use another --out to start a new run"
                )
    else:
        atomic_write(path, json.dumps(info, indent=1) + "\n")


# -- running ----------------------------------------------------------------------
def run_tasks(
    tasks: Sequence[BenchTask],
    settings: RunSettings,
    identity: dict[str, Any],
    *,
    workers: int = 1,
    limit: int | None = None,
    on_start: Callable[[int, int], None] | None = None,
    on_record: Callable[[dict], None] | None = None,
) -> RunResult:
    """Run every unfinished instance (the first ``limit`` of them in task order) and summarize.

    ``identity`` names the benchmark and data (it joins the settings' in
    ``run.json``); ``on_start(total, already_done)`` and ``on_record`` drive a
    progress display.
    """
    if workers < 1:
        raise RunError(f"--workers must be at least 1, got {workers}")
    if limit is not None and limit < 1:
        raise RunError(f"--limit must be at least 1, got {limit}")
    out = settings.out
    out.mkdir(parents=True, exist_ok=True)
    info = {**identity, **settings.identity()}
    _check_run_info(out, info)
    selected: list[tuple[BenchTask, list[str]]] = []
    count = 0
    for task in tasks:
        ids = task.instance_ids()
        if limit is not None:
            ids = ids[: max(0, limit - count)]
        count += len(ids)
        if ids:
            selected.append((task, ids))
    wanted = {i for _, ids in selected for i in ids}
    done = {r["id"] for r in read_results(out / RESULTS)}
    plan = [(t, [i for i in ids if i not in done]) for t, ids in selected]
    plan = [(t, todo) for t, todo in plan if todo]
    resumed = len(wanted & done)
    if on_start:
        on_start(len(wanted), resumed)
    sink = _Results(out / RESULTS)
    errors: list[dict] = []

    def accept(rec: dict) -> None:
        sink.write(rec)
        if on_record:
            on_record(rec)

    try:
        if workers == 1 or len(plan) <= 1:
            for task, todo in plan:
                try:
                    task.run(settings, todo, accept)
                except Exception as exc:  # one broken task must not lose the others' results
                    errors.append({"task": task.id, "error": f"{type(exc).__name__}: {exc}"})
        else:
            errors = _run_parallel(plan, settings, workers, accept)
    finally:
        sink.close()
    if errors:
        with (out / ERRORS).open("a", encoding="utf-8") as fh:
            for e in errors:
                fh.write(json.dumps(e, ensure_ascii=False) + "\n")
    records = [r for r in read_results(out / RESULTS) if r["id"] in wanted]
    summary = summarize(records, info)
    summary["errors"] = len(errors)
    atomic_write(out / SUMMARY, json.dumps(summary, indent=1, ensure_ascii=False) + "\n")
    return RunResult(out, summary, records, resumed, len(records) - resumed, errors)


def _run_parallel(plan: list[tuple[BenchTask, list[str]]], settings: RunSettings, workers: int,
                  accept: Callable[[dict], None]) -> list[dict]:
    ctx = mp.get_context("spawn")  # no fork of a process that holds threads and open sandboxes
    errors: list[dict] = []
    with ctx.Manager() as manager:
        sink = manager.Queue()
        with ProcessPoolExecutor(max_workers=min(workers, len(plan)), mp_context=ctx) as pool:
            futures = {pool.submit(_stream_task, t, settings, todo, sink): t for t, todo in plan}
            pending = set(futures)
            while pending:
                _drain(sink, accept, timeout=0.2)
                finished, pending = wait(pending, timeout=0, return_when=FIRST_COMPLETED)
                for fut in finished:
                    exc = fut.exception()
                    if exc is not None:
                        errors.append({"task": futures[fut].id, "error": f"{type(exc).__name__}: {exc}"})
            _drain(sink, accept, timeout=0)
    return errors


def _drain(sink: Any, accept: Callable[[dict], None], timeout: float) -> None:
    try:
        accept(sink.get(timeout=timeout) if timeout else sink.get_nowait())
        while True:
            accept(sink.get_nowait())
    except _queue.Empty:
        return


# -- summary ----------------------------------------------------------------------
def _aggregate(records: list[dict]) -> dict[str, Any]:
    keys: list[str] = []
    for r in records:
        keys.extend(k for k, v in r.items() if k not in keys and k not in NOT_AGGREGATED
                    and (isinstance(v, (int, float)) or v is None) and k != "id")
    out: dict[str, Any] = {"n": len(records)}
    for k in keys:
        values = [float(r[k]) for r in records if isinstance(r.get(k), (int, float))]
        if not values:
            continue
        out[k] = mean(values)
        if k.endswith("_ms"):
            out[f"{k}_p50"] = percentile(values, 50)
            out[f"{k}_p95"] = percentile(values, 95)
    return out


def summarize(records: list[dict], info: dict[str, Any]) -> dict[str, Any]:
    """Means of every numeric field (booleans as rates) per category and overall, p50/p95 for latencies."""
    cats: dict[str, list[dict]] = {}
    for r in records:
        cats.setdefault(str(r.get("category", "all")), []).append(r)
    return {"run": info, "overall": _aggregate(records),
            "categories": {c: _aggregate(rs) for c, rs in sorted(cats.items())}}
