"""A conversation recorded a message at a time goes on in one segment: one folder of raw/, one source in its
session note, one row in the index (horma.agents.manager, horma.core.talks.goes_on)."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

import horma
from horma.agents.heuristic_manager import manage
from horma.agents.manager import Manager
from horma.core import talks
from horma.workspace import Unit, Workspace

REPO = Path(__file__).resolve().parents[1]
ENV = {**os.environ, "PYTHONPATH": str(REPO)}

EVENING = [
    Unit("d:1", "2023-02-12 19:42", "Daniel", "I adopted a dog called Pepper from the shelter in Minneapolis."),
    Unit("d:2", "2023-02-12 19:43", "Assistant", "Congratulations on Pepper! A first walk is a good start."),
    Unit("d:3", "2023-02-12 19:45", "Daniel", "Pepper loves the park near Macalester. We went yesterday."),
    Unit("d:4", "2023-02-12 19:50", "Assistant", "Parks are good for Pepper: keep the lead on near the lake."),
]
LATER = Unit("d:5", "2023-02-12 21:05", "Daniel", "Pepper finally fell asleep on the sofa, out like a light.")


def _units_files(root: Path) -> dict[str, list[str]]:
    return {f.parent.name: [ln.split(" | ", 1)[0] for ln in f.read_text().splitlines()]
            for f in sorted((root / "raw").glob("*/units.log"))}


def _index(root: Path, sql: str) -> list[tuple]:
    with sqlite3.connect(root / ".horma" / "index" / "search.db") as conn:
        return conn.execute(sql).fetchall()


def test_messages_of_one_conversation_go_on_in_one_segment_and_a_pause_starts_another(tmp_path: Path) -> None:
    root = tmp_path / "mem"
    with horma.Memory(root, sandbox="local") as mem:
        done = [mem.record([u], slug="evening") for u in [*EVENING, LATER]]
        assert [r.archived_ids for r in done] == [[u.id] for u in [*EVENING, LATER]]
        first = done[0].segment
        assert [r.segment for r in done[:4]] == [first] * 4 and done[4].segment != first  # 75 minutes later
        # the raw archive: one folder for the four messages, in order, and one for the message after the pause
        assert list(_units_files(root).values()) == [["d:1", "d:2", "d:3", "d:4"], ["d:5"]]
        assert oct((root / first).stat().st_mode & 0o777) == "0o444"
        # the session note: one source with every unit, its turns' dates cited by line, the span brought up to date
        note = mem.workspace.read_note(f"notes/sessions/2023-02/{first.split('/')[1]}.md")
        assert note.sources == [{"path": first, "units": ["d:1", "d:2", "d:3", "d:4"]}]
        assert f"raw: {first} (lines 1-4, units d:1 .. d:4)" in note.body
        assert "- d:3 (line 3) Daniel (yesterday = 11 February 2023)" in note.body
        # a speaker's page cites the conversation once; the index holds each unit once, in its segment
        daniel = (root / "notes/people/daniel.md").read_text()
        assert daniel.count(f"({first}:") == 1
        assert _index(root, "SELECT path, lines FROM segments ORDER BY id") == [(first, 4), (done[4].segment, 1)]
        assert sorted(u for (u,) in _index(root, "SELECT uid FROM units")) == ["d:1", "d:2", "d:3", "d:4", "d:5"]
        assert _index(root, "SELECT count(*) FROM vectors") == [(5,)]
        context = mem.recall("Which park does my dog like?", budget=100)
        assert "d:3" in context.refs, context.text
        # a resend is unchanged, and changes nothing
        again = mem.record([EVENING[1]], slug="evening")
        assert again.segment is None and again.unchanged == ["d:2"]
    assert list(_units_files(root).values()) == [["d:1", "d:2", "d:3", "d:4"], ["d:5"]]


def test_a_mention_page_folds_a_conversations_lines_of_one_day_into_one(tmp_path: Path) -> None:
    root = tmp_path / "mem"
    with horma.Memory(root, sandbox="local") as mem:
        for u in EVENING:  # Pepper's first talk: the name waits for a second one
            mem.record([u], slug="evening")
        for u in (Unit("m:1", "2023-03-04 10:15", "Daniel", "Pepper chewed my running shoes."),
                  Unit("m:2", "2023-03-04 10:16", "Assistant", "Give Pepper a chew toy of her own instead."),
                  Unit("m:3", "2023-03-04 10:18", "Daniel", "Pepper also chewed the Brooks box.")):
            seg = mem.record([u], slug="morning").segment
    pepper = (root / "notes/entities/pepper.md").read_text()
    assert f"- 2023-03-04 ({seg}:1,2,3) Daniel, Assistant" in pepper
    assert pepper.count(f"({seg}:") == 1


def test_a_batch_that_starts_before_the_last_message_or_outgrows_a_talk_starts_a_segment(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "mem"
    with horma.Memory(root, sandbox="local") as mem:
        a = mem.record(EVENING[2:3], slug="evening").segment
        b = mem.record(EVENING[:1], slug="evening").segment  # earlier than the segment's last unit
        c = mem.record(EVENING[1:2], slug="other name").segment
        monkeypatch.setattr(talks, "TALK_UNITS", 2)
        d = mem.record(EVENING[3:4], slug="evening").segment  # goes on in the latest "evening" (one unit)...
        e = mem.record([Unit("d:6", "2023-02-12 19:52", "Daniel", "Off to bed.")], slug="evening").segment
    assert len({a, b, c}) == 3 and d == a and e not in {a, b, c}  # ...which is full at two
    assert list(_units_files(root).values()) == [["d:1"], ["d:2"], ["d:3", "d:4"], ["d:6"]]


def test_another_process_sees_the_units_appended_to_a_segment_it_has_read(tmp_path: Path) -> None:
    root = tmp_path / "mem"
    ws = Workspace.init(root)
    reader = Workspace.open(root)  # another process's view: its own id cache
    with Manager(ws, backend="local") as manager:
        manager.record(EVENING[:1], slug="evening")
        assert reader.unit_ids() == {"d:1"}
        manager.record(EVENING[1:2], slug="evening")
    assert reader.unit_ids() == {"d:1", "d:2"}
    assert [f.parent.name for f in reader.files_holding({"d:2"})] == [_one(root)]
    with Manager(reader, backend="local") as other:  # its resend is recognised, not archived twice
        assert other.record(EVENING[1:2], slug="evening").unchanged == ["d:2"]
    assert list(_units_files(root).values()) == [["d:1", "d:2"]]


def _one(root: Path) -> str:
    (folder,) = _units_files(root)
    return folder


# Records one message at a time, blocking (to be killed) right after the Nth write of a units file: the append
# is on disk, its notes and index are not.
BLOCKING_RECORD = """
import json, os, sys, time
n = int(sys.argv[1])
count = [0]
real_replace = os.replace
def replace(src, dst, *a, **k):
    real_replace(src, dst, *a, **k)
    if str(dst).endswith("units.log"):
        count[0] += 1
        if count[0] == n:
            print("blocked", flush=True)
            time.sleep(300)
