"""What a long-running server keeps open, and the upkeep it does between requests.

A server lives for weeks and may serve many workspaces. Each open workspace
holds sandbox shells (processes, pipes) and a memory; kept forever they add
up to thousands of file descriptors. :class:`WorkspacePool` keeps at most
``max_open`` workspaces open and closes one idle for ``idle_close`` seconds:
the least recently used first, and never one a call is using (a closed one
reopens on its next call, at the cost of a sandbox start).

Resources belong to the server, not to a client: nothing here is tied to an
MCP session, so one client hanging up never closes another client's sandbox.

:class:`Upkeep` is one background thread for the slow housekeeping a request
must not wait for: compacting a notes history that has piled up packs, and
closing idle workspaces.
"""

from __future__ import annotations

import logging
import queue
import subprocess
import sys
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from horma.history_packs import HISTORY_DIR, needs_compaction

_logger = logging.getLogger(__name__)

MAX_OPEN = 16
IDLE_CLOSE = 900.0  # seconds
COMPACT_AT = 8  # packs in a notes history before the background compacts it


class Closable(Protocol):
    """A served workspace as the pool sees it."""

    name: str

    def close_if_idle(self) -> bool:
        """Close its sandboxes and memory unless a call is using it; whether it did."""
        ...


@dataclass(frozen=True)
class PoolLimits:
    """How many workspaces stay open, and for how long an idle one stays open (None: no time limit)."""

    max_open: int = MAX_OPEN
    idle_close: float | None = IDLE_CLOSE

    def __post_init__(self) -> None:
        if self.max_open < 1:
            raise ValueError(f"max_open must be at least 1, got {self.max_open}")
        if self.idle_close is not None and self.idle_close <= 0:
            raise ValueError(f"idle_close must be positive seconds, got {self.idle_close}")


class WorkspacePool:
    """Least-recently-used open workspaces, closed past ``max_open`` or after ``idle_close`` seconds idle."""

    def __init__(self, limits: PoolLimits, clock: Callable[[], float] = time.monotonic):
        self.limits = limits
        self.clock = clock
        self._open: OrderedDict[str, tuple[Closable, float]] = OrderedDict()  # oldest use first
        self._lock = threading.Lock()
        self.closed = 0  # how many times a workspace was closed to stay in bounds

    def used(self, served: Closable) -> None:
        """``served`` was just used (and is open now); close what the limits say must go."""
        with self._lock:
            self._open[served.name] = (served, self.clock())
            self._open.move_to_end(served.name)
        self._evict(keep=served.name)

    def sweep(self) -> None:
        """Close workspaces idle for longer than ``idle_close``."""
        self._evict(keep=None)

    def open_names(self) -> list[str]:
        with self._lock:
            return list(self._open)

    def _evict(self, keep: str | None) -> None:
        """Oldest first: close each idle too long, then more until ``max_open`` hold; a busy one is skipped."""
        with self._lock:
            candidates = [(served, last) for name, (served, last) in self._open.items() if name != keep]
        now = self.clock()
        for served, last in candidates:
            with self._lock:
                over = len(self._open) > self.limits.max_open
            too_old = self.limits.idle_close is not None and now - last > self.limits.idle_close
            if (over or too_old) and served.close_if_idle():  # a busy one stays open; a later use retries
                with self._lock:
                    entry = self._open.get(served.name)
                    if entry is not None and entry[0] is served:
                        del self._open[served.name]
                self.closed += 1

    def clear(self) -> None:
        with self._lock:
            self._open.clear()


def pack_count(meta: Path) -> int:
    """How many packs a workspace's notes history holds now (one listdir)."""
    try:
        return sum(1 for p in (meta / HISTORY_DIR / "objects" / "pack").iterdir() if p.suffix == ".pack")
    except OSError:
        return 0


def compaction_due(meta: Path) -> bool:
    """Cheap check after each record: a listdir, and the .idx headers only past ``COMPACT_AT`` packs."""
    return pack_count(meta) >= COMPACT_AT and needs_compaction(meta / HISTORY_DIR, COMPACT_AT)


def compact_in_child(root: Path) -> None:
    """Compact a workspace's history in a child process, off the server's GIL; an error names the workspace."""
    done = subprocess.run([sys.executable, "-m", "horma.history_packs", str(root)], capture_output=True,
                          text=True, timeout=600)
    if done.returncode != 0:
        raise RuntimeError(f"{root}: history compaction failed: {done.stderr.strip()[-300:]}")


class Upkeep:
    """One daemon thread for housekeeping outside the request path: history compaction, idle sweeps."""

    def __init__(self, pool: WorkspacePool, sweep_every: float = 30.0):
        self.pool = pool
        self.sweep_every = sweep_every
        self._jobs: queue.Queue[tuple[str, Callable[[], object]] | None] = queue.Queue()
        self._pending: set[str] = set()  # keys queued and not yet run: a workspace is queued once
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._loop, name="horma-upkeep", daemon=True)
        self._thread.start()
        self.done = 0
        self.failed = 0

    def submit(self, key: str, job: Callable[[], object]) -> bool:
        """Queue ``job`` unless a job with ``key`` is already waiting; whether it was queued."""
        with self._lock:
            if key in self._pending:
                return False
            self._pending.add(key)
        self._jobs.put((key, job))
        return True

    def idle(self, timeout: float = 60.0) -> bool:
        """Wait until every queued job has run (tests and benchmarks); whether it happened in time."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self._lock:
                if not self._pending:
                    return True
            time.sleep(0.02)
        return False

    def _loop(self) -> None:
        while True:
            try:
                item = self._jobs.get(timeout=self.sweep_every)
            except queue.Empty:
                self._safely("sweep", self.pool.sweep)
                continue
            if item is None:
                return
            key, job = item
            self._safely(key, job)
            with self._lock:
                self._pending.discard(key)

    def _safely(self, key: str, job: Callable[[], object]) -> None:
        try:
            job()
            self.done += 1
        except Exception as exc:  # upkeep must never kill the thread; each failure is logged
            self.failed += 1
            _logger.warning("upkeep %s failed: %s: %s", key, type(exc).__name__, exc)

    def stop(self) -> None:
        self._jobs.put(None)
        self._thread.join(timeout=30)

    @property
    def running(self) -> bool:
        """Whether the thread still runs (it ends with :meth:`stop`)."""
        return self._thread.is_alive()
