"""Kill -9 an ingest while a segment's notes and index are in flight, then run the same ingest again:
every unit is archived, and indexed, exactly once."""

from __future__ import annotations

import collections
import json
import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
ENV = {**os.environ, "PYTHONPATH": str(REPO)}
NAMES = ["Ana", "Ben", "Caro", "Dan"]

# The real `horma ingest jsonl`, whose process blocks (to be killed) at the Nth rename of a host note write
# (FileWriter renames each note into place), at the Nth index commit, or after the Nth merge step of the index
# (its FTS5 segments merged and free pages handed back, not yet committed): mid-segment, notes or index in flight.
BLOCKING_INGEST = """
import os, sqlite3, sys, time
kind, n = sys.argv[1], int(sys.argv[2])
count = [0]
def block():
    count[0] += 1
    if count[0] == n:
        print("blocked", flush=True)
        time.sleep(300)
if kind == "rename":
    real_rename = os.rename
    def rename(*args, **kwargs):
        if str(args[1]).endswith(".md"):
            block()
        return real_rename(*args, **kwargs)
    os.rename = rename
elif kind == "tidy":
    import horma.core.index as hi
    real_tidy = hi.SearchIndex.tidy
    def tidy(self):
        real_tidy(self)
        block()
    hi.SearchIndex.tidy = tidy
else:
    import horma.core.index as hi
    real_exit = hi._Transaction.__exit__
    def exit_(self, exc_type, *exc):
        if self.outer and exc_type is None:
            block()
        return real_exit(self, exc_type, *exc)
    hi._Transaction.__exit__ = exit_
from horma.cli import app
app(sys.argv[3:], prog_name="horma")
"""


def write_units(path: Path, sessions: int, per: int) -> None:
    with path.open("w") as fh:
        for s in range(sessions):
            for i in range(per):
                fh.write(json.dumps({"id": f"s{s}:{i}", "time": f"2024-03-{1 + s:02d} 10:{i:02d}",
                                     "actor": NAMES[i % 4], "session": f"session-{s}",
                                     "text": f"Session {s} turn {i}: {NAMES[i % 4]} sails Gull{s} to cove {i}."})
                         + "\n")


def ingest_args(source: Path, ws: Path) -> list[str]:
    return ["ingest", "jsonl", str(source), "--workspace", str(ws), "--backend", "local"]


def raw_ids(ws: Path) -> collections.Counter:
    out: collections.Counter = collections.Counter()
    for f in (ws / "raw").glob("*/units.log"):
        for line in f.read_text().splitlines():
            if " | " in line:
                out[line.split(" | ", 1)[0]] += 1
    return out


def index_ids(ws: Path) -> collections.Counter:
    with sqlite3.connect(ws / ".horma" / "index" / "search.db") as conn:
        return collections.Counter(uid for (uid,) in conn.execute("SELECT uid FROM units"))


# The whole ingest renames 68 notes into place (8 segments): 25 and 40 fall in the third and fifth.
@pytest.mark.parametrize("kind,n", [("rename", 25), ("rename", 40), ("commit", 3), ("commit", 6), ("tidy", 5)])
def test_ingest_killed_mid_segment_then_rerun_archives_every_unit_once(tmp_path: Path, kind: str, n: int):
    source = tmp_path / "units.jsonl"
    write_units(source, sessions=8, per=50)
    ws = tmp_path / "mem"
    child = subprocess.Popen([sys.executable, "-c", BLOCKING_INGEST, kind, str(n), *ingest_args(source, ws)],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO, env=ENV)
    try:
        line = child.stdout.readline().strip()
        assert line == "blocked", child.stderr.read()
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=10)
    partial = raw_ids(ws)
    assert 0 < len(partial) < 400  # the kill came mid-ingest
    again = subprocess.run([sys.executable, "-m", "horma", *ingest_args(source, ws), "--json"],
                           capture_output=True, text=True, cwd=REPO, env=ENV)
    assert again.returncode == 0, again.stderr
    totals = json.loads(again.stdout)
    assert totals["archived"] + len(partial) == 400
    expected = {f"s{s}:{i}" for s in range(8) for i in range(50)}
    for counted in (raw_ids(ws), index_ids(ws)):
        assert set(counted) == expected and set(counted.values()) == {1}
    with sqlite3.connect(ws / ".horma" / "index" / "search.db") as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        for fts in ("unit_text", "note_text"):
            conn.execute(f"INSERT INTO {fts}({fts}, rank) VALUES('integrity-check', 0)")
    hits = subprocess.run([sys.executable, "-m", "horma", "recall", str(ws), "Where does Gull3 sail?",
                           "--backend", "local"],
                          capture_output=True, text=True, cwd=REPO, env=ENV)
    assert hits.returncode == 0 and "Gull3" in hits.stdout, hits.stdout + hits.stderr
