"""Which unit ids the raw archive holds, and in which units file: read from ``raw/`` itself, kept between calls.

The raw files are the source of truth for which units exist (there is no
second manifest that a crash could leave out of step), so every record sorts
its batch against them. Reading every units file per record would grow with
the archive; this cache reads a file again only when it changed:

- ``raw/``'s (mtime, link count) changes whenever a segment folder is added,
  and a writer that appends to a segment touches ``raw/`` (:meth:`ArchiveIds.grew`);
  while it is unchanged nothing is listed;
- each file's ids are kept with the size they were read at: a segment is only
  ever appended to, so a file of the same size holds the same units, and one
  that grew (another process appended to it) is read again.
"""

from __future__ import annotations

import bisect
import contextlib
import os
import time
from collections.abc import Callable, Iterable
from pathlib import Path

from horma.core.layout import RAW_DIR
from horma.core.text import parse_unit


def ids_in(text: str) -> frozenset[str]:
    """The unit ids in a units file's text."""
    return frozenset(parts[0] for line in text.split("\n") if (parts := parse_unit(line)) is not None)


class ArchiveIds:
    """The ids of one workspace's archive, by units file; ``list_files`` lists ``raw/*/units.log`` in order and
    ``read`` reads one (both the workspace's: links out of it skipped, a clear error on bad text)."""

    def __init__(self, root: Path, list_files: Callable[[], list[Path]], read: Callable[[Path], str]):
        self.raw = root / RAW_DIR
        self._list, self._read = list_files, read
        self._by_file: dict[Path, tuple[int, frozenset[str]]] = {}  # file -> (bytes read, its ids)
        self._files: list[Path] | None = None
        self._sig: tuple[int, int] | None = None
        self._ids: set[str] = set()

    def signature(self) -> tuple[int, int] | None:
        """``raw/``'s (mtime, link count): adding a segment folder bumps the link count even within one mtime
        tick, so one stat tells whether the archive grew instead of listing thousands of folders per record."""
        try:
            st = os.stat(self.raw)
        except OSError:
            return None
        return st.st_mtime_ns, st.st_nlink

    def ids(self) -> set[str]:
        """Every archived unit id, seeing what other processes added since the last call."""
        sig = self.signature()
        if sig is not None and sig == self._sig:
            return self._ids
        sizes = {f: n for f in self._list() if (n := _size(f)) >= 0}  # a file forget removed since listed: gone
        files = list(sizes)
        if files != self._files or any(self._by_file.get(f, (-1,))[0] != n for f, n in sizes.items()):
            by_file = {}
            for f in files:
                known = self._by_file.get(f)
                if known is None or known[0] != sizes[f]:
                    text = self._read(f)
                    known = (len(text.encode("utf-8")), ids_in(text))
                by_file[f] = known
            self._by_file = by_file
            self._ids = set().union(*(held for _, held in by_file.values()))
            self._files = files
        self._sig = sig if self._complete(sig) else None
        return self._ids

    def files(self) -> list[Path]:
        """The units files, listed again only when ``raw/`` changed."""
        self.ids()
        return list(self._files) if self._files is not None else self._list()

    def holding(self, ids: set[str]) -> list[Path]:
        """The units files holding any of ``ids``: a resent batch reads only those."""
        self.ids()
        return [f for f, (_, held) in self._by_file.items() if not held.isdisjoint(ids)]

    def look_again(self) -> None:
        """List ``raw/`` on the next call, whatever its mtime: a writer's log says another process appended to
        a segment (``horma.agents.manager``), which the mtime may not show (a kill right after the append, a
        file system whose mtime has coarse ticks). The grown file's size then tells it apart."""
        self._sig = None

    def _touch(self) -> None:
        """Move ``raw/``'s mtime on: a later one, not "now", whose tick (a few ms) may still be the last
        change's. Best effort: a writer's log tells other writers too (:meth:`forget`)."""
        try:
            st = os.stat(self.raw)
            os.utime(self.raw, ns=(st.st_atime_ns, max(time.time_ns(), st.st_mtime_ns + 1)))
        except OSError:  # not the owner of raw/ (explicit times need it)
            with contextlib.suppress(OSError):
                os.utime(self.raw)

    def _complete(self, sig: tuple[int, int] | None) -> bool:
        """Whether every folder in ``raw/`` had its units file when listed (none was mid-archive).

        Only then may ``sig`` stand for what was read: a units file renamed into
        its folder later does not change ``raw/``. File systems that do not
        count subfolders in a folder's links (btrfs) never match: they list.
        """
        return sig is not None and self._files is not None and len(self._files) == sig[1] - 2

    def wrote(self, f: Path, text: str, new: Iterable[str], known: set[str], appended: bool) -> None:
        """Note what a writer (holding the writer lock) just wrote to ``f``, whole ``text``: a new segment, or
        ``appended`` units to an existing one, after which ``raw/`` is touched so that other processes look
        again. ``known`` is what :meth:`ids` returned before the write: when it was this cache's current state,
        the write is folded in instead of listing ``raw/`` again on the next call."""
        if appended:
            self._touch()
        held = ids_in(text) if appended else frozenset(new)  # read, not merged: forget may have changed the file
        self._by_file[f] = (len(text.encode("utf-8")), held)
        if known is self._ids and self._files is not None and self._sig is not None:
            self._ids.update(held)
            if not appended:
                bisect.insort(self._files, f)
            sig = self.signature()
            self._sig = sig if self._complete(sig) else None
        else:
            self._files = None
            self._sig = None


def _size(f: Path) -> int:
    try:
        return f.stat().st_size
    except FileNotFoundError:  # removed since listed (horma forget emptied it)
        return -1
