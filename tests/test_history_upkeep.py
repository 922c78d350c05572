"""The notes history under faults and over time: stale locks, a history that falls behind, packs and fds."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

from test_memory import SESSION_1, SESSION_2

import horma
from horma.history import NotesHistory
from horma.history_packs import MAX_PACKS, Merge, compact, delta_records, merge_count, open_fds, pack_objects
from horma.workspace import Unit


def session(n: int) -> list[Unit]:
    return [Unit(f"s{n}:{i}", f"2024-03-{1 + n % 28:02d} 10:{i:02d}", "Ana" if i % 2 else "Ben",
                 f"Session {n} line {i}: we talked about boat number {n * 7 + i} and the marina in Porto.")
            for i in range(4)]


def history_fds(path: Path) -> list[str]:
    out = []
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue
        if target.startswith(str(path)):
            out.append(target)
    return out


def fsck(path: Path) -> None:
    git = subprocess.run(["git", "--git-dir", str(path), "fsck", "--strict"], capture_output=True, text=True)
    assert git.returncode == 0, git.stderr


def test_a_dead_writers_ref_lock_is_cleared_and_the_next_record_is_a_revision(tmp_path):
    with horma.Memory(tmp_path / "mem") as mem:
        mem.record(SESSION_1, slug="boat")
        history = NotesHistory(mem.workspace)
        head = history.head()
        # what a writer killed between dulwich's lock and its rename leaves: the lock file, holding a commit id
        lock = history.path / "refs" / "heads" / "main.lock"
        lock.write_bytes(head + b"\n")
        # and what one killed while writing its pack leaves: a temp file, or a pack renamed without its index
        pack_dir = history.path / "objects" / "pack"
        half = [pack_dir / "tmp-horma-dead.idx", pack_dir / ("pack-" + "0" * 40 + ".pack")]
        for f in half:
            f.write_bytes(b"PACK half written")
        result = mem.record(SESSION_2, slug="trip")
    assert result.archived == 3
    assert not lock.exists() and not any(f.exists() for f in half)
    log = NotesHistory(mem.workspace).log()
    assert [r.message for r in log] == ["heuristic manager: organized 2024-02-02T18-30__trip",
                                        "heuristic manager: organized 2024-01-10T09-00__boat"]
    fsck(history.path)


def test_a_record_never_fails_because_the_history_cannot_be_written_and_the_history_catches_up(tmp_path):
    with horma.Memory(tmp_path / "mem") as mem:
        mem.record(SESSION_1, slug="boat")
        history = NotesHistory(mem.workspace)
        packs = history.path / "objects" / "pack"
        shutil.move(packs, tmp_path / "packs-aside")
        packs.write_text("not a folder")  # any write of a pack now fails
        result = mem.record(SESSION_2, slug="trip")
        assert result.archived == 3 and "trip" in result.segment
        events = [json.loads(x) for x in (mem.workspace.meta / "ingest.log").read_text().splitlines()]
        behind = [e for e in events if e["event"] == "history_behind"]
        assert len(behind) == 1 and "trip" in behind[0]["segment"] and behind[0]["error"]
        packs.unlink()
        shutil.move(tmp_path / "packs-aside", packs)
        assert len(NotesHistory(mem.workspace).log()) == 1
        mem.record(session(3), slug="third")
    history = NotesHistory(mem.workspace)
    log = history.log()
    assert len(log) == 2 and "third" in log[0].message
    assert history.files_at(history.head()) == history.snapshot()  # session 2's notes are in it too
    assert b"__trip/units.log" in history.files_at(history.head())["notes/people/ana.md"]  # session 2's line
    fsck(history.path)


def test_packs_stay_bounded_no_pack_stays_open_and_compaction_keeps_every_revision(tmp_path):
    before = open_fds()
    with horma.Memory(tmp_path / "mem") as mem:
        for n in range(MAX_PACKS + 12):
            mem.record(session(n), slug=f"s{n}")
            assert history_fds(mem.workspace.meta / "history") == []  # an idle workspace holds no pack open
        history = NotesHistory(mem.workspace)
        packs = list((history.path / "objects" / "pack").glob("*.pack"))
        assert 1 < len(packs) <= MAX_PACKS
        revisions = history.log()
        assert len(revisions) == MAX_PACKS + 12
        every = {r.id: history.files_at(r.id.encode()) for r in revisions}
        size = sum(p.stat().st_size for p in packs)
        assert history.compact() == len(packs)
        packs_after = list((history.path / "objects" / "pack").glob("*.pack"))
        assert len(packs_after) == 1
        assert sum(p.stat().st_size for p in packs_after) < size / 2  # versions of a note are deltas of each other
        history = NotesHistory(mem.workspace)
        assert {r.id: history.files_at(r.id.encode()) for r in history.log()} == every
        history.close()
        fsck(history.path)
        mem.record(session(99), slug="after")  # a commit after compaction adds a pack beside it
        assert len(list((history.path / "objects" / "pack").glob("*.pack"))) == 2
    assert open_fds() <= before + 2


def test_a_merge_takes_the_small_packs_and_leaves_the_big_one():
    assert merge_count([17] * 7 + [6000]) == 7  # the packs since the last merge, not the history
    assert merge_count([17] * 7 + [100]) == 8  # they add up to half of the big one: everything
    assert merge_count([17, 6000]) == 0 and merge_count([5]) == 0 and merge_count([]) == 0


def test_a_merge_of_packs_without_the_newest_commit_still_stores_each_note_as_deltas(tmp_path):
    with horma.Memory(tmp_path / "mem") as mem:
        for n in range(12):
            mem.record(session(n), slug=f"s{n}")
        history = NotesHistory(mem.workspace)
        repo = history.repo()
        head = repo.head()  # left out, as when the newest pack is bigger than those merged
        objects = {o.id: o for p in repo.object_store.packs for o in p.iterobjects() if o.id != head}
        history.close()
    records = list(delta_records(Merge.of_objects(objects)))
    deltas = [r for r in records if r.delta_base is not None]
    assert len(records) == len(objects)
    assert len(deltas) > len(records) / 3  # the versions of every page and tree, whole only at their newest
    written = set()
    for r in records:  # a base precedes its deltas, so each is an offset delta
        assert r.delta_base is None or r.delta_base in written
        written.add(r.sha())


def test_commits_write_their_own_small_packs_and_merging_keeps_every_revision_readable_by_git(tmp_path):
    with horma.Memory(tmp_path / "mem") as mem:
        for n in range(12):
            mem.record(session(n), slug=f"s{n}")
        history = NotesHistory(mem.workspace)
        assert len(pack_objects(history.path)) == 12  # one pack per commit, nothing merged yet
        every = {r.id: history.files_at(r.id.encode()) for r in history.log()}
        size = sum(p.stat().st_size for p in (history.path / "objects" / "pack").glob("*.pack"))
        history.close()
        assert compact(history.path, mem.workspace.writer) >= 2
        packs = list((history.path / "objects" / "pack").glob("*.pack"))
        assert len(packs) < 12 and sum(p.stat().st_size for p in packs) < size / 2
        fsck(history.path)
        history = NotesHistory(mem.workspace)
        assert {r.id: history.files_at(r.id.encode()) for r in history.log()} == every
        history.close()
