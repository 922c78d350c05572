"""`horma forget`: units removed from every file of the workspace, history objects and packs included."""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
import zlib
from pathlib import Path

import pytest
from test_memory import SESSION_1, SESSION_2  # tests/ is on sys.path under pytest
from typer.testing import CliRunner

import horma
from horma.cli import app
from horma.history import NotesHistory
from horma.index import index_folder
from horma.sandbox import View, open_sandbox
from horma.workspace import Unit, Workspace

runner = CliRunner()

SECRET = [
    Unit("T3:1", "2024-03-05 20:00", "Ana", "My locker at the Quixotic Zeppelin gym opens with code QX7391."),
    Unit("T3:2", "2024-03-05 20:01", "Ben", "Good to know."),
    Unit("T3:3", "2024-03-05 20:02", "Ana", "The spare key hides under the ceramic narwhal at Quixotic Zeppelin."),
]
SESSION_4 = [Unit("T4:1", "2024-04-01 10:00", "Ben", "Ana, how did the Vigo trip on Gull end?")]
# Not a word of hex digits alone: commit and pack ids are hex, and "7391" turned up in one by chance.
FORGOTTEN_WORDS = [b"quixotic", b"zeppelin", b"narwhal", b"qx7391", b"locker"]


def cli(*args):
    return runner.invoke(app, [str(a) for a in args])


