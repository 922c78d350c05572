"""The int8 rewrite of the embedding graph, kept on disk for the next process (horma/embed_cache.py)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from horma.embed import Embedder
from horma.embed_cache import STALE_PART, GraphCache

TEXTS = ["Which pet do I have?", "We adopted a cat from the shelter on Saturday.", "ok"]


@pytest.fixture
def cache_home(tmp_path, monkeypatch) -> Path:
    home = tmp_path / "cache"
    monkeypatch.setenv("XDG_CACHE_HOME", str(home))
    return home


def _cached(home: Path) -> list[Path]:
    return sorted((home / "horma" / "embed").glob("int8-*"))


def test_the_rewrite_is_kept_and_the_next_process_loads_it_with_the_same_vectors(cache_home, tmp_path):
    first = Embedder()
    assert first.int8
    (kept,) = _cached(cache_home)
    st = kept.stat()
    assert st.st_mode & 0o777 == 0o600 and st.st_size > 1_000_000
    out = tmp_path / "next.npy"
    done = subprocess.run([sys.executable, "-c", "import sys, numpy as np; from horma.embed import Embedder; "
                           f"e = Embedder(); assert e.int8; np.save(sys.argv[1], e.embed({TEXTS!r}))", str(out)],
                          env={**os.environ, "XDG_CACHE_HOME": str(cache_home)}, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert np.array_equal(np.load(out), first.embed(TEXTS))
    again = kept.stat()
    assert (again.st_ino, again.st_mtime_ns) == (st.st_ino, st.st_mtime_ns)  # read, not rewritten
    assert _cached(cache_home) == [kept]


def test_a_damaged_or_shared_cached_file_is_rewritten_from_the_model(cache_home):
    want = Embedder().embed(TEXTS)
    (kept,) = _cached(cache_home)
    good = kept.read_bytes()
    kept.write_bytes(b"not a graph" * 100)
    damaged = Embedder()
    assert damaged.int8 and np.array_equal(damaged.embed(TEXTS), want)
    assert kept.read_bytes() == good
    kept.chmod(0o666)  # anyone could have written it: not trusted
    inode = kept.stat().st_ino
    shared = Embedder()
    assert shared.int8 and np.array_equal(shared.embed(TEXTS), want)
    assert kept.stat().st_ino != inode and kept.stat().st_mode & 0o777 == 0o600


def test_a_cache_that_cannot_be_written_only_costs_the_rewrite(tmp_path, monkeypatch):
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocked))
    e = Embedder()
    assert e.int8 and e.embed(TEXTS).shape == (3, e.dim)
    assert blocked.read_text() == "not a folder"


def test_no_home_folder_leaves_the_cache_off(tmp_path, monkeypatch):
    """A uid without a passwd entry and no HOME or XDG_CACHE_HOME (a container run as an arbitrary user):
    Path.home() raises RuntimeError, which must not stop the model from loading."""
    import pathlib

    def nowhere() -> Path:
        raise RuntimeError("Could not determine home directory.")

    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.setattr(pathlib.Path, "home", staticmethod(nowhere))
    e = Embedder()
    assert e.int8 and e.embed(TEXTS).shape == (3, e.dim)
    assert GraphCache([], "1").read() is None


def test_one_graph_is_kept_and_a_killed_writers_part_goes(cache_home, tmp_path):
    folder = cache_home / "horma" / "embed"
    folder.mkdir(parents=True)
    older = folder / "int8-0123456789abcdef0123.onnx"  # another version's rewrite
    older.write_bytes(b"old")
    killed = folder / "int8-0123456789abcdef0123.onnx.x1.part"
    killed.write_bytes(b"half")
    then = time.time() - STALE_PART - 5
    os.utime(killed, (then, then))
    writing = folder / "int8-0123456789abcdef0123.onnx.x2.part"  # another process's, in progress
    writing.write_bytes(b"half")
    Embedder()
    graphs = [p for p in folder.iterdir() if p.suffix == ".onnx"]
    assert len(graphs) == 1 and graphs[0] != older and graphs[0].stat().st_size > 1_000_000
    assert sorted(folder.iterdir()) == sorted([graphs[0], writing])


def test_the_name_changes_with_every_input(cache_home, tmp_path):
    src = tmp_path / "model.onnx"
    src.write_bytes(b"weights")
    a = GraphCache([src], "1.20.0").path
    assert GraphCache([src], "1.20.0").path == a
    assert GraphCache([src], "1.21.0").path != a
    src.write_bytes(b"weightz")  # same size, new content
    os.utime(src, ns=(src.stat().st_atime_ns, src.stat().st_mtime_ns + 1))
    assert GraphCache([src], "1.20.0").path != a
