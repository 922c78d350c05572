"""Trajectories kept within a count and a size: the oldest runs go first.

Every recall writes one trajectory (several KB); a server answering recalls
for weeks would fill the disk with them. They exist to debug a run and to
train a retriever, for which the recent ones serve. The caps come from the
config (``trajectories.max_files``, ``trajectories.max_mb``); pruning lists
the folder once every ``PRUNE_EVERY`` new trajectories, so the folder may
overshoot a cap by that many files between prunes, never more.
"""

from __future__ import annotations

import contextlib
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from horma.config import Settings

PRUNE_EVERY = 16


@dataclass(frozen=True)
class TrajectoryCaps:
    """How many trajectory files, and how many bytes of them, a workspace keeps (None: no cap)."""

    max_files: int | None = 2000
    max_bytes: int | None = 64 * 1024 * 1024


_caps = TrajectoryCaps()
_since_prune: dict[str, int] = {}  # folder -> new trajectories since its last prune (one entry per workspace)
_lock = threading.Lock()


def configure(max_files: int | None, max_mb: float | None) -> TrajectoryCaps:
    """Set the caps for this process (from the config); a cap below 1 is an error, None removes it."""
    global _caps
    for name, value in (("trajectories.max_files", max_files), ("trajectories.max_mb", max_mb)):
        if value is not None and value < 1:
            raise ValueError(f"{name} must be at least 1 (or null for no cap), got {value}")
    _caps = TrajectoryCaps(max_files, int(max_mb * 1024 * 1024) if max_mb is not None else None)
    return _caps


def configure_from(settings: Settings) -> TrajectoryCaps:
    """The caps the settings name (``trajectories.*``, range-checked by the settings model)."""
    return configure(settings.trajectories.max_files, settings.trajectories.max_mb)


def caps() -> TrajectoryCaps:
    return _caps


def created(folder: Path) -> None:
    """A trajectory is about to be written in ``folder``: prune it on the first and every PRUNE_EVERY-th."""
    key = str(folder)
    with _lock:
        n = _since_prune.get(key, 0)
        _since_prune[key] = n + 1 if n + 1 < PRUNE_EVERY else 0
    if n == 0:
        prune(folder, _caps)


def prune(folder: Path, limits: TrajectoryCaps) -> list[str]:
    """Delete the oldest trajectories until ``limits`` hold; the names deleted.

    Names start with a UTC timestamp, so name order is age order.
    """
    try:
        with os.scandir(folder) as it:
            files = sorted((e.name, e.stat(follow_symlinks=False).st_size) for e in it
                           if e.name.endswith(".jsonl") and e.is_file(follow_symlinks=False))
    except OSError:
        return []
    total = sum(size for _, size in files)
    removed: list[str] = []
    for name, size in files:
        over_count = limits.max_files is not None and len(files) - len(removed) > limits.max_files
        over_size = limits.max_bytes is not None and total > limits.max_bytes
        if not (over_count or over_size):
            break
        with contextlib.suppress(FileNotFoundError):  # another process pruned it first
            os.unlink(folder / name)
        removed.append(name)
        total -= size
    return removed