os.replace = replace
import horma
with horma.Memory(sys.argv[2], sandbox="local") as mem:
    for line in open(sys.argv[3]):
        mem.record([json.loads(line)], slug="evening")
"""


@pytest.mark.parametrize("n", [2, 3])
def test_a_record_killed_after_its_append_leaves_the_next_one_to_organize_it(tmp_path: Path, n: int) -> None:
    source = tmp_path / "messages.jsonl"
    source.write_text("".join(json.dumps({"id": u.id, "time": u.time, "actor": u.actor, "text": u.text}) + "\n"
                              for u in EVENING))
    root = tmp_path / "mem"
    child = subprocess.Popen([sys.executable, "-c", BLOCKING_RECORD, str(n), str(root), str(source)],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO, env=ENV)
    try:
        assert child.stdout.readline().strip() == "blocked", child.stderr.read()
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=10)
    assert list(_units_files(root).values()) == [[u.id for u in EVENING[:n]]]
    again = subprocess.run([sys.executable, "-c", BLOCKING_RECORD, "0", str(root), str(source)],
                           capture_output=True, text=True, cwd=REPO, env=ENV)
    assert again.returncode == 0, again.stderr
    every = [u.id for u in EVENING]
    assert list(_units_files(root).values()) == [every]
    seg = f"raw/{_one(root)}/units.log"
    assert _index(root, "SELECT path, lines FROM segments") == [(seg, 4)]
    assert sorted(u for (u,) in _index(root, "SELECT uid FROM units")) == every
    note = Workspace.open(root).read_note(f"notes/sessions/2023-02/{_one(root)}.md")
    assert note.sources == [{"path": seg, "units": every}]
    assert note.body.count("- d:3 ") == 1  # organized again after the kill: each turn listed once
    log = [json.loads(ln) for ln in (root / ".horma/ingest.log").read_text().splitlines()]
    assert log[-1]["event"] == "organized" and Manager(Workspace.open(root)).pending_segments() == []


def test_a_conversation_recorded_a_message_at_a_time_gets_the_notes_of_one_recorded_whole(tmp_path: Path) -> None:
    morning = [Unit("m:1", "2023-03-04 10:15", "Daniel", "Pepper chewed my running shoes in Minneapolis."),
               Unit("m:2", "2023-03-04 10:16", "Assistant", "Give Pepper a chew toy of her own instead."),
               Unit("m:3", "2023-03-04 10:18", "Daniel", "Yesterday Pepper also chewed the box from Macalester.")]
    trees = []
    for how in ("whole", "a message at a time"):
        root = tmp_path / how.replace(" ", "-")
        with horma.Memory(root, sandbox="local") as mem:
            for slug, units in (("evening", EVENING), ("morning", morning)):
                for batch in ([units] if how == "whole" else [[u] for u in units]):
                    mem.record(batch, slug=slug)
        trees.append({p.relative_to(root).as_posix(): p.read_text()
                      for p in sorted((root / "notes").rglob("*.md"))} | {"INDEX.md": (root / "INDEX.md").read_text()})
    assert trees[0] == trees[1]
    assert "(raw/2023-02-12T19-42__evening/units.log:1,2,3,4) Daniel, Assistant" in trees[0]["notes/entities/pepper.md"]


# A record that blocks (to be killed) at the touch of raw/ that follows its append: the units file is renamed in,
# raw/'s mtime has not moved.
BLOCKING_TOUCH = """
import os, sys, time
def utime(*a, **k):
    print("blocked", flush=True)
    time.sleep(300)
