"""How the CLI reads: help without type placeholders on flags, counts in English, piped lines unwrapped."""

from __future__ import annotations

import os
import subprocess
import sys

import typer
from typer.testing import CliRunner

from horma.cli import app
from horma.cli.common import plural
from horma.resources import EXAMPLES

runner = CliRunner()


def every_command(group, path: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    if hasattr(group, "commands"):  # a group (typer vendors its own click)
        return [p for name, cmd in sorted(group.commands.items()) for p in every_command(cmd, (*path, name))]
    return [path]


def test_no_help_shows_a_type_beside_a_flag():
    commands = every_command(typer.main.get_command(app))
    assert ("import", "chatgpt") in commands and ("forget",) in commands and len(commands) > 30
    for path in commands:
        res = runner.invoke(app, [*path, "--help"], terminal_width=200)
        assert res.exit_code == 0, (path, res.output)
        assert "<bool>" not in res.output, path
    res = runner.invoke(app, ["forget", "--help"], terminal_width=200)
    assert "--before" in res.output and "<str>" in res.output  # options that take a value keep their type


def test_plural():
    assert [plural(n, "unit") for n in (0, 1, 2, 1500)] == ["0 units", "1 unit", "2 units", "1,500 units"]


def test_piped_output_keeps_long_lines_whole(tmp_path):
    """`horma ... | grep` sees one line per record, never one cut at 80 columns."""
    ws = tmp_path / "mem"
    done = subprocess.run([sys.executable, "-m", "horma", "ingest", "jsonl", str(EXAMPLES / "demo_conversation.jsonl"),
                           "-w", str(ws), "--backend", "local"], capture_output=True, text=True, timeout=120,
                          check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("\n") == 1 and "archived 60 new units in 4 segments (0 already there) into" in done.stdout
    got = subprocess.run([sys.executable, "-m", "horma", "recall", str(ws), "Where is Jun travelling in June, and why?",
                          "--backend", "local"], capture_output=True, text=True, timeout=120, check=False)
    assert got.returncode == 0, got.stderr
    last = got.stdout.strip().splitlines()[-1]
    assert len(last) > 120 and last.endswith(".jsonl") and " tokens · " in last and "sandbox commands · " in last


def test_the_demo_builds_in_one_cache_folder_and_leaves_no_temp_folders(tmp_path):
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache"), "TMPDIR": str(tmp_path / "tmp")}
    (tmp_path / "tmp").mkdir()
    for _ in range(2):
        done = subprocess.run([sys.executable, "-m", "horma", "demo", "--backend", "local"], capture_output=True,
                              text=True, timeout=120, env=env, check=False)
        assert done.returncode == 0, done.stderr
        assert f"horma tree {tmp_path / 'cache' / 'horma' / 'demo'}" in done.stdout
    # the demo's one folder, and the embedding model's rewrite kept for the next process (horma/embed_cache.py)
    assert sorted(p.name for p in (tmp_path / "cache" / "horma").iterdir()) == ["demo", "embed"]
    assert [p.suffix for p in (tmp_path / "cache" / "horma" / "embed").iterdir()] == [".onnx"]
    assert len(list((tmp_path / "cache" / "horma" / "demo" / "raw").iterdir())) == 4  # rebuilt, not added to
    assert [p for p in (tmp_path / "tmp").iterdir() if p.is_dir()] == []  # (a library drops a .ses file there)
    (tmp_path / "cache" / "horma" / "demo" / ".horma" / "workspace.yaml").unlink()  # not ours to delete any more
    refused = subprocess.run([sys.executable, "-m", "horma", "demo", "--backend", "local"], capture_output=True,
                             text=True, timeout=120, env=env, check=False)
    assert refused.returncode == 4 and "is not a horma demo workspace" in refused.stderr
    assert (tmp_path / "cache" / "horma" / "demo" / "raw").is_dir()
