"""The notes history: one commit per manager run, log/diff/revert from the CLI, the index following a revert."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from conftest import make_workspace  # tests/ is on sys.path under pytest
from loopback import LoopbackServer, call
from test_memory import SESSION_1, SESSION_2, loopback_llm
from typer.testing import CliRunner

import horma
from horma.cli import app
from horma.history import NotesHistory
from horma.resources import SANDBOX_BIN
from horma.workspace import Workspace

runner = CliRunner()


def cli(*args: str):
    return runner.invoke(app, [str(a) for a in args])


def tracked(ws: Workspace) -> dict[str, bytes]:
    return NotesHistory(ws).snapshot()


def everything(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def hsearch(ws: Workspace, query: str) -> str:
    out = subprocess.run(["hsearch", "-n", "0", "--", query], cwd=ws.root, capture_output=True, text=True,
                         env={"PATH": f"{SANDBOX_BIN}:/usr/bin:/bin", "HOME": str(ws.root)})
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_every_manager_run_is_one_commit_and_a_run_that_changes_nothing_adds_none(tmp_path):
    with horma.Memory(tmp_path / "mem") as mem:
        mem.record(SESSION_1, slug="boat")
        mem.record(SESSION_2, slug="trip")
        mem.record(SESSION_1, slug="boat")  # every unit already archived: no manager run, no commit
    revs = json.loads(cli("log", tmp_path / "mem", "--json").stdout)["revisions"]
    assert [r["message"] for r in revs] == ["heuristic manager: organized 2024-02-02T18-30__trip",
                                            "heuristic manager: organized 2024-01-10T09-00__boat"]
    assert revs[1]["added"] > 0 and revs[0]["changed"] > 0
    history = NotesHistory(Workspace.open(tmp_path / "mem"))
    assert history.commit("nothing new") is None
    assert set(history.files_at(history.resolve(revs[0]["rev"]))) == set(tracked(history.workspace))
    git = subprocess.run(["git", "--git-dir", str(history.path), "fsck", "--strict"], capture_output=True, text=True)
    assert git.returncode == 0, git.stderr  # a plain git repository any git tool can read


def test_a_bulk_ingest_is_one_run(tmp_path):
    with horma.Memory(tmp_path / "mem") as mem, mem.manager.one_run():
        mem.record(SESSION_1, slug="boat")
        mem.record(SESSION_2, slug="trip")
    log = NotesHistory(mem.workspace).log()
    assert len(log) == 1 and "boat" in log[0].message and "trip" in log[0].message


def test_a_workspace_made_before_the_history_gets_one_at_its_first_commit(tmp_path):
    ws = make_workspace(tmp_path / "ws")
    assert NotesHistory(ws).log() == [] and not (ws.meta / "history").exists()
    assert "no notes history yet" in cli("log", ws.root).stdout
    with ws.writer():
        rev = NotesHistory(ws).commit("first")
    assert rev and NotesHistory(ws).files_at(NotesHistory(ws).resolve(rev)) == tracked(ws)
    assert "notes/people/caroline.md" in tracked(ws)


def test_a_manager_that_deletes_and_garbles_notes_is_undone_with_one_command(tmp_path, isolated_backend):
    ws = Workspace.init(tmp_path / "mem")
    with horma.Memory(ws, sandbox=isolated_backend) as mem:
        mem.record(SESSION_1, slug="boat")
    good = tracked(ws)
    assert any(p.startswith("notes/people/") for p in good)
    vandal = "rm -rf notes/people notes/sessions && echo garbage > INDEX.md && echo junk > notes/timeline.md"
    with LoopbackServer("openai", [call("bash", command=vandal), call("done")]) as srv, \
            horma.Memory(ws, manager="llm", sandbox=isolated_backend, llm=loopback_llm(srv, "openai")) as mem:
        mem.record(SESSION_2, slug="trip")
    assert (ws.root / "INDEX.md").read_text() == "garbage\n" and not (ws.root / "notes/people").exists()
    assert "notes/sessions/" not in hsearch(ws, "Ana marina")  # the model's hindex dropped the dating line
    revs = [r.rev for r in NotesHistory(ws).log()]
    assert len(revs) == 2  # the heuristic run, then the LLM run

    diff = cli("diff", ws.root, revs[1], revs[0])
    assert diff.exit_code == 0 and "-# INDEX" in diff.stdout and "+garbage" in diff.stdout
    done = cli("revert", ws.root, revs[1])
    assert done.exit_code == 0, done.output
    assert tracked(ws) == good
    assert "notes/sessions/" in hsearch(ws, "Ana marina")  # the index's notes followed ("yesterday = 9 January")
    log = NotesHistory(ws).log()
    assert log[0].message == f"revert to {revs[1]}" and len(log) == 3
    assert "raw/2024-02-02T18-30__trip/units.log" in {r.path for r in ws.iter_raw()}  # raw/ untouched
    with horma.Memory(ws, sandbox=isolated_backend) as mem:
        ctx = mem.recall("Which berth at the marina in Porto?", budget=100)
        assert mem.retriever.sandbox.backend == isolated_backend
    assert "T1:3" in ctx.refs


@pytest.mark.parametrize("rev", ["zzzz", "12", "ffffffff", "", "HEAD"])
def test_a_bad_revision_is_one_line_a_nonzero_exit_and_changes_nothing(tmp_path, rev):
    with horma.Memory(tmp_path / "mem") as mem:
        mem.record(SESSION_1, slug="boat")
    before = everything(tmp_path / "mem")
    for args in (("revert", tmp_path / "mem", rev), ("diff", tmp_path / "mem", rev)):
        out = cli(*args)
        assert out.exit_code == 4 and out.stdout == ""
        assert out.stderr.startswith("error:") and len(out.stderr.strip().splitlines()) == 1, out.stderr
    assert everything(tmp_path / "mem") == before


def test_diff_against_now_shows_hand_edits_and_revert_keeps_them_in_the_history(tmp_path):
    with horma.Memory(tmp_path / "mem") as mem:
        mem.record(SESSION_1, slug="boat")
    ws = mem.workspace
    rev = NotesHistory(ws).log()[0].rev
    (ws.root / "notes/people/ana.md").unlink()
    diff = cli("diff", ws.root, rev)
    assert "--- a/notes/people/ana.md" in diff.stdout and "+++ /dev/null" in diff.stdout
    assert cli("revert", ws.root, rev).exit_code == 0
    assert (ws.root / "notes/people/ana.md").is_file()
    assert [r.message for r in NotesHistory(ws).log()][:2] == [f"revert to {rev}", "before revert: notes as they were"]
