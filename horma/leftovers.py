"""Files a killed writer leaves behind, removed under the writer lock.

Every host write is a temp file renamed into place (``atomic_write``,
:class:`horma.file_writes.FileWriter`). A kill between the two leaves the temp
file: under ``raw/`` it holds the text of units that were never archived, which
neither a re-run (it writes a new temp file) nor ``horma forget`` (it forgets
archived units) would ever touch. Host writes to ``raw/`` and ``notes/`` happen
only under the writer lock, so a temp file seen while holding it is a dead
writer's. A segment folder left with nothing in it goes too.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from horma.core.layout import NOTES_DIR, RAW_DIR, UNITS_FILE

# atomic_write (mkstemp): ".<name>.<8 random characters>.tmp"; FileWriter: ".<name>.<pid>.<n>.tmp"
_TEMP = re.compile(r"\..+\.([a-z0-9_]{8}|\d+\.\d+)\.tmp")


def clean_leftovers(root: Path) -> list[str]:
    """Remove dead writers' temp files under ``raw/`` and ``notes/`` and emptied segment folders; the caller
    holds the writer lock. Returns the workspace-relative paths removed."""
    removed: list[str] = []
    raw = root / RAW_DIR
    for seg in _subdirs(raw):
        for entry in _entries(seg):
            if entry.name.startswith(f".{UNITS_FILE}.") and _TEMP.fullmatch(entry.name) and _plain(entry):
                os.unlink(entry.path)
                removed.append(f"{RAW_DIR}/{Path(seg).name}/{entry.name}")
        try:
            os.rmdir(seg)  # only an empty folder goes: an archive killed before its units file appeared
            removed.append(f"{RAW_DIR}/{Path(seg).name}")
        except OSError:
            pass
    for folder, _dirs, names in os.walk(root / NOTES_DIR):  # os.walk never enters a linked folder
        for name in names:
            path = os.path.join(folder, name)
            if name.startswith(".") and _TEMP.fullmatch(name) and os.path.isfile(path) and not os.path.islink(path):
                os.unlink(path)
                removed.append(os.path.relpath(path, root).replace(os.sep, "/"))
    return removed


def _subdirs(folder: Path) -> list[str]:
    return [e.path for e in _entries(folder) if e.is_dir(follow_symlinks=False)]


def _entries(folder: Path | str) -> list[os.DirEntry[str]]:
    try:
        with os.scandir(folder) as it:
            return list(it)
    except OSError:
        return []


def _plain(entry: os.DirEntry[str]) -> bool:
    return entry.is_file(follow_symlinks=False)
