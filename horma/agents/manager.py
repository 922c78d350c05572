"""The memory manager ``M_m``: archive raw units (code), then organize notes (a policy).

Archiving never goes through a policy: units are written by
:meth:`Workspace.archive` under the writer lock, exactly and once. The policy
(a :class:`~horma.agents.policies.ManagerPolicy` from the registry) then
creates or updates notes, ``INDEX.md`` and the search index: the heuristic one
in code on the host, under the same writer lock; an LLM agent through bash in
the sandbox's write view, where ``raw/`` is read-only.

``.horma/ingest.log`` (JSON lines) records each archived segment and each
segment a policy finished with. A segment archived by a run that was killed
before its policy finished is organized by the next :meth:`Manager.record`,
so a crash can delay notes but never lose them or archive a unit twice.
"""

from __future__ import annotations

import json
import logging
import os
import secrets
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING

from pydantic import BaseModel, Field

from horma.agents.policies import ManagerPolicy, OrganizeTask, SandboxedAgent, policy_names
from horma.core import talks
from horma.core.layout import RAW_DIR, UNITS_FILE
from horma.leftovers import clean_leftovers
from horma.llm.accounting import Cost, Meter
from horma.record_contract import Conflict, sort_batch
from horma.sandbox import View
from horma.units import check_units, normalize_time
from horma.workspace import Unit, Workspace, WorkspaceError, now_iso, parse_raw_line, slugify

if TYPE_CHECKING:
    from horma.history import NotesHistory

INGEST_LOG = "ingest.log"
APPENDING_EVENT = "appending"  # in the ingest log: units are being added to an organized segment, pending again
REORGANIZE_EVENT = "reorganize"  # in the ingest log: every segment archived before it is pending again
_logger = logging.getLogger(__name__)


class RecordResult(BaseModel):
    """What one :meth:`Manager.record` did; :meth:`as_dict` is its JSON (``horma record --json``, MCP)."""

    segment: str | None  # the raw units file they went to (new, or one they went on in); None: none was new
    archived: int
    skipped: int  # units not archived by this call: unchanged + conflicts
    organized: list[str]  # segments a policy organized in this call (recovered ones first)
    cost: Cost = Field(default_factory=Cost)  # tokens, LLM calls, sandbox commands, wall time, dollars
    archived_ids: list[str] = Field(default_factory=list)
    unchanged: list[str] = Field(default_factory=list)  # already archived with the same content (a resend)
    conflicts: list[Conflict] = Field(default_factory=list)  # already archived with other content: not archived

    def as_dict(self) -> dict:
        return {"segment": self.segment, "archived": self.archived, "skipped": self.skipped,
                "ids": {"archived": self.archived_ids, "unchanged": self.unchanged,
                        "conflict": [c.id for c in self.conflicts]},
                "conflicts": [c.as_dict() for c in self.conflicts],
                "organized": self.organized, "cost": self.cost.as_dict()}


def _ends_with_newline(path) -> bool:
    with path.open("rb") as fh:
        fh.seek(-1, 2)
        return fh.read(1) == b"\n"


