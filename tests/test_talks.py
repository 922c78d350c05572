"""A conversation recorded a message at a time is ranked as one recorded whole (horma.core.talks)."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

from conftest import archive

from horma.core import index_schema
from horma.index import index_folder, open_index, rebuild
from horma.workspace import Unit, Workspace

# Two evenings with an assistant, about a bike and a trip; the answer to "what did they say about the
# frame?" is the reply right after the question, which only its neighbour's words reach.
FIRST = [
    Unit("b:1", "2024-04-02 20:00", "user", "I want a commuter bike for the hill to work, about 900 pounds."),
    Unit("b:2", "2024-04-02 20:01", "assistant", "Look at a hybrid with hydraulic disc brakes and wide gears."),
    Unit("b:3", "2024-04-02 20:03", "user", "Steel or aluminium frame for the commuter bike?"),
    Unit("b:4", "2024-04-02 20:04", "assistant", "Steel rides softer over potholes; aluminium is lighter to carry."),
    Unit("b:5", "2024-04-02 20:06", "user", "Potholes it is, I'll carry it up two stairs only."),
]
SECOND = [
    Unit("t:1", "2024-04-09 19:30", "user", "We're planning a week in Porto in June with my sister."),
    Unit("t:2", "2024-04-09 19:31", "assistant", "June is lovely there: book the Livraria Lello ahead."),
    Unit("t:3", "2024-04-09 19:33", "user", "She wants a port cellar tour in Gaia too."),
    Unit("t:4", "2024-04-09 19:34", "assistant", "Graham's and Taylor's both run tours across the bridge."),
]
QUESTIONS = ["Which frame was suggested for my commuter bike?", "What did we plan in Gaia?",
             "Where am I travelling in June?", "bike"]


def _build(root: Path, per_turn: bool) -> Workspace:
    ws = Workspace.init(root)
    for units, slug in ((FIRST, "bike"), (SECOND, "porto")):
        for batch in ([[u] for u in units] if per_turn else [units]):
            archive(ws, batch, slug)
            rebuild(ws, full=False)
    return ws


def _talks(ws: Workspace) -> list[tuple[str, int]]:
    conn = sqlite3.connect(index_folder(ws) / index_schema.DB_NAME)
    try:
        return conn.execute("SELECT path, talk FROM segments ORDER BY id").fetchall()
    finally:
        conn.close()


def _ranked(ws: Workspace) -> list[list[tuple[str, float]]]:
    with open_index(ws, readonly=True) as s:
        return [[(h.uid, round(h.score, 6)) for h in s.rank(q)] for q in QUESTIONS]


def test_a_segment_a_message_is_one_talk_a_conversation(tmp_path: Path) -> None:
    ws = _build(tmp_path / "turns", per_turn=True)
    talks = _talks(ws)
    assert len(talks) == 9
    assert len({t for p, t in talks if "__bike" in p}) == 1 and len({t for p, t in talks if "__porto" in p}) == 1
    assert {t for p, t in talks if "__bike" in p} != {t for p, t in talks if "__porto" in p}


def test_a_conversation_recorded_a_message_at_a_time_ranks_as_recorded_whole(tmp_path: Path) -> None:
    whole, turns = _build(tmp_path / "whole", per_turn=False), _build(tmp_path / "turns", per_turn=True)
    assert _ranked(turns) == _ranked(whole)
    rebuild(turns, full=True)  # a rebuild reads raw/ again and finds the same talks
    assert _ranked(turns) == _ranked(whole)


def test_another_name_a_long_pause_or_a_number_in_the_name_is_another_talk(tmp_path: Path) -> None:
    ws = Workspace.init(tmp_path / "ws")
    for uid, time, slug in (("a", "2024-05-01 10:00", "chat"), ("b", "2024-05-01 10:00", "chat"),  # chat-2
                            ("c", "2024-05-01 10:05", "notes"), ("d", "2024-05-01 11:00", "notes"),
                            ("e", "2024-05-01 11:10", "session-1"), ("f", "2024-05-01 11:12", "session-2")):
        archive(ws, [Unit(uid, time, "me", f"A line said at {time}.")], slug)
        rebuild(ws, full=False)
    talks = [t for _, t in _talks(ws)]
    assert talks[0] == talks[1]  # raw/...__chat-2: a second segment of one name and minute
    assert len(set(talks)) == 5  # "notes" after another name; an hour later; session-2 is not session-1's


def test_a_rebuild_reads_the_segments_of_one_minute_in_the_order_they_were_archived(tmp_path: Path) -> None:
    """``chat``, ``chat-2`` ... ``chat-12``: their names sort ``chat-10`` before ``chat-2``."""
    ws = Workspace.init(tmp_path / "ws")
    for i in range(12):
        archive(ws, [Unit(f"q:{i}", "2024-05-01 10:00", "user", f"Message {i} of a quick exchange.")], "chat")
        rebuild(ws, full=False)

    def order() -> list[str]:
        conn = sqlite3.connect(index_folder(ws) / index_schema.DB_NAME)
        try:
            return [u for (u,) in conn.execute("SELECT uid FROM units ORDER BY id")]
        finally:
            conn.close()

    assert order() == [f"q:{i}" for i in range(12)]
    rebuild(ws, full=True)
    assert order() == [f"q:{i}" for i in range(12)]


def test_a_talk_ends_after_talk_units(tmp_path: Path, monkeypatch) -> None:
    """An agent that records every few minutes all day under one name is not one conversation."""
    from horma.core import talks

    monkeypatch.setattr(talks, "TALK_UNITS", 4)
    ws = Workspace.init(tmp_path / "ws")
    for i in range(10):
        archive(ws, [Unit(f"l:{i}", f"2024-05-01 10:{i:02d}", "agent", f"Step {i}: checked the oven.")], "log")
        rebuild(ws, full=False)
    talks_ = [t for _, t in _talks(ws)]
    assert talks_ == [talks_[0]] * 4 + [talks_[4]] * 4 + [talks_[8]] * 2 and len(set(talks_)) == 3


def test_an_index_from_before_talks_gets_them_when_opened_to_write(tmp_path: Path) -> None:
    whole, turns = _build(tmp_path / "whole", per_turn=False), _build(tmp_path / "turns", per_turn=True)
    talks = _talks(turns)
    conn = sqlite3.connect(index_folder(turns) / index_schema.DB_NAME)
    conn.execute("ALTER TABLE segments DROP COLUMN talk")
    conn.execute("UPDATE meta SET value='10' WHERE key='version'")
    conn.commit()
    conn.close()
    assert _ranked(turns) != _ranked(whole)  # read as it is (hsearch, read-only): a segment a talk
    rebuild(turns, full=False)
    assert _talks(turns) == talks and _ranked(turns) == _ranked(whole)


def test_hsearch_in_a_sandbox_ranks_a_conversation_recorded_a_message_at_a_time_as_one(
        tmp_path: Path, isolated_backend: str) -> None:
    from horma.sandbox import Limits, open_sandbox

    found = []
    for ws in (_build(tmp_path / "whole", per_turn=False), _build(tmp_path / "turns", per_turn=True)):
        with open_sandbox(ws.root, isolated_backend, "read", limits=Limits(timeout=20)) as box:
            r = box.exec(f"hsearch -n 4 --notes 0 --near none '{QUESTIONS[0]}'")
        assert r.exit_code == 0, r.output
        refs = [line.split(" | ")[0].rsplit(" ", 1)[-1] for line in r.output.splitlines() if " | " in line]
        found.append([re.sub(r"^.*/units\.log:\d+:", "", ref) for ref in refs])  # the unit ids, in order
    assert found[0] and found[1] == found[0], found


def _managed(root: Path, per_turn: bool, units: list[Unit]) -> tuple[Workspace, list[str]]:
    """The heuristic manager's notes of ``units`` (slug from each unit id's prefix), a segment a message or a
    segment a conversation."""
    from horma.agents.heuristic_manager import manage

    ws, segs = Workspace.init(root), []
    with ws.writer():
        for slug in dict.fromkeys(u.id.split(":")[0] for u in units):
            mine = [u for u in units if u.id.startswith(slug + ":")]
            for batch in ([[u] for u in mine] if per_turn else [mine]):
                segs.append(ws.archive(batch, slug, batch[0].time))
                manage(ws, segs[-1], batch)
    return ws, segs


def _pointers(ws: Workspace, rel: str) -> list[str]:
    return [ln for ln in ws.read_note(rel).body.splitlines() if ln.startswith("- ")]


def test_a_talk_recorded_a_message_at_a_time_gets_the_notes_of_one_session(tmp_path: Path) -> None:
    """One session note, one timeline line, and a line a talk in each speaker's page; a name said twice in one
    talk waits for a second talk, as within one segment."""
    named = [Unit("b:6", "2024-04-02 20:07", "assistant", "Ask Halfords about Brompton frames then."),
             Unit("b:7", "2024-04-02 20:08", "user", "A Brompton is too dear, but thanks.")]
    units = [*FIRST, *named, *SECOND, Unit("c:1", "2024-04-20 10:00", "user", "I test-rode a Brompton today.")]
    ws, segs = _managed(tmp_path / "turns", True, units)
    whole, whole_segs = _managed(tmp_path / "whole", False, units)
    bike, porto = segs[:7], segs[7:11]
    assert [s["path"] for s in ws.read_note(f"notes/sessions/2024-04/{bike[0].split('/')[1]}.md").sources] == bike
    assert sorted(p.name for p in (ws.root / "notes/sessions/2024-04").iterdir()) == sorted(
        p.name for p in (whole.root / "notes/sessions/2024-04").iterdir()) == [s.split("/")[1] + ".md" for s in (
            segs[0], segs[7], segs[-1])]
    assert len(_pointers(ws, "notes/timeline.md")) == len(_pointers(whole, "notes/timeline.md")) == 3
    assert sorted(p.name for p in (ws.root / "notes/entities").iterdir()) == sorted(
        p.name for p in (whole.root / "notes/entities").iterdir()) == ["brompton.md"]
    assert _pointers(ws, "notes/people/the-user.md") == [
        f"- 2024-04-02 ({bike[0]}:1) user", f"- 2024-04-09 ({porto[0]}:1) user", f"- 2024-04-20 ({segs[-1]}:1) user"]
    assert _pointers(ws, "notes/people/the-assistant.md") == [
        f"- 2024-04-02 ({bike[1]}:1) assistant", f"- 2024-04-09 ({porto[1]}:1) assistant"]
    assert _pointers(ws, "notes/entities/brompton.md") == [
        f"- 2024-04-02 ({bike[5]}:1) assistant", f"- 2024-04-20 ({segs[-1]}:1) user"]
    assert _pointers(whole, "notes/entities/brompton.md") == [
        f"- 2024-04-02 ({whole_segs[0]}:6,7) assistant, user", f"- 2024-04-20 ({whole_segs[-1]}:1) user"]
