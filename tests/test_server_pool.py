"""The server's pool of open workspaces and its background upkeep, on real workspaces."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("mcp", reason="the mcp extra is not installed")

from horma.config import Settings
from horma.history import NotesHistory
from horma.history_packs import MAX_PACKS
from horma.mcp_tools import UnitIn, do_recall, do_record
from horma.mcp_workspaces import Options, Workspaces
from horma.server_pool import COMPACT_AT, PoolLimits, WorkspacePool, pack_count


def units(tag: str, n: int) -> list[UnitIn]:
    return [UnitIn(id=f"{tag}:{n}:{i}", time=f"2024-03-{1 + n % 28:02d} 09:{i:02d}", actor="user",
                   text=f"Session {n}: the boat Gull{tag} sailed {n * 3 + i} miles to the marina.") for i in range(3)]


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def spaces(root: Path, limits: PoolLimits) -> Workspaces:
    settings = Settings().override({"sandbox.backend": "local", "sandbox.unsafe_local": True,
                                    "mcp.max_open": limits.max_open, "mcp.idle_close": limits.idle_close or 0})
    return Workspaces(Options(settings), root=root)


def test_the_least_recently_used_idle_workspace_is_closed_and_a_busy_one_never(tmp_path):
    s = spaces(tmp_path / "root", PoolLimits(max_open=2, idle_close=None))
    try:
        a, b, c = (s.get(n, create=True) for n in "abc")
        for served in (a, b):
            do_record(served, units(served.name, 1), "s", "refuse")
            s.after_call(served)
        assert a._memory is not None and b._memory is not None
        with a.lock:  # a call is using a: it stays open past the limit, b (next least recent) goes
            do_record(c, units("c", 1), "s", "refuse")
            s.after_call(c)
            assert a._memory is not None
        assert b._memory is None and s.pool.open_names() == ["a", "c"]
        d = s.get("d", create=True)
        do_record(d, units("d", 1), "s", "refuse")
        s.after_call(d)  # a is free now and the least recently used
        assert a._memory is None and c._memory is not None and d._memory is not None
        assert s.pool.open_names() == ["c", "d"]
        assert "Gulla" in do_recall(a, "Which boat sailed?", 200).text  # reopens on its next call
    finally:
        s.close()


def test_a_workspace_idle_too_long_is_closed_at_the_next_sweep():
    clock = Clock()
    closed: list[str] = []

    class Entry:
        def __init__(self, name: str) -> None:
            self.name = name

        def close_if_idle(self) -> bool:
            closed.append(self.name)
            return True

    pool = WorkspacePool(PoolLimits(max_open=10, idle_close=60), clock=clock)
    pool.used(Entry("old"))
    clock.now = 30
    pool.used(Entry("new"))
    pool.sweep()
    assert closed == []
    clock.now = 61
    pool.sweep()
    assert closed == ["old"] and pool.open_names() == ["new"]
    with pytest.raises(ValueError):
        PoolLimits(max_open=0)


def test_the_history_is_compacted_in_the_background_and_keeps_every_revision(tmp_path):
    s = spaces(tmp_path / "root", PoolLimits())
    try:
        served = s.get("a", create=True)
        meta = served.workspace.meta
        for n in range(COMPACT_AT + 4):
            with served.lock:
                do_record(served, units("a", n), f"s{n}", "refuse")
            s.after_call(served)
            assert s.upkeep.idle(60)
            assert pack_count(meta) <= MAX_PACKS
            if n == COMPACT_AT - 1:  # the first time the mark is reached, everything is compacted into one pack
                assert pack_count(meta) == 1
        assert s.upkeep.done >= 1 and s.upkeep.failed == 0
        log = NotesHistory(served.workspace).log()
        assert len(log) == COMPACT_AT + 4
        history = NotesHistory(served.workspace)
        assert history.files_at(history.head()) == history.snapshot()
        history.close()
    finally:
        s.close()
    assert not s.upkeep.running  # closing the workspaces stops their upkeep thread
