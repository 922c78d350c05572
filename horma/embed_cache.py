"""The embedding graph's int8 rewrite kept on disk between processes.

Why: :func:`horma.embed_int8.int8_graph` runs the float graph on its calibration texts and rewrites 23 MB
of protobuf at every load, 0.3 of the 0.5 s a process spends loading the model, and every ``horma recall``
or ``horma add`` from a shell is such a process. The rewrite is a pure function of the model, the
tokenizer, the code that rewrites and onnxruntime's version, so its bytes are kept under
``$XDG_CACHE_HOME/horma/embed/`` (``~/.cache`` by default), named by a digest of those inputs.

A cache only ever saves time: a file that cannot be written (a read-only home), read or loaded is
rebuilt from the model, and a changed input is a new name, never a stale graph. One file is kept: writing
one removes the others, and what a writer killed mid-write left.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

PREFIX = "int8-"
SUFFIX = ".onnx"
STALE_PART = 600.0  # seconds: a partial file this old is a killed writer's, not another process's in progress


def cache_folder() -> Path:
    """Raises RuntimeError where no home folder is known (a uid without a passwd entry and no ``HOME``)."""
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "horma" / "embed"


def _digest(inputs: Sequence[Path], runtime: str) -> str:
    """What the rewrite depends on: each input file's path, size, modification time and first MiB (a file
    replaced in place has a new modification time), and the onnxruntime version."""
    h = hashlib.sha256(runtime.encode())
    for path in inputs:
        st = path.stat()
        h.update(f"\0{path.resolve()}\0{st.st_size}\0{st.st_mtime_ns}\0".encode())
        with open(path, "rb") as f:
            h.update(f.read(1 << 20))
    return h.hexdigest()[:20]


class GraphCache:
    """The cached rewrite for one set of inputs."""

    def __init__(self, inputs: Sequence[Path], runtime: str):
        """No place to keep it (no home folder, an input that cannot be read) leaves the cache off."""
        self.path: Path | None = None
        try:
            self.folder = cache_folder()
            self.path = self.folder / f"{PREFIX}{_digest(inputs, runtime)}{SUFFIX}"
        except (OSError, RuntimeError):
            return

    def read(self) -> bytes | None:
        """The cached graph; None when there is none, or it is not this user's alone to write."""
        if self.path is None:
            return None
        try:
            st = self.path.stat()
            if st.st_uid != os.getuid() or st.st_mode & 0o022 or not st.st_size:
                return None
            return self.path.read_bytes()
        except OSError:
            return None

    def drop(self) -> None:
        """Forget a cached graph onnxruntime could not load."""
        if self.path is not None:
            with contextlib.suppress(OSError):
                self.path.unlink()

    def write(self, graph: bytes) -> None:
        """Keep ``graph`` (atomically: a reader sees the whole file or none) and remove every other; best
        effort, a folder that cannot be written only costs the next process the rewrite."""
        if self.path is None:
            return
        try:
            self.folder.mkdir(parents=True, exist_ok=True, mode=0o700)
            fd, tmp = tempfile.mkstemp(prefix=self.path.name + ".", suffix=".part", dir=self.folder)
            try:
                with os.fdopen(fd, "wb") as f:
                    f.write(graph)
                os.replace(tmp, self.path)
            except BaseException:
                os.unlink(tmp)
                raise
        except OSError:
            return
        self._prune()

    def _prune(self) -> None:
        assert self.path is not None  # written just before
        now = time.time()
        for other in self.folder.glob(f"{PREFIX}*"):
            try:
                if other == self.path or (other.name.endswith(".part") and now - other.stat().st_mtime < STALE_PART):
                    continue
                other.unlink()
            except OSError:
                continue
