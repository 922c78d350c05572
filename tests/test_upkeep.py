"""`horma add` (one unit, now by default) and `horma reorganize` (notes rebuilt from raw), as a user runs them."""

from __future__ import annotations

import datetime as dt
import json
import os

import pytest
from typer.testing import CliRunner

import horma
from horma.agents.manager import INGEST_LOG
from horma.cli import app
from horma.history import NotesHistory
from horma.workspace import Unit, Workspace

runner = CliRunner()


@pytest.fixture(autouse=True)
def no_user_config(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path_factory.mktemp("xdg")))
    for name in list(os.environ):
        if name.startswith("HORMA_"):
            monkeypatch.delenv(name)


def cli(*args: object) -> dict:
    res = runner.invoke(app, [str(a) for a in args] + ["--backend", "local", "--json"])
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)


def test_add_archives_one_unit_now_and_recall_finds_it(tmp_path):
    ws = tmp_path / "mem"
    before = dt.datetime.now().replace(microsecond=0)
    d = cli("add", ws, "Ana's flight from Lima lands at 9:15am on Friday")
    after = dt.datetime.now()
    (line,) = [r.unit for r in Workspace.open(ws).iter_raw()]
    assert line.actor == "me" and line.text == "Ana's flight from Lima lands at 9:15am on Friday"
    assert before <= dt.datetime.fromisoformat(line.time) <= after and d["unit"] == line.id and d["archived"] == 1
    assert d["segment"].startswith("raw/") and d["segment"].endswith("__notes/units.log")
    ctx = cli("recall", ws, "When does Ana's flight land?", "--budget", "200")
    assert line.id in {ref for item in ctx["items"] for ref in item["refs"]}
    notes = "\n".join(p.read_text() for p in (ws / "notes").rglob("*.md"))
    assert "15am" not in notes  # a clock time is not a key phrase (it used to read "15am")


def test_add_with_actor_time_and_session_and_twice_keeps_one(tmp_path):
    ws = tmp_path / "mem"
    d = cli("add", ws, "Bought a ficus for the balcony", "--actor", "Jun", "--time", "2024-03-02T18:05",
            "--session", "garden log")
    assert d["segment"] == "raw/2024-03-02T18-05__garden-log/units.log" and d["time"] == "2024-03-02 18:05"
    again = cli("add", ws, "Bought a ficus for the balcony", "--actor", "Jun", "--time", "2024-03-02 18:05")
    assert again["archived"] == 0 and again["unit"] == d["unit"]
    assert [r.unit.line() for r in Workspace.open(ws).iter_raw()] == [
        f"{d['unit']} | 2024-03-02 18:05 | Jun: Bought a ficus for the balcony"]


@pytest.mark.parametrize("args, message", [
    (["x", "--time", "next week"], "--time 'next week' is not an ISO date"),
    (["   "], "empty text"),
    (["hi", "--actor", "a: b"], "contains ': '"),
])
def test_add_refuses_bad_input_in_one_line_and_creates_nothing(tmp_path, args, message):
    res = runner.invoke(app, ["add", str(tmp_path / "mem"), *args, "--backend", "local"])
    assert res.exit_code == 2 and message in res.stderr and len(res.stderr.strip().splitlines()) == 1, res.output
    assert not (tmp_path / "mem").exists()


def sessions(ws) -> list[str]:
    return sorted(p.name for p in (ws / "notes" / "sessions").glob("*/*.md"))  # a folder a month


