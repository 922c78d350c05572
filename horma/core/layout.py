"""The workspace layout: folder and file names, and how a helper finds its workspace and index.

Stdlib only, like all of ``horma.core``: the sandbox helpers import it.
"""

from __future__ import annotations

import errno
import os
import stat

LAYOUT_VERSION = 1
RAW_DIR = "raw"
NOTES_DIR = "notes"
META_DIR = ".horma"
INDEX_FILE = "INDEX.md"
UNITS_FILE = "units.log"
INDEX_SUBDIR = "index"  # under .horma/: the search index, the one metadata folder a sandbox sees
INDEX_ENV = "HORMA_INDEX"  # where the helpers find the index inside a sandbox
# What the heuristic manager regenerates from raw (notes/<kind>/... or notes/<kind>.md): every other note
# is someone's own writing (an agent through the memory tool, an LLM manager, a person) and is recalled.
MANAGER_KINDS = frozenset(("people", "entities", "topics", "sessions", "timeline", "state"))
AGENT_DIR = "agent"  # notes/agent/: an agent's own files (the memory tool's /memories); no manager writes it


def workspace_root() -> str:
    """The workspace a helper runs in: the nearest folder up from the cwd holding raw/ or .horma/."""
    d = os.getcwd()
    while True:
        if os.path.isdir(os.path.join(d, RAW_DIR)) or os.path.isdir(os.path.join(d, META_DIR)):
            return d
        parent = os.path.dirname(d)
        if parent == d:
            return os.environ.get("HOME", ".")
        d = parent


def index_dir(root: str) -> str:
    """Where the index lives: ``$HORMA_INDEX`` (set inside sandboxes) or ``<root>/.horma/index``."""
    return os.environ.get(INDEX_ENV) or os.path.join(root, META_DIR, INDEX_SUBDIR)


def segment_file(segment: str) -> str:
    """``2023-05-08T13-56__x`` -> ``raw/2023-05-08T13-56__x/units.log``."""
    return f"{RAW_DIR}/{segment}/{UNITS_FILE}"


def inside(root: str, path: str, base: str | None = None) -> bool:
    """Whether ``path``, links followed, lies in ``root`` (``base``: its real path, when known): the index
    reads nothing a link points elsewhere."""
    real, base = os.path.realpath(path), base or os.path.realpath(root)
    return real.startswith(base.rstrip(os.sep) + os.sep)


class RawLines:
    """Raw lines of one workspace read by their byte offset, each file opened once and only when its path,
    links followed, lies inside the workspace (a ranking reads a line from each of about a hundred segments:
    how that is checked is most of what reading them costs, :meth:`_plain`)."""

    def __init__(self, root: str):
        self.root = root
        self._base = ""
        self._files: dict = {}
        self._plain_dirs: set[str] = set()  # folders under root already found to be no link

    def read(self, path: str, offset: int) -> str:
        """The line at ``offset`` of ``<root>/<path>``, without its newline."""
        fh = self._files.get(path)
        if fh is None:
            full = os.path.join(self.root, path)
            if not self._plain(path):  # a link on the way (or ".."): where does it lead?
                self._base = self._base or os.path.realpath(self.root)
                if not inside(self.root, full, self._base):
                    raise OSError(errno.ELOOP, "a link out of the workspace")
            fh = self._files[path] = open(full, "rb")  # noqa: SIM115 - closed by close()
        fh.seek(offset)
        return fh.readline().decode("utf-8", errors="replace").rstrip("\n")

    def _plain(self, path: str) -> bool:
        """Whether no part of ``path`` under the workspace is a link or "..": then it lies inside, and
        ``os.path.realpath`` (a look-up of every folder from /, 70 us a file) is not needed."""
        parts = path.split(os.sep)
        if os.path.isabs(path) or ".." in parts:
            return False
        at = self.root
        for i, part in enumerate(parts):
            at = os.path.join(at, part)
            if at in self._plain_dirs:
                continue
            try:
                if stat.S_ISLNK(os.lstat(at).st_mode):
                    return False
            except OSError:
                return False
            if i < len(parts) - 1:
                self._plain_dirs.add(at)
        return True

    def close(self) -> None:
        for fh in self._files.values():
            fh.close()
        self._files.clear()

    def __enter__(self) -> RawLines:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
