"""The memory manager ``M_m``: archive raw units (code), then organize notes (a policy).

Archiving never goes through a policy: units are written by
:meth:`Workspace.archive` under the writer lock, exactly and once. The policy
(heuristic code or an LLM agent) then works in the sandbox's write view, where
``raw/`` is read-only, to create or update notes and ``INDEX.md``.

``.horma/ingest.log`` (JSON lines) records each archived segment and each
segment a policy finished with. A segment archived by a run that was killed
before its policy finished is organized by the next :meth:`Manager.record`,
so a crash can delay notes but never lose them or archive a unit twice.
"""

from __future__ import annotations

import json
import shlex
import time as _time
from collections.abc import Sequence
from dataclasses import dataclass

from horma.sandbox import Sandbox, View, open_for_agent
from horma.workspace import SEP, Unit, Workspace, WorkspaceError, now_iso, parse_raw_line

POLICIES = ("heuristic", "llm")
INGEST_LOG = "ingest.log"


@dataclass
class RecordResult:
    """What one :meth:`Manager.record` did."""

    segment: str | None  # the new raw units file, or None when every unit was already archived
    archived: int
    skipped: int  # units already in the archive (a re-run)
    organized: list[str]  # segments a policy organized in this call (recovered ones first)
    elapsed_ms: float
    llm_calls: int = 0


def check_units(units: Sequence[Unit]) -> None:
    """Refuse a batch the archive would choke on, before anything is written."""
    if not units:
        raise WorkspaceError("no units to record (empty session)")
    for u in units:
        if not isinstance(u, Unit):
            raise WorkspaceError(f"expected horma.Unit objects, got {type(u).__name__}")
        if not u.id or SEP.strip() in u.id or any(c.isspace() for c in u.id):
            raise WorkspaceError(f"unit id {u.id!r} is empty or contains whitespace or '|'")
        if not isinstance(u.text, str) or not u.text.strip():
            raise WorkspaceError(f"unit {u.id}: empty text")
        if not isinstance(u.time, str) or not u.time.strip():
            raise WorkspaceError(f"unit {u.id}: empty time")


def _ends_with_newline(path) -> bool:
    with path.open("rb") as fh:
        fh.seek(-1, 2)
        return fh.read(1) == b"\n"


class RecordedSandbox:
    """A sandbox whose every command also becomes a ``bash`` step of a trajectory."""

    MAX_COMMAND_CHARS = 20_000  # a heuristic write carries whole notes; they are on disk anyway

    def __init__(self, sandbox: Sandbox, trajectory):
        self._sandbox = sandbox
        self._trajectory = trajectory

    def exec(self, command: str, timeout: float | None = None):
        result = self._sandbox.exec(command, timeout)
        shown = command
        if len(shown) > self.MAX_COMMAND_CHARS:
            shown = shown[: self.MAX_COMMAND_CHARS] + f"\n[... {len(command) - self.MAX_COMMAND_CHARS} chars not kept]"
        self._trajectory.step("bash", {"command": shown}, result.output, exit_code=result.exit_code,
                              elapsed_ms=round(result.elapsed_ms, 3))
        return result

    def __getattr__(self, name: str):
        return getattr(self._sandbox, name)


