"""What kills and time leave behind: a killed archive's temp file, and trajectories that pile up."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

import horma
from horma import trajectory_store
from horma.cli import app
from horma.forget import Selection, forget
from horma.workspace import Unit, Workspace

REPO = Path(__file__).resolve().parents[1]
SESSION_1 = [Unit(f"a:{i}", f"2024-01-10 09:0{i}", "Ana", f"Ana's boat Gull sails to port number {i}.")
             for i in range(1, 4)]
SECRET = "the vault code is zebra-4471"
SESSION_2 = [Unit("b:1", "2024-02-02 18:30", "Ben", f"Keep this between us: {SECRET}.")]

# The child records session 2 and is killed while the units file is a temp file not yet renamed into place:
# os.replace (atomic_write's rename) announces itself and waits to be killed.
KILLED_ARCHIVE = """
import os, sys, time
import horma
from horma.workspace import Unit
def held(*args, **kwargs):
    print("renaming", flush=True)
    time.sleep(120)
os.replace = held
horma.Memory(sys.argv[1], sandbox="local").record(
    [Unit("b:1", "2024-02-02 18:30", "Ben", sys.argv[2])], slug="secret")
"""


def kill_mid_archive(ws: Path) -> None:
    child = subprocess.Popen([sys.executable, "-c", KILLED_ARCHIVE, str(ws), SESSION_2[0].text],
                             stdout=subprocess.PIPE, text=True, cwd=REPO,
                             env={**os.environ, "PYTHONPATH": str(REPO)})
    try:
        assert child.stdout.readline().strip() == "renaming"
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=10)


def holding(root: Path, text: str) -> list[str]:
    """Every file under ``root`` (hidden ones and .horma/ included) whose bytes contain ``text``."""
    return [p.relative_to(root).as_posix() for p in root.rglob("*")
            if p.is_file() and not p.is_symlink() and text.encode() in p.read_bytes()]


def test_a_killed_archives_temp_file_is_removed_by_the_next_record(tmp_path):
    ws = tmp_path / "mem"
    with horma.Memory(ws, sandbox="local") as mem:
        mem.record(SESSION_1, slug="boat")
    kill_mid_archive(ws)
    left = holding(ws, SECRET)
    assert len(left) == 1 and left[0].startswith("raw/") and left[0].split("/")[-1].startswith(".units.log.")
    with horma.Memory(ws, sandbox="local") as mem:
        result = mem.record(SESSION_2, slug="secret")  # the same record again: archived once, no temp file
    assert result.archived == 1
    assert [p for p in holding(ws, SECRET) if p.startswith("raw/")] == [result.segment]  # once, in its segment
    assert not list((ws / "raw").glob("*/.*.tmp"))


def test_forget_leaves_no_text_of_a_killed_archive(tmp_path):
    ws = tmp_path / "mem"
    with horma.Memory(ws, sandbox="local") as mem:
        mem.record(SESSION_1, slug="boat")
        mem.recall("Where does Gull sail?")
    kill_mid_archive(ws)
    assert holding(ws, SECRET)
    forget(Workspace.open(ws), Selection(units={"a:1", "a:2", "a:3"}))
    assert holding(ws, SECRET) == [] and holding(ws, "port number") == []
    segments = [p.name for p in (ws / "raw").iterdir()]
    assert segments == []  # the killed archive's folder held nothing else: it went too


@pytest.fixture
def caps():
    before = trajectory_store.caps()
    yield
    trajectory_store.configure(before.max_files, before.max_bytes / 2**20 if before.max_bytes else None)


def test_trajectories_stay_within_their_caps_from_the_config(tmp_path, caps, monkeypatch):
    ws = tmp_path / "mem"
    with horma.Memory(ws, sandbox="local") as mem:
        mem.record(SESSION_1, slug="boat")
    monkeypatch.setenv("HORMA_TRAJECTORIES_MAX_FILES", "5")
    runner = CliRunner()
    for i in range(40):
        res = runner.invoke(app, ["recall", str(ws), f"Where does Gull sail, port {i}?", "--backend", "local"])
        assert res.exit_code == 0, res.output
    files = sorted((ws / ".horma" / "trajectories").glob("*.jsonl"))
    assert 5 <= len(files) <= 5 + trajectory_store.PRUNE_EVERY
    assert "port-39" in files[-1].name  # the newest run is kept, the oldest went
    assert not any("port-0" in f.name.split("__")[-1] for f in files)
    monkeypatch.setenv("HORMA_TRAJECTORIES_MAX_FILES", "0")
    res = runner.invoke(app, ["recall", str(ws), "Gull", "--backend", "local"])
    assert res.exit_code != 0 and "trajectories.max_files: input should be greater than or equal to 1" in res.output


def test_a_size_cap_deletes_the_oldest_first(tmp_path):
    folder = tmp_path / "t"
    folder.mkdir()
    for i in range(10):
        (folder / f"2024010{i}T000000Z__retriever__q.jsonl").write_text("x" * 1000)
    removed = trajectory_store.prune(folder, trajectory_store.TrajectoryCaps(max_files=None, max_bytes=4500))
    assert removed == [f"2024010{i}T000000Z__retriever__q.jsonl" for i in range(6)]
    assert len(list(folder.iterdir())) == 4
