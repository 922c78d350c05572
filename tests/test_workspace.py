"""The workspace: idempotent and atomic archiving, the writer lock, provenance, note parsing."""

from __future__ import annotations

import itertools
import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from conftest import SAMPLE_UNITS, make_workspace

from horma.file_writes import atomic_write
from horma.note import Note, parse_note
from horma.workspace import Unit, Workspace, WorkspaceError


def units(prefix: str, n: int, start: int = 1) -> list[Unit]:
    return [Unit(f"{prefix}:{i}", "2023-06-01 10:00", "Ann", f"line {i} of {prefix}") for i in range(start, start + n)]


def raw_bytes(ws: Workspace) -> dict[str, bytes]:
    return {ws.rel(p): p.read_bytes() for p in ws.raw_files()}


def run_python(code: str, **kwargs) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-c", textwrap.dedent(code)], text=True, **kwargs)


# -- archive ----------------------------------------------------------------------


def test_archive_is_idempotent_by_unit_id(workspace: Workspace):
    before = raw_bytes(workspace)
    with workspace.writer():
        assert workspace.archive(SAMPLE_UNITS, "caroline-melanie") is None
    again = Workspace.open(workspace.root)  # a fresh process's view: ids come from the files
    with again.writer():
        assert again.archive(list(reversed(SAMPLE_UNITS)), "other-slug") is None
        extra = Unit("D1:4", "2023-05-08 14:00", "Melanie", "Good luck!")
        path = again.archive([*SAMPLE_UNITS, extra, extra], "caroline-melanie")
    assert raw_bytes(again) == {**before, path: (extra.line() + "\n").encode()}
    assert sorted(again.unit_ids()) == ["D1:1", "D1:2", "D1:3", "D1:4"]
    assert len({p for p in raw_bytes(again)}) == 2 and path != next(iter(before))


def test_archived_lines_are_self_describing_and_read_only(workspace: Workspace):
    (f,) = workspace.raw_files()
    first = f.read_text().splitlines()[0]
    assert first == "D1:1 | 2023-05-08 13:56 | Caroline: I went to the LGBTQ support group yesterday."
    assert oct(f.stat().st_mode & 0o777) == "0o444"
    assert f.parent.name == "2023-05-08T13-56__caroline-melanie"


@pytest.mark.parametrize("bad", ["", "a b", "x|y", "tab\tid"])
def test_bad_unit_ids_are_refused_and_nothing_is_written(workspace: Workspace, bad: str):
    before = raw_bytes(workspace)
    with workspace.writer(), pytest.raises(WorkspaceError, match="unit id"):
        workspace.archive([Unit(bad, "2023-01-01", "A", "t")], "bad")
    assert raw_bytes(workspace) == before


def test_a_failed_rename_leaves_nothing_half_written(workspace: Workspace, monkeypatch: pytest.MonkeyPatch):
    index = workspace.root / "INDEX.md"
    old_index = index.read_text()

    def crash(src, dst):
        raise OSError("simulated crash before the rename")

    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(OSError, match="simulated"):
        workspace.write_index("# new index\n")
    with workspace.writer(), pytest.raises(OSError, match="simulated"):
        workspace.archive(units("S2", 5), "session-two")
    monkeypatch.undo()
    assert index.read_text() == old_index
    assert not list(workspace.root.rglob("*.tmp"))
    fresh = Workspace.open(workspace.root)
    assert "S2:1" not in fresh.unit_ids()
    with fresh.writer():
        path = fresh.archive(units("S2", 5), "session-two")
    assert [r.unit.id for r in fresh.iter_raw() if r.path == path] == [f"S2:{i}" for i in range(1, 6)]


def test_a_writer_killed_mid_write_leaves_the_old_file_or_none(workspace: Workspace):
    """SIGKILL a process between writing its temp file and renaming it (a slow fsync)."""
    big = [Unit(f"K:{i}", "2023-07-01 09:00", "Bob", "x" * 200) for i in range(2000)]
    proc = run_python(
        f"""
        import os, time
        from horma.workspace import Workspace

        def slow_fsync(fd):
            print("writing", flush=True)
            time.sleep(60)

        os.fsync = slow_fsync
        ws = Workspace.open({str(workspace.root)!r})
        with ws.writer():
            ws.write_index("# half\\n" * 50000)
        """,
        stdout=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stdout.readline() == "writing\n"
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=10)
    assert (workspace.root / "INDEX.md").read_text().startswith("# INDEX")  # the old one, whole
    ws = Workspace.open(workspace.root)
    with ws.writer(timeout=5):  # the dead writer's lock is free again
        path = ws.archive(big, "killed-run")
    assert sum(1 for r in ws.iter_raw() if r.path == path) == 2000


def test_two_processes_never_write_at_the_same_time(workspace: Workspace, tmp_path: Path):
    """Two writers archive overlapping units in turns; each unit lands exactly once."""
    script = """
        import json, sys, time
        from horma.workspace import Unit, Workspace
        ws = Workspace.open(sys.argv[1])
        spans = []
        for round_ in range(15):
            with ws.writer():
                t0 = time.monotonic()
                batch = [Unit(f"C:{i}", "2023-08-01 12:00", sys.argv[2], "hi")
                         for i in range(round_ * 4, round_ * 4 + 8)]
                ws.archive(batch, "concurrent-" + sys.argv[2])
                time.sleep(0.01)
                spans.append((t0, time.monotonic()))
        print(json.dumps(spans))
    """
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", textwrap.dedent(script), str(workspace.root), who],
            stdout=subprocess.PIPE,
            text=True,
        )
        for who in ("A", "B")
    ]
    spans = []
    for p in procs:
        out, _ = p.communicate(timeout=60)
        assert p.returncode == 0
        spans += json.loads(out)
    spans.sort()
    assert all(a_end <= b_start for (_, a_end), (b_start, _) in itertools.pairwise(spans)), \
        "critical sections overlapped"
    ids = [r.unit.id for r in Workspace.open(workspace.root).iter_raw() if r.unit.id.startswith("C:")]
    assert sorted(ids) == sorted(f"C:{i}" for i in range(15 * 4 + 4))


