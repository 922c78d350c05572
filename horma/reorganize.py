"""Rebuild the notes from ``raw/``: after ``horma revert``, a manager change, or notes that drifted.

Raw is the record; the manager's notes are derived from it. Reorganizing
commits the notes as they are (so ``horma revert`` can bring them back),
deletes the pages the heuristic manager regenerates (people, entities,
topics, sessions, timeline, state; see :data:`horma.core.layout.MANAGER_KINDS`)
and its names-seen-once log, marks every segment pending in the ingest log, and
lets the chosen manager organize them all again as one notes revision. Notes
someone wrote (an agent's preferences, your own pages) are kept.

Killed part-way, the segments not yet organized stay pending: the next
``horma reorganize`` or any record finishes them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from horma.agents.manager import Manager
from horma.agents.notebook import ONCE_FILE
from horma.core.layout import MANAGER_KINDS
from horma.core.notes import note_kind
from horma.history import NotesHistory
from horma.history_files import sync_notes_index


@dataclass
class Reorganized:
    segments: int
    notes_removed: int
    notes_now: int
    revision: str | None  # the notes history revision of the rebuilt notes (None: nothing changed)

    def as_dict(self) -> dict:
        return dict(self.__dict__)


def reorganize(manager: Manager, progress: Callable[[int, int], None] | None = None) -> Reorganized:
    """Rebuild the manager's notes of ``manager.workspace`` from every raw segment (see the module docstring)."""
    ws = manager.workspace
    with ws.writer():
        with NotesHistory(ws) as history:
            history.commit("before reorganize: notes as they were")
        regenerated = [p for p in ws.note_files() if note_kind(ws.rel(p)) in MANAGER_KINDS]
        manager.mark_all_pending()
        for path in regenerated:
            path.unlink()
        (ws.meta / ONCE_FILE).unlink(missing_ok=True)
        sync_notes_index(ws)
    segments = manager.organize_pending(progress)
    with NotesHistory(ws) as history:
        latest = history.log(limit=1)
        head = latest[0].rev if latest else None
    return Reorganized(len(segments), len(regenerated), len(ws.note_files()), head)