def test_reorganize_after_revert_rebuilds_notes_from_all_of_raw_and_keeps_own_notes(tmp_path):
    ws = tmp_path / "mem"
    with horma.Memory(ws, sandbox="local") as mem:
        mem.record([Unit("A:1", "2024-01-02 09:00", "Ana", "I adopted a cat named Miso.")], slug="one")
        first = NotesHistory(mem.workspace).log()[0].rev
        mem.record([Unit("B:1", "2024-02-03 10:00", "Ana", "Miso learned to open the fridge.")], slug="two")
    res = runner.invoke(app, ["revert", str(ws), first])
    assert res.exit_code == 0 and "horma reorganize" in res.stdout, res.output
    assert sessions(ws) == ["2024-01-02T09-00__one.md"]  # the notes lag raw
    (ws / "notes" / "preferences.md").write_text("---\ntitle: Preferences\n---\n- Ana likes green tea\n")
    d = cli("reorganize", ws)
    assert d["segments"] == 2 and d["revision"]
    assert sessions(ws) == ["2024-01-02T09-00__one.md", "2024-02-03T10-00__two.md"]
    assert "units B:1 .. B:1" in (ws / "notes" / "sessions" / "2024-02" / "2024-02-03T10-00__two.md").read_text()
    assert (ws / "notes" / "preferences.md").read_text().endswith("- Ana likes green tea\n")
    messages = [r.message for r in NotesHistory(Workspace.open(ws)).log()]
    assert messages[1] == "before reorganize: notes as they were" and messages[0].startswith("heuristic manager")
    assert NotesHistory(Workspace.open(ws)).diff(NotesHistory(Workspace.open(ws)).log()[1].rev) != ""
    ctx = cli("recall", ws, "What did Miso learn to open?", "--budget", "200")
    assert "B:1" in {ref for item in ctx["items"] for ref in item["refs"]}


def test_a_reorganize_cut_off_is_finished_by_the_next_record(tmp_path):
    ws = tmp_path / "mem"
    with horma.Memory(ws, sandbox="local") as mem:
        for day in (1, 2, 3):
            mem.record([Unit(f"D{day}:1", f"2024-01-0{day} 09:00", "Ana", f"Day {day} at the pottery studio.")],
                       slug=f"day-{day}")
    done_before = sessions(ws)
    with horma.Memory(ws, sandbox="local") as mem, mem.workspace.writer():
        mem.manager.mark_all_pending()  # as a reorganize killed right after its first step
    assert '"event": "reorganize"' in (ws / ".horma" / INGEST_LOG).read_text()
    with horma.Memory(ws, sandbox="local") as mem:
        assert len(mem.manager.pending_segments()) == 3
        res = mem.record([Unit("D4:1", "2024-01-04 09:00", "Ana", "Glazed the bowl.")], slug="day-4")
        assert len(res.organized) == 4 and mem.manager.pending_segments() == []
    assert sessions(ws) == [*done_before, "2024-01-04T09-00__day-4.md"]


def test_reorganize_refuses_a_folder_that_is_not_a_workspace(tmp_path):
    res = runner.invoke(app, ["reorganize", str(tmp_path), "--backend", "local"])
    assert res.exit_code == 4 and "not a horma workspace" in res.stderr


def test_an_assistant_chat_names_the_user_and_the_assistant(tmp_path):
    ws = tmp_path / "mem"
    with horma.Memory(ws, sandbox="local") as mem:
        mem.record([Unit("s1:1", "2024-03-02 09:15", "user", "My sister Ana lands at 9:15am on Friday."),
                    Unit("s1:2", "2024-03-02 09:16", "assistant", "I will remind you on Friday morning."),
                    Unit("s1:3", "2024-03-02 09:17", "Priya", "I can pick her up.")], slug="chat")
    people = sorted(p.name for p in (ws / "notes" / "people").glob("*.md"))
    assert people == ["priya.md", "the-assistant.md", "the-user.md"]
    user = Workspace.open(ws).read_note("notes/people/the-user.md")
    assert user.title == "the user" and "(raw/2024-03-02T09-15__chat/units.log:1) user" in user.body
    session = Workspace.open(ws).read_note("notes/sessions/2024-03/2024-03-02T09-15__chat.md")
    assert session.title.endswith(": the user, the assistant, Priya") and "participants: the user, the assistant" \
        in session.body
    assert "Memory of Priya, the assistant, the user;" in (ws / "INDEX.md").read_text()
    assert [r.unit.actor for r in Workspace.open(ws).iter_raw()] == ["user", "assistant", "Priya"]  # raw as recorded
    assert "15am" not in "".join(p.read_text() for p in (ws / "notes").rglob("*.md"))
