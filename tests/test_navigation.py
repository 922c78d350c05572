"""The navigator goes through the notes: answers that only the organization can reach.

Real workspaces built by the heuristic manager, recalled through ``horma.Memory``
on every sandbox backend (docker and bwrap skip with their reason where absent).
"""

from __future__ import annotations

import pytest
from conftest import require_backend

import horma
from horma.workspace import Unit

BACKENDS = [pytest.param("local")] + [pytest.param(b, marks=getattr(pytest.mark, b)) for b in ("docker", "bwrap")]

SESSIONS = [
    ("first", "2023-05-08 13:56", [
        Unit("A:1", "2023-05-08 13:56", "Ann", "I went to a pottery class yesterday and it was so calming."),
        Unit("A:2", "2023-05-08 13:57", "Bob", "Lovely. Did you make anything?"),
        Unit("A:3", "2023-05-08 13:58", "Ann", "A lopsided bowl, glazed sea green."),
    ]),
    ("second", "2023-06-20 09:10", [
        Unit("B:1", "2023-06-20 09:10", "Bob", "The marathon training is going well, twenty miles on Sunday."),
        Unit("B:2", "2023-06-20 09:11", "Ann", "Impressive! I only walked the dog today."),
    ]),
]


@pytest.fixture(params=BACKENDS)
def memory(tmp_path, request):
    """A Memory of the two sessions above, on each backend in turn."""
    if request.param != "local":
        require_backend(request.param)
    with horma.Memory(tmp_path / "ws", sandbox=request.param) as mem:
        for slug, time, units in SESSIONS:
            mem.record(units, slug=slug, time=time)
        yield mem


def test_a_turn_reachable_only_through_a_date_the_notes_anchored(memory, tmp_path):
    """"yesterday" in a turn of 8 May is 7 May only in the session note; the question names 7 May."""
    session_note = (tmp_path / "ws" / "notes" / "sessions").glob("*/*first*.md")
    assert "yesterday = 7 May 2023" in next(session_note).read_text(encoding="utf-8")
    got = memory.recall("What did Ann do on 7 May 2023?", budget=60)
    assert "A:1" in got.refs
    assert "pottery class yesterday" in got.text
    # Without the notes' dates the question has no word in common with the turn:
    raw_only = memory.retriever.sandbox.exec(
        "hsearch --layers none --near none --refs -n 0 -- 'What did Ann do on 7 May 2023?'")
    assert "__first/units.log:1:" not in raw_only.output


def test_recall_after_the_index_is_rebuilt_is_the_same(memory):
    from horma.index import index_folder, rebuild

    before = memory.recall("When did Bob run twenty miles?", budget=200)
    (index_folder(memory.workspace) / "search.db").unlink()
    rebuild(memory.workspace)
    after = memory.recall("When did Bob run twenty miles?", budget=200)
    assert before.refs and after.refs == before.refs and after.text == before.text