def test_the_lock_times_out_with_a_clear_error_and_readers_do_not_block(workspace: Workspace):
    holder = run_python(
        f"""
        import time
        from horma.workspace import Workspace
        with Workspace.open({str(workspace.root)!r}).writer():
            print("locked", flush=True)
            time.sleep(30)
        """,
        stdout=subprocess.PIPE,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "locked\n"
        with pytest.raises(WorkspaceError, match="another process is writing"), workspace.writer(timeout=0.3):
            pass
        assert [r.unit.id for r in workspace.iter_raw()] == ["D1:1", "D1:2", "D1:3"]
        assert workspace.read_note("notes/people/caroline.md").title == "Caroline"
    finally:
        holder.kill()
        holder.wait()


def test_atomic_write_gives_files_a_normal_mode(tmp_path: Path):
    """Not mkstemp's 0600: a sandbox user other than the writer must be able to read notes."""
    target = tmp_path / "a" / "note.md"
    atomic_write(target, "hello\n")
    mask = os.umask(0)
    os.umask(mask)
    assert target.read_text() == "hello\n" and target.stat().st_mode & 0o777 == 0o666 & ~mask


# -- provenance -------------------------------------------------------------------


def test_provenance_of_raw_and_note_lines(workspace: Workspace):
    (raw,) = [workspace.rel(p) for p in workspace.raw_files()]
    assert workspace.provenance(raw, 1, 2) == ["D1:1", "D1:2"]
    assert workspace.provenance(raw) == ["D1:1", "D1:2", "D1:3"]
    note = "notes/people/caroline.md"
    lines = (workspace.root / note).read_text().splitlines()
    body_line = next(i for i, line in enumerate(lines, 1) if "counseling" in line)
    assert workspace.provenance(note, body_line, body_line) == ["D1:3"]
    assert set(workspace.provenance(note)) == {"D1:1", "D1:3"}
    assert [r.unit.id for r in workspace.raw_lines_for(["D1:3", "D1:1"])] == ["D1:1", "D1:3"]


def test_provenance_refuses_bad_requests(workspace: Workspace):
    with pytest.raises(WorkspaceError, match="leaves the workspace"):
        workspace.provenance("../outside.md")
    with pytest.raises(WorkspaceError, match="no such file"):
        workspace.provenance("notes/missing.md")
    with pytest.raises(WorkspaceError, match="bad line range"):
        workspace.provenance("notes/people/caroline.md", 50, 60)


# -- notes ------------------------------------------------------------------------


def test_note_round_trip(workspace: Workspace):
    note = Note(
        path="notes/events/group.md",
        title="Support group",
        time="2023-05-07",
        body="Caroline went (D1:1).",
        sources=[{"path": "raw/x/units.log", "units": ["D1:1"]}],
        links=["notes/people/caroline.md"],
    )
    with workspace.writer():
        workspace.write_note(note)
    back = workspace.read_note("notes/events/group.md")
    assert (back.title, back.time, back.sources, back.links) == (note.title, note.time, note.sources, note.links)
    assert back.body.strip() == note.body
    with workspace.writer(), pytest.raises(WorkspaceError, match="notes live under"):
        workspace.write_note(Note(path="raw/forged.md", title="x", body=""))


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("# no front matter\n", "has no YAML front matter"),
        ("---\ntitle: A\nbody without the closing fence\n", "not closed"),
        ("---\ntitle: [unclosed\n---\nbody\n", "malformed YAML front matter at line"),
        ("---\n- a\n- b\n---\nbody\n", "must be a mapping"),
        ("---\ntime: 2023\n---\nbody\n", "non-empty 'title'"),
        ("---\ntitle: A\nsources: raw/x/units.log\n---\nbody\n", "'sources' must be a list"),
        ("---\ntitle: A\nlinks: notes/b.md\n---\nbody\n", "'links' must be a list"),
    ],
)
def test_malformed_front_matter_is_a_clear_error(workspace: Workspace, text: str, problem: str):
    with pytest.raises(WorkspaceError, match=problem) as err:
        parse_note("notes/bad.md", text)
    assert str(err.value).startswith("notes/bad.md: ")
    (workspace.root / "notes" / "bad.md").write_text(text)
    with pytest.raises(WorkspaceError, match=problem):
        workspace.read_note("notes/bad.md")


def test_open_refuses_a_folder_that_is_not_a_workspace(tmp_path: Path):
    with pytest.raises(WorkspaceError, match="not a horma workspace"):
        Workspace.open(tmp_path)
    (tmp_path / "stray.txt").write_text("x")
    with pytest.raises(WorkspaceError, match="not empty and is not a horma workspace"):
        Workspace.init(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["stray.txt"]
    assert make_workspace(tmp_path / "ok").unit_ids() == {"D1:1", "D1:2", "D1:3"}
