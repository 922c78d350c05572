"""A folder given where a file is expected (and a file where a folder is) says what is wrong, not "no such file"."""

from __future__ import annotations

from pathlib import Path

import pytest

from horma.bench.locomo import DatasetError, load_locomo
from horma.config import Settings
from horma.context import Context
from horma.filecheck import file_problem
from horma.mcp_navigation import do_tree
from horma.mcp_workspaces import Options, Workspaces
from horma.paths import PathRefused
from horma.workspace import Workspace
from tests.wsstate import assert_one_error_line, cli, tree_state


def test_each_kind_of_path_is_named(tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text("x")
    (tmp_path / "d").mkdir()
    (tmp_path / "dangling").symlink_to(tmp_path / "gone")
    assert file_problem(tmp_path / "f.txt") is None
    assert file_problem(tmp_path / "d") == "is a folder, not a file"
    assert file_problem(tmp_path / "nope") == "no such file"
    assert file_problem(tmp_path / "dangling") == "is a broken link"
    assert file_problem(tmp_path / "f.txt" / "x").startswith("no such file (a part of the path is a file")
    assert file_problem("/dev/null") == "is not a regular file"
    assert file_problem(str(tmp_path / "\ud800")) == "is not a valid file name"  # a lone surrogate
    assert file_problem(str(tmp_path / "a\x00b")) == "is not a valid file name"


def test_cli_says_a_folder_is_a_folder(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    folder = tmp_path / "turns"
    folder.mkdir()
    r = cli("ingest", "jsonl", folder, "-w", ws)
    assert_one_error_line(r, f"{folder}: is a folder, not a file")
    assert not ws.exists()  # refused before the workspace is created
    Workspace.init(ws)
    before = tree_state(ws)
    assert_one_error_line(cli("show", ws, "notes"), "notes: is a folder, not a file")
    assert_one_error_line(cli("show", ws, "notes/nope.md"), "notes/nope.md: no such file")
    assert tree_state(ws) == before


def test_loaders_and_the_context_builder_say_it_too(tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match="is a folder, not a file"):
        load_locomo(tmp_path)
    ws = Workspace.init(tmp_path / "ws")
    assert Context("q", 100, ws).select("notes").observation() == "refused: notes: is a folder, not a file"
    assert Context("q", 100, ws).select("notes/x.md").observation() == "refused: notes/x.md: no such file"


def test_mcp_tree_on_a_file_says_it_is_a_file(tmp_path: Path) -> None:
    spaces = Workspaces(Options(Settings().override({"sandbox.backend": "local"})), workspace=tmp_path / "ws")
    with pytest.raises(PathRefused, match=r"INDEX\.md: is a file, not a folder"):
        do_tree(spaces.get(None), "INDEX.md", 2)
    with pytest.raises(PathRefused, match="nope: no such folder"):
        do_tree(spaces.get(None), "nope", 2)