class Manager(SandboxedAgent):
    """Records unit batches into a workspace and runs the note-writing policy on each.

    The policy comes from :data:`horma.agents.policies.MANAGER_POLICIES`; a
    policy that writes notes in code (``needs_sandbox`` False) never opens a
    sandbox, one driven by an LLM works in the write view.
    """

    role = "manager"
    impl: ManagerPolicy
    view = View.WRITE

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
        timeout: float | None = None,
        skills_dir: str | os.PathLike[str] | None = None,
    ):
        super().__init__(workspace, policy, backend=backend, llm=llm, allow_unsafe_local=allow_unsafe_local,
                         limits=limits, timeout=timeout)
        self.domain = domain
        self.skills_dir = skills_dir  # ``skills.dir``; None: the project's skills/
        self._organized: set[str] = set()
        self._log_offset = 0
        self._rels: dict = {}  # raw units file -> its workspace path (resolving it each record is slow)
        self._settled: set[str] = set()  # segments known to be organized (the log says so)
        self._history: NotesHistory | None = None  # the notes history, opened on the first record
        self._run: list[str] | None = None  # segments organized inside one_run(), committed at its end
        self._swept = False  # dead writers' temp files removed (once, at the first record)
        self._writer = secrets.token_hex(6)  # this manager's appends in the log, which need no re-read

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
        return set(self._read_log())

    def _read_log(self) -> set[str]:
        """The log's new complete lines folded into the set of organized segments (which is returned)."""
        path = self.workspace.meta / INGEST_LOG
        try:
            fh = path.open("rb")
        except FileNotFoundError:
            return self._organized
        with fh:
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
                if isinstance(segment := record.get("segment"), str):  # _log always writes one
                    self._organized.add(segment)
                    self._settled.add(segment)
            elif isinstance(record, dict) and record.get("event") == APPENDING_EVENT:
                if isinstance(segment := record.get("segment"), str):  # pending until organized again
                    self._organized.discard(segment)
                    self._settled.discard(segment)
                    if record.get("writer") != self._writer:  # another's append: its ids, read again
                        self.workspace.raw_changed()
            elif isinstance(record, dict) and record.get("event") == REORGANIZE_EVENT:
                self._organized.clear()  # every segment is pending again (horma reorganize)
                self._settled.clear()
        return self._organized

    def pending_segments(self) -> list[str]:
        """Archived segments no policy has finished with (their run was cut off).

        Costs one stat of ``raw/`` and a length check while every segment is
        known to be organized: a long ingest must not list the whole archive
        on every record.
        """
        done = self._read_log()
        files = self.workspace.segment_files()
        if len(files) == len(self._settled):
            return []
        out = []
        for f in files:
            rel = self._rels.get(f)
            if rel is None:
                rel = self._rels[f] = self.workspace.rel(f)
            if rel in self._settled:
                continue
            if rel in done:
                self._settled.add(rel)
            else:
                out.append(rel)
        return out

    # -- recording ------------------------------------------------------------
    def record(self, units: Sequence[Unit], slug: str, time: str | None = None, source: str | None = None,
               untimed: frozenset[str] = frozenset(), goes_on: bool = True) -> RecordResult:
        """Archive the units not archived yet, as a new segment or at the end of the one they go on in, then
        organize them.

        Callers validate input first; this checks the batch itself again so a
        bad one is refused before the workspace changes. Each id is sorted
        against the archive under the writer lock (:func:`horma.record_contract.sort_batch`);
        ``untimed`` ids were stamped on arrival, so their resend compares actor and text only. With
        ``goes_on`` a batch may be appended to the latest segment of its session name (:meth:`_going_on`);
        a source whose every batch is a whole session (an export's conversations) says False.
        """
        units = check_units(units)
        if time is not None:
            time = normalize_time(time, "segment time")
        if not isinstance(slug, str):
            raise WorkspaceError(f"slug must be a string, got {type(slug).__name__}")
        if self.impl.needs_sandbox:
            _ = self.sandbox  # open it (and refuse an unisolated one for an LLM) before anything is written
        meter = Meter(self.llm, self.sandbox_commands)
        ws = self.workspace
        organized: list[str] = []
        with ws.writer():
            if not self._swept:
                clean_leftovers(ws.root)  # a killed archive's temp file holds unit text nothing else removes
                self._swept = True
            for pending in self.pending_segments():
                self._organize(pending)
                organized.append(pending)
            verdict = sort_batch(ws, units, untimed)
            seg = self._archive(verdict.new, slug, time, source, goes_on) if verdict.new else None
            archived = 0
            seg_units: list[Unit] = []
            if seg is not None:
                new_ids = {u.id for u in verdict.new}
                seg_units = [u for u in self.segment_units(seg) if u.id in new_ids]
                archived = len(seg_units)
                self._log("archived", seg, units=archived, source=source, slug=slug)
                self._organize(seg, seg_units)
                organized.append(seg)
            if self._run is not None:
                self._run.extend(organized)
            elif organized:
                self.commit_notes(organized)
        return RecordResult(segment=seg, archived=archived, skipped=len(units) - archived, organized=organized,
                            cost=meter.cost(), archived_ids=[u.id for u in seg_units], unchanged=verdict.unchanged,
                            conflicts=verdict.conflicts)

    def _archive(self, units: list[Unit], slug: str, time: str | None, source: str | None,
                 goes_on: bool) -> str | None:
        """Archive a batch: at the end of the segment it goes on in (:meth:`_going_on`), else as a new one.

        An append is logged before it is made: the segment is pending from then
        on, so a kill between the append and its notes leaves it to the next
        record to organize again (the heuristic notes take a unit once), never
        appended units without notes.
        """
        seg = self._going_on(slug, units) if goes_on else None
        if seg is None:
            return self.workspace.archive(units, slug, time)
        self._log(APPENDING_EVENT, seg, units=len(units), source=source, slug=slug, writer=self._writer)
        return self.workspace.append(units, seg)

    def _going_on(self, slug: str, units: list[Unit]) -> str | None:
        """The latest segment of the batch's session name, when the batch goes on in it
        (:func:`horma.core.talks.goes_on`: less than half an hour after its last unit, within a talk's size).

        A conversation recorded a message at a time (``horma add``, an MCP client's ``record``, the memory
        tool) was a segment a message: a folder of ``raw/``, a source in the session note and a row in the
        index each, which made such a chat's notes 1.21x its raw text (docs/benchmarks.md, session 21).
        """
        name = slugify(slug)
        # its name exactly (a "-2" may be another session's own name), the latest by time ("2024-03-02__x"
        # before "2024-03-02T18-05__x", which a plain sort puts the other way round)
        ours = [f for f in self.workspace.segment_files() if f.parent.name.partition("__")[2] == name]
        if not ours:
            return None
        last = max(ours, key=lambda f: f.parent.name.partition("__")[0].replace("T", " "))
        text = self.workspace.read_raw(last)
        held = [u for line in text.split("\n") if (u := parse_raw_line(line)) is not None]
        latest = f"{RAW_DIR}/{last.parent.name}/{UNITS_FILE}"
        if not (held and text.endswith("\n") and talks.goes_on(held[-1].time, len(held), units[0].time, len(units))):
            return None  # (a last line cut by an edit outside horma: a new segment, not an error each record)
        return latest if self._starts_talk(latest) else None

    def _starts_talk(self, seg: str) -> bool:
        """Whether ``seg`` is the first segment of its talk, as the index says (a workspace recorded before
        session 21 has a segment a message, each but the first continuing a talk: those are not appended to,
        and its talk goes on as before); True when the index does not know it yet."""
        from horma.core import index_schema
        from horma.index import index_folder

        try:
            conn = index_schema.connect(str(index_folder(self.workspace)), readonly=True)
        except index_schema.IndexError_:
            return True
        try:
            row = conn.execute(f"SELECT {talks.talk_column(conn)} = s.id FROM segments s WHERE path = ?",
                               (seg,)).fetchone()
        except sqlite3.OperationalError:  # an index from before talks: none continues another
            return True
        finally:
            conn.close()
        return row is None or bool(row[0])

    def mark_all_pending(self) -> None:
        """Log that every archived segment needs organizing again (callers hold the writer lock).

        Logged before any note is rebuilt: a run killed part-way leaves the rest
        pending, and the next record or reorganize finishes it.
        """
        self._log(REORGANIZE_EVENT, "*")
        self._read_log()

    def organize_pending(self, progress: Callable[[int, int], None] | None = None) -> list[str]:
        """Organize every archived segment no policy has finished with, as one run; the segments.

        ``horma reorganize`` marks every segment pending and calls this;
        ``progress`` hears (done, total) after each segment.
        """
        with self.workspace.writer():
            pending = self.pending_segments()
            for n, seg in enumerate(pending, 1):
                self._organize(seg)
                if progress is not None:
                    progress(n, len(pending))
            if pending:
                self.commit_notes(pending)
        return pending

    @contextmanager
    def one_run(self) -> Iterator[None]:
        """Make the records inside one manager run: one commit of the notes at the end, not one per record.

        For bulk ingest (``horma ingest`` records a whole source this way): a
        commit costs a few file writes, which add up over hundreds of sessions.
        A run that ends normally after more than one segment also rewrites the
        index at its smallest (an interrupted one leaves that to the next run).
        """
        if self._run is not None:
            yield
            return
        self._run = []
        try:
            yield
        finally:
            segments, self._run = self._run, None
            if segments:
                with self.workspace.writer():
                    self.commit_notes(segments)
        if len(segments) > 1:  # a finished bulk run (not an interrupted one) ends with the index at its smallest
            self._compact_index(segments)

    def commit_notes(self, segments: list[str]) -> str | None:
        """One commit of notes/ and INDEX.md for this run (see :mod:`horma.history`); None when unchanged.

        The units and notes are already on disk: a history that cannot be written
        now must not fail the record. The failure is logged (ingest.log and the
        logger) and the next commit, a snapshot of every note, catches up.
        """
        from horma.history import NotesHistory

        if self._history is None:
            self._history = NotesHistory(self.workspace)
        names = ", ".join(s.split("/")[-2] for s in segments[:3])
        if len(segments) > 3:
            names += f" (+{len(segments) - 3} more)"
        try:
            return self._history.commit(f"{self.policy} manager: organized {names}")
        except Exception as exc:  # dulwich and the OS raise many kinds; each is logged
            _logger.warning("%s: notes history not written (%s: %s); the next record catches up",
                            self.workspace.root, type(exc).__name__, exc)
            self._log("history_behind", segments[-1], error=f"{type(exc).__name__}: {exc}"[:300])
            return None

    def _compact_index(self, segments: list[str]) -> None:
        """Rewrite the index at its smallest after a bulk run, whose many small transactions leave it about
        4% over (``horma.index.compact``). Every unit and note is already indexed: an index that cannot be
        rewritten now (a full disk) fails nothing; it is logged (ingest.log and the logger) and stays usable."""
        from horma.index import compact  # here, not at import: it brings numpy and the embedder (~50 ms)

        try:
            compact(self.workspace)
        except WorkspaceError as exc:
            _logger.warning("%s: search index not compacted (%s)", self.workspace.root, exc)
            self._log("index_not_compacted", segments[-1], error=str(exc)[:300])

    def close(self) -> None:
        super().close()
        if self._history is not None:
            self._history.close()
            self._history = None

    def segment_units(self, seg: str) -> list[Unit]:
        """The units of an archived segment, in file order."""
        lines = self.workspace.read_raw(self.workspace.resolve(seg)).split("\n")
        return [u for line in lines if (u := parse_raw_line(line)) is not None]

    def _organize(self, seg: str, units: list[Unit] | None = None) -> None:
        """Run the policy on one archived segment (under the writer lock); what it cost, the record's Meter sees."""
        units = self.segment_units(seg) if units is None else units
        done = self.impl.organize(self, OrganizeTask(seg, units, self.domain, self.skills_dir))
        if done.stopped is not None:
            self._log("stopped", seg, **done.stopped)
        self._log("organized", seg, units=len(units), policy=self.policy)
        self._organized.add(seg)
        self._settled.add(seg)


POLICIES = policy_names("manager")

__all__ = ["INGEST_LOG", "POLICIES", "Manager", "RecordResult", "check_units"]