def everything(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def inflated(data: bytes):
    """Every zlib stream in ``data`` (loose git objects are one; a pack holds one per object)."""
    for i in range(len(data) - 1):
        if data[i] == 0x78 and data[i + 1] in (0x01, 0x5E, 0x9C, 0xDA):
            try:
                yield zlib.decompressobj().decompress(data[i:])
            except zlib.error:
                continue


def copies(root: Path, words: list[bytes]) -> list[str]:
    """Files (and the zlib streams inside them) holding any of ``words``, case-insensitively; names too."""
    found = []
    for p in sorted(root.rglob("*")):
        rel = p.relative_to(root).as_posix()
        if any(w.decode() in rel.lower() for w in words):
            found.append(f"{rel} (name)")
        if not p.is_file():
            continue
        data = p.read_bytes()
        for chunk in (data, *inflated(data)):
            if any(w in chunk.lower() for w in words):
                found.append(rel)
                break
    return found


def index_terms(ws: Workspace, tmp_path: Path) -> set[str]:
    """Every term of both FTS5 tables (postings are prefix-compressed: a byte search cannot see them)."""
    db = tmp_path / "copy.db"
    shutil.copy(index_folder(ws) / "search.db", db)
    conn = sqlite3.connect(db)
    terms = set()
    for table in ("unit_text", "note_text"):
        conn.execute(f"CREATE VIRTUAL TABLE v_{table} USING fts5vocab({table}, 'row')")
        terms |= {r[0] for r in conn.execute(f"SELECT term FROM v_{table}")}
    conn.close()
    return terms


@pytest.fixture
def memory_ws(tmp_path) -> Workspace:
    """Four sessions, the third holding the secret; a recall that selected it left a trajectory."""
    with horma.Memory(tmp_path / "mem", sandbox="local") as mem:
        for units, slug in ((SESSION_1, "boat"), (SESSION_2, "trip"), (SECRET, "gym"), (SESSION_4, "later")):
            mem.record(units, slug=slug)
        ctx = mem.recall("What is the code of the locker at the Quixotic Zeppelin gym?", budget=200)
    assert "T3:1" in ctx.refs
    ws = mem.workspace
    assert len(NotesHistory(ws).log()) == 4
    assert copies(ws.root, FORGOTTEN_WORDS)  # the secret is in raw/, notes, index, history and trajectories
    return ws


def test_forgotten_units_are_nowhere_in_the_workspace_and_the_others_are_intact(memory_ws, tmp_path):
    ws = memory_ws
    assert {"quixot", "zeppelin", "narwhal", "qx7391"} <= index_terms(ws, tmp_path)
    kept_before = [r.unit for r in ws.iter_raw() if r.unit.id not in ("T3:1", "T3:3")]
    done = cli("forget", ws.root, "--unit", "T3:1", "--unit", "T3:3", "--yes")
    assert done.exit_code == 0, done.output
    listed, summary = done.stdout.splitlines()[:2], done.stdout.splitlines()[-1]
    assert [line.split(" | ")[0] for line in listed] == ["T3:1", "T3:3"] and "QX7391" in listed[0]
    assert summary.startswith("forgot 2 units: 1 raw file, ") and summary.endswith("search index rebuilt")
    assert int(re.search(r"(\d+) \.horma logs?", summary).group(1)) >= 1, summary  # the trajectories that held them

    assert copies(ws.root, FORGOTTEN_WORDS) == []
    assert not {"quixot", "zeppelin", "narwhal", "qx7391", "locker"} & index_terms(ws, tmp_path)
    assert not list(ws.meta.glob("history.*"))  # the old repository is gone, not set aside
    ws = Workspace.open(ws.root)
    assert [r.unit for r in ws.iter_raw()] == kept_before  # the others, unchanged, in order
    assert ws.provenance("raw/2024-03-05T20-00__gym/units.log", 2, 2) == ["T3:2"]  # same line number
    assert len(NotesHistory(ws).log()) == 5  # every run kept (rewritten), plus the forget
    with horma.Memory(ws, sandbox="local") as mem:
        ctx = mem.recall("Where does Ana keep Gull, which berth?", budget=100)
        assert "T1:3" in ctx.refs
        ctx = mem.recall("What is the code of the locker at the Quixotic Zeppelin gym?", budget=200)
        assert "T3:1" not in ctx.refs and "QX7391" not in ctx.text


def test_forget_then_recall_in_an_isolated_sandbox(memory_ws, isolated_backend):
    assert cli("forget", memory_ws.root, "--segment", "2024-03-05T20-00__gym", "--yes").exit_code == 0
    assert not (memory_ws.root / "raw/2024-03-05T20-00__gym").exists()  # no unit left: the segment is gone
    assert copies(memory_ws.root, FORGOTTEN_WORDS) == []
    with horma.Memory(Workspace.open(memory_ws.root), sandbox=isolated_backend) as mem:
        ctx = mem.recall("How long did the trip to Vigo take?", budget=60)
        assert mem.retriever.sandbox.backend == isolated_backend
        assert "T2:2" in ctx.refs
        gone = mem.recall("Quixotic Zeppelin locker code", budget=200)
    assert not {"T3:1", "T3:2", "T3:3"} & set(gone.refs) and "QX7391" not in gone.text


def test_selections_narrow_together_and_a_dry_run_changes_nothing(memory_ws):
    before = everything(memory_ws.root)
    out = cli("forget", memory_ws.root, "--actor", "Ana", "--after", "2024-03", "--before", "2024-03-06",
              "--dry-run", "--json")
    assert out.exit_code == 0
    report = json.loads(out.stdout)
    assert report["units"] == ["T3:1", "T3:3"] and report["dry_run"] and report["revisions"] == 5
    assert "raw/2024-03-05T20-00__gym/units.log" in report["raw_files"]
    assert everything(memory_ws.root) == before


@pytest.mark.parametrize("args, message, code", [
    (["--unit", "T9:9"], "no archived unit with id T9:9", 3),  # not_found
    (["--actor", "Nobody"], "no archived unit matches", 3),
    (["--before", "2020-01-01"], "no archived unit matches", 3),
    (["--after", "yesterday"], "expected a time like", 2),  # bad_argument
    (["--segment", "../raw"], "give a raw segment folder", 2),
    ([], "say what to forget", 2),
    (["--match", "  "], "give some text", 2),
    (["--match", "zeppelin", "--json"], "--json cannot ask: pass --yes", 2),
])
def test_refusals_are_one_line_and_change_nothing(memory_ws, args, message, code):
    before = everything(memory_ws.root)
    out = cli("forget", memory_ws.root, *args)
    if "--json" in args:  # the refusal is the one JSON object a script reads
        assert out.exit_code == code and message in json.loads(out.stdout)["error"]["message"] and out.stderr == ""
        return
    assert out.exit_code == code and message in out.stderr and len(out.stderr.strip().splitlines()) == 1, out.stderr
    assert everything(memory_ws.root) == before


def test_no_agent_can_forget(memory_ws, isolated_backend):
    """In the manager's write view: no horma, raw/ read-only, the history and logs invisible."""
    before = everything(memory_ws.root)
    with open_sandbox(memory_ws.root, backend=isolated_backend, view=View.WRITE) as box:
        assert box.exec("command -v horma || python3 -c 'import horma'").exit_code != 0
        assert box.exec("sed -i 's/QX7391/xxxx/' raw/2024-03-05T20-00__gym/units.log").exit_code != 0
        assert box.exec(": > raw/2024-03-05T20-00__gym/units.log").exit_code != 0
        listing = box.exec("ls -A .horma; ls .horma/history 2>&1")
        assert "objects" not in listing.output and "trajectories" not in listing.output
    after = everything(memory_ws.root)
    assert {k: v for k, v in after.items() if k.startswith(("raw/", ".horma/history"))} == \
        {k: v for k, v in before.items() if k.startswith(("raw/", ".horma/history"))}


def test_forget_by_match_lists_asks_and_sums_up_in_one_line(memory_ws):
    before = everything(memory_ws.root)
    dry = cli("forget", memory_ws.root, "--match", "quixotic ZEPPELIN", "--dry-run")
    assert dry.exit_code == 0, dry.output
    assert [line.split(" | ")[0] for line in dry.stdout.splitlines()[:-1]] == ["T3:1", "T3:3"]
    assert dry.stdout.splitlines()[-1].startswith("would forget 2 units from 1 raw file, ")
    declined = runner.invoke(app, ["forget", str(memory_ws.root), "--match", "zeppelin"], input="n\n")
    assert declined.exit_code == 1 and "nothing forgotten (not confirmed" in declined.stderr
    no_answer = runner.invoke(app, ["forget", str(memory_ws.root), "--match", "zeppelin"], input="")
    assert no_answer.exit_code == 1 and "nothing forgotten" in no_answer.stderr
    assert everything(memory_ws.root) == before
    done = runner.invoke(app, ["forget", str(memory_ws.root), "--match", "zeppelin"], input="y\n")
    assert done.exit_code == 0, done.output
    assert "Forget 2 units for good?" in done.stderr
    assert done.stdout.splitlines()[-1].startswith("forgot 2 units: ")
    assert copies(memory_ws.root, [b"zeppelin", b"narwhal", b"qx7391"]) == []
    assert "T3:2" in {r.unit.id for r in Workspace.open(memory_ws.root).iter_raw()}


def test_many_units_are_counted_not_listed_and_progress_hears_each_revision(tmp_path):
    with horma.Memory(tmp_path / "ws", sandbox="local") as mem:
        for day in range(1, 4):
            mem.record([Unit(f"S{day}:{i}", f"2024-05-0{day} 10:{i:02d}", "Ana", f"Chore {i}: water the ficus.")
                        for i in range(30)], slug=f"day-{day}")
    out = cli("forget", tmp_path / "ws", "--match", "ficus", "--dry-run")
    lines = out.stdout.splitlines()
    assert len(lines) == 22 and lines[20] == "… and 70 more units" and lines[21].startswith("would forget 90 units")
    from horma.forget import Selection, forget
    seen = []
    report = forget(Workspace.open(tmp_path / "ws"), Selection.of(texts=["FICUS"]),
                    progress=lambda d, t: seen.append((d, t)))
    assert len(report.units) == 90 and seen == [(i, 4) for i in range(1, 5)] and report.revisions == 4
    assert list(Workspace.open(tmp_path / "ws").iter_raw()) == []


def test_forgetting_one_turn_keeps_the_other_citations_of_its_pointer_line(tmp_path):
    talk = [Unit("P:1", "2024-05-01 09:00", "Ana", "Pepper chewed my slippers; the door code is 4417."),
            Unit("P:2", "2024-05-01 09:01", "Ben", "Pepper is a menace."),
            Unit("P:3", "2024-05-01 09:02", "Ana", "I'll buy Pepper a chew toy.")]
    with horma.Memory(tmp_path / "mem", sandbox="local") as mem:
        mem.record(talk, slug="dog")
        ws = mem.workspace
    page = ws.root / "notes" / "people" / "ana.md"
    seg = next(ws.root.glob("raw/*/units.log")).relative_to(ws.root).as_posix()
    assert f"({seg}:1,3) Ana" in page.read_text()  # one pointer line for the day cites both of her turns
    assert "; 2 mention(s)" in page.read_text()
    done = cli("forget", ws.root, "--unit", "P:1", "--yes")
    assert done.exit_code == 0, done.output
    assert f"({seg}:3) Ana" in page.read_text()  # her other turn's citation stays
    assert "; 1 mention(s)" in page.read_text()  # and the count no longer counts the forgotten one
    assert copies(ws.root, [b"4417", b"slippers"]) == []