class Manager:
    """Records unit batches into a workspace and runs the note-writing policy on each."""

    def __init__(
        self,
        workspace: Workspace,
        policy: str = "heuristic",
        *,
        backend: str = "auto",
        llm=None,
        domain: str | None = None,
        allow_unsafe_local: bool = False,
        limits=None,
    ):
        if policy not in POLICIES:
            raise WorkspaceError(f"unknown manager policy {policy!r}; choose one of {', '.join(POLICIES)}")
        if policy == "llm" and llm is None:
            raise WorkspaceError("the llm manager needs an LLM (pass llm=... or --llm SPEC)")
        self.workspace = workspace
        self.policy = policy
        self.backend = backend
        self.llm = llm
        self.domain = domain
        self.allow_unsafe_local = allow_unsafe_local
        self.limits = limits
        self._sandbox: Sandbox | None = None
        self._options: dict | None = None
        self._organized: set[str] = set()
        self._log_offset = 0
        self._rels: dict = {}  # raw units file -> its workspace path (resolving it each record is slow)

    # -- sandbox --------------------------------------------------------------
    @property
    def sandbox(self) -> Sandbox:
        """One write-view session kept open across records (a command costs ms, a start does not)."""
        if self._sandbox is None:
            self._sandbox = open_for_agent(
                self.workspace.root, self.backend, View.WRITE,
                llm_driven=self.policy == "llm", allow_unsafe_local=self.allow_unsafe_local,
            )
        return self._sandbox

    def close(self) -> None:
        if self._sandbox is not None:
            self._sandbox.close()
            self._sandbox = None

    # -- the ingest log -------------------------------------------------------
    def _log(self, event: str, segment: str, **fields) -> None:
        record = {"time": now_iso(), "event": event, "segment": segment, **fields}
        line = json.dumps(record, ensure_ascii=False) + "\n"
        path = self.workspace.meta / INGEST_LOG
        with path.open("ab") as fh:
            if fh.tell() and not _ends_with_newline(path):
                line = "\n" + line  # a kill tore the last line: never glue a record onto it
            fh.write(line.encode("utf-8"))
            fh.flush()

    def organized_segments(self) -> set[str]:
        """Segments the log says a policy finished; read incrementally, since the log only grows."""
        path = self.workspace.meta / INGEST_LOG
        if not path.is_file():
            return set(self._organized)
        with path.open("rb") as fh:
            fh.seek(self._log_offset)
            chunk = fh.read()
        complete = chunk[: chunk.rfind(b"\n") + 1]
        self._log_offset += len(complete)
        for line in complete.decode("utf-8", errors="replace").splitlines():
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                continue  # a line torn by a kill
            if isinstance(record, dict) and record.get("event") == "organized":
                self._organized.add(record.get("segment"))
        return set(self._organized)

    def pending_segments(self) -> list[str]:
        """Archived segments no policy has finished with (their run was cut off)."""
        done = self.organized_segments()
        out = []
        for f in self.workspace.raw_files():
            rel = self._rels.get(f)
            if rel is None:
                rel = self._rels[f] = self.workspace.rel(f)
            if rel not in done:
                out.append(rel)
        return out

    # -- recording ------------------------------------------------------------
    def record(self, units: Sequence[Unit], slug: str, time: str | None = None, source: str | None = None) -> RecordResult:
        """Archive the units not archived yet as one segment, then organize it.

        Callers validate input first; this checks the batch itself again so a
        bad one is refused before the workspace changes.
        """
        check_units(units)
        self.sandbox  # open it (and refuse an unisolated one for an LLM) before anything is written
        t0 = _time.perf_counter()
        ws = self.workspace
        organized: list[str] = []
        calls = 0
        with ws.writer():
            for seg in self.pending_segments():
                calls += self._organize(seg)
                organized.append(seg)
            seg = ws.archive(units, slug, time)
            archived = 0
            if seg is not None:
                archived = len(self._segment_units(seg))
                self._log("archived", seg, units=archived, source=source, slug=slug)
                calls += self._organize(seg)
                organized.append(seg)
        return RecordResult(seg, archived, len(units) - archived, organized,
                            (_time.perf_counter() - t0) * 1000, calls)

    def _segment_units(self, seg: str) -> list[Unit]:
        lines = self.workspace.resolve(seg).read_text(encoding="utf-8").splitlines()
        return [u for line in lines if (u := parse_raw_line(line)) is not None]

    def _organize(self, seg: str) -> int:
        """Run the policy on one archived segment; returns the LLM calls it made."""
        units = self._segment_units(seg)
        calls = 0
        if self.policy == "heuristic":
            self._run_heuristic(seg, units)
        else:
            calls = self._run_llm(seg, units)
        self._log("organized", seg, units=len(units), policy=self.policy)
        return calls

    def _run_heuristic(self, seg: str, units: list[Unit]) -> None:
        """The zero-LLM policy, its commands recorded as a manager trajectory like an LLM's."""
        from horma.agents.heuristic_manager import manage
        from horma.agents.trajectory import Trajectory

        traj = Trajectory(self.workspace.trajectories, "manager", seg.split("/")[-2], segment=seg,
                          policy="heuristic", backend=self.sandbox.backend, units=len(units))
        try:
            summary = manage(RecordedSandbox(self.sandbox, traj), self.workspace, seg, units,
                             skills=self._heuristic_options())
        except BaseException:
            traj.end("error")
            raise
        traj.step("done", {}, json.dumps(summary, ensure_ascii=False))
        traj.end("done")

    def _heuristic_options(self) -> dict:
        if self._options is None:
            from horma.skills import heuristic_options

            self._options = heuristic_options(self.domain)
        return self._options

    def _run_llm(self, seg: str, units: list[Unit]) -> int:
        from horma.agents.loop import RunLimits, Tool, ToolOutcome, run_agent
        from horma.agents.retriever import sandbox_helpers
        from horma.llm import ToolSpec
        from horma.prompts import render_prompt
        from horma.skills import render_for_prompt

        system = render_prompt("manager", skills=render_for_prompt(self.domain), helpers=sandbox_helpers())
        task = render_prompt("manager_task", segment=seg, time=units[0].time if units else "",
                             units=[u.line() for u in units])
        done = Tool(
            ToolSpec(name="done",
                     description="Finish: the new segment is reflected in notes/ and INDEX.md.",
                     parameters={"type": "object",
                                 "properties": {"summary": {"type": "string", "description": "what changed, one line"}},
                                 "required": []}),
            lambda args: ToolOutcome(f"done: {args.get('summary', '')}".strip(), finished=True),
        )
        result = run_agent(self.llm, self.sandbox, role="manager", system=system, task=task, tools=[done],
                           limits=self.limits or RunLimits(), trajectory_dir=self.workspace.trajectories,
                           allow_unsafe_local=self.allow_unsafe_local)
        if result.status != "done":
            why = f"{result.status}: {result.error}" if result.error else result.status
            raise WorkspaceError(f"{seg}: the manager stopped without finishing ({why}); "
                                 "re-run to organize it again")
        home = getattr(self.sandbox, "home", str(self.workspace.root))
        indexed = self.sandbox.exec(f"cd {shlex.quote(home)} && hindex")  # hsearch must see what the model wrote
        if indexed.exit_code != 0:
            raise WorkspaceError(f"{seg}: indexing the new notes failed: {indexed.output.strip()[-300:]}")
        return result.llm_calls

    def __enter__(self) -> "Manager":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


__all__ = ["INGEST_LOG", "POLICIES", "Manager", "RecordResult", "check_units"]