os.utime = utime
import horma
with horma.Memory(sys.argv[1], sandbox="local") as mem:
    mem.record([{"id": "d:2", "time": "2023-02-12 19:43", "actor": "Assistant", "text": "A first walk helps."}],
               slug="evening")
"""


def test_a_writer_killed_before_it_touches_raw_still_tells_the_others_what_it_appended(tmp_path: Path) -> None:
    root = tmp_path / "mem"
    ws = Workspace.init(root)
    with Manager(ws, backend="local") as other:  # a long-lived writer (an MCP server) with its ids cached
        other.record(EVENING[:1], slug="evening")
        assert ws.unit_ids() == {"d:1"}
        child = subprocess.Popen([sys.executable, "-c", BLOCKING_TOUCH, str(root)], stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True, cwd=REPO, env=ENV)
        try:
            assert child.stdout.readline().strip() == "blocked", child.stderr.read()
        finally:
            child.send_signal(signal.SIGKILL)
            child.wait(timeout=10)
        resent = other.record([Unit("d:2", "2023-02-12 19:43", "Assistant", "A first walk helps.")], slug="evening")
    assert resent.unchanged == ["d:2"] and resent.archived == 0
    assert list(_units_files(root).values()) == [["d:1", "d:2"]]


def test_units_appended_without_session_notes_still_get_a_timeline_line_for_the_whole_segment(tmp_path: Path) -> None:
    ws = Workspace.init(tmp_path / "mem")
    with ws.writer():
        seg = ws.archive(EVENING[:1], "evening", EVENING[0].time)
        manage(ws, seg, EVENING[:1], {"session_notes": False})
        ws.append(EVENING[1:3], seg)
        manage(ws, seg, EVENING[1:3], {"session_notes": False})
    timeline = (tmp_path / "mem/notes/timeline.md").read_text()
    assert f"{seg} (3 units d:1 .. d:3)" in timeline and timeline.count(seg) == 1


def test_a_names_first_talk_keeps_every_mention_across_processes(tmp_path: Path) -> None:
    root = tmp_path / "mem"
    for u in [*EVENING[:3], Unit("m:1", "2023-03-04 10:15", "Daniel", "Pepper chewed my running shoes.")]:
        done = subprocess.run([sys.executable, "-m", "horma", "add", str(root), u.text, "--actor", u.actor,
                               "--time", u.time, "--session", "evening" if u.id.startswith("d") else "morning",
                               "--backend", "local"], capture_output=True, text=True, cwd=REPO, env=ENV)
        assert done.returncode == 0, done.stderr
    page = (root / "notes/entities/pepper.md").read_text()  # named in each message of a talk, then in another
    (evening,) = [f for f in _units_files(root) if f.endswith("__evening")]
    assert f"(raw/{evening}/units.log:1,2,3) Daniel, Assistant" in page, page


def test_a_session_goes_on_in_its_own_folder_by_name_and_time(tmp_path: Path) -> None:
    root = tmp_path / "mem"
    with horma.Memory(root, sandbox="local") as mem:
        own = mem.record([Unit("s:1", "2024-03-02 10:00", "Ana", "Standup: the boat is ready.")], slug="standup-2")
        mem.record([Unit("t:1", "2024-03-02 10:00", "Ana", "Standup: sails mended.")], slug="standup")
        mem.record([Unit("t:2", "2024-03-02 10:01", "Ana", "And the mast too.")], slug="standup")
        mem.record([Unit("n:1", "2024-03-02", "Ana", "A day to remember.")], slug="notes")
        mem.record([Unit("n:2", "2024-03-02 18:05", "Ana", "Dinner at eight.")], slug="notes")
        mem.record([Unit("n:3", "2024-03-02 18:06", "Ana", "Bring wine.")], slug="notes")
    files = _units_files(root)
    assert files[own.segment.split("/")[1]] == ["s:1"]  # "standup-2" is a session of its own, not a copy
    assert sorted(u for f, us in files.items() if f.endswith("__standup") for u in us) == ["t:1", "t:2"]
    assert files["2024-03-02T18-05__notes"] == ["n:2", "n:3"]  # a day's note does not stop the evening going on


def test_a_workspace_that_recorded_a_segment_a_message_goes_on_in_new_segments_of_its_talk(tmp_path: Path) -> None:
    root = tmp_path / "mem"
    ws = Workspace.init(root)
    with Manager(ws, backend="local") as manager:
        for u in EVENING[:2]:  # as before session 21: a segment a message, the second continuing the first's talk
            with ws.writer():
                seg = ws.archive([u], "evening", u.time)
            assert manager.organize_pending() == [seg]
        manager.record(EVENING[2:3], slug="evening")
    assert list(_units_files(root).values()) == [["d:1"], ["d:2"], ["d:3"]]
    assert len({t for _, t in _index(root, "SELECT path, talk FROM segments")}) == 1
