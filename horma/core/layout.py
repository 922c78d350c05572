"""The workspace layout: folder and file names, and how a helper finds its workspace and index.

Stdlib only, like all of ``horma.core``: the sandbox helpers import it.
"""

from __future__ import annotations

import errno
import os

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


def inside(root: str, path: str) -> bool:
    """Whether ``path``, links followed, lies in ``root``: the index reads nothing a link points elsewhere."""
    real, base = os.path.realpath(path), os.path.realpath(root)
    return real.startswith(base.rstrip(os.sep) + os.sep)


def read_line(root: str, path: str, offset: int, cache: dict) -> str:
    """The raw line at ``offset`` of ``root/path`` (files stay open for the process's life)."""
    fh = cache.get(path)
    if fh is None:
        full = os.path.join(root, path)
        if not inside(root, full):
            raise OSError(errno.ELOOP, "a link out of the workspace")
        fh = cache[path] = open(full, "rb")  # noqa: SIM115 - kept open in the cache on purpose (see the docstring)
    fh.seek(offset)
    return fh.readline().decode("utf-8", errors="replace").rstrip("\n")
