"""Host-side file access never follows links out of the workspace; dangling links are reported, not fatal."""

from __future__ import annotations

import json
import os

import pytest

import horma
from horma.agents.notebook import NoteBook
from horma.core import index as hi
from horma.workspace import Unit
from tests.wsstate import cli

SECRET = "TOPSECRET-outside-the-workspace"


@pytest.fixture
def planted(tmp_path):
    """A workspace whose notes/ holds what an agent with write access could plant: links out, a dangling one."""
    outside = tmp_path / "outside"
    (outside / "dir").mkdir(parents=True)
    (outside / "secret.md").write_text(f"---\ntitle: {SECRET}\n---\n{SECRET}\n")
    (outside / "dir" / "inner.md").write_text(f"---\ntitle: {SECRET}\n---\n{SECRET}\n")
    with horma.Memory(tmp_path / "ws", sandbox="local") as mem:
        mem.record([Unit("u1", "2024-01-01 10:00", "Ann", "Ann adopted a cat named Miso")], slug="s1")
        notes = mem.workspace.root / "notes"
        (notes / "entities").mkdir(exist_ok=True)
        os.symlink(outside / "secret.md", notes / "entities" / "secret.md")
        os.symlink(outside / "dir", notes / "linkdir")
        os.symlink(tmp_path / "nowhere.md", notes / "dangling.md")
        os.symlink("/etc", notes / "etc")
        yield mem, outside


def test_tree_lists_links_without_following_them(planted):
    mem, _ = planted
    r = cli("tree", mem.workspace.root, "--depth", "4")
    assert r.code == 0 and r.exception is None, r.stderr
    assert "passwd" not in r.stdout and "inner.md" not in r.stdout
    assert "etc -> /etc" in r.stdout and "dangling.md ->" in r.stdout and "(dangling)" in r.stdout
    r = cli("tree", mem.workspace.root, "--json", "--depth", "4")
    assert r.code == 0 and r.exception is None, r.stderr
    counts = json.loads(r.stdout)
    assert "notes/etc" not in counts and "notes/linkdir" not in counts and counts["notes"] >= 4


def test_show_refuses_a_link_out_of_the_workspace(planted):
    mem, _ = planted
    for path in ("notes/entities/secret.md", "notes/linkdir/inner.md", "notes/etc/passwd"):
        r = cli("show", mem.workspace.root, path)
        assert r.code == 4 and r.exception is None and SECRET not in r.stdout and "root:" not in r.stdout
        assert "leaves the workspace" in r.stderr
    r = cli("show", mem.workspace.root, "notes/dangling.md")
    assert r.code == 4 and r.exception is None and "leaves the workspace" in r.stderr
    os.symlink("missing.md", mem.workspace.root / "notes" / "dangling-inside.md")
    r = cli("show", mem.workspace.root, "notes/dangling-inside.md")
    assert r.code == 3 and r.exception is None and "no such file" in r.stderr


def test_the_manager_neither_reads_nor_writes_through_links(planted):
    mem, outside = planted
    before = {p: p.read_bytes() for p in outside.rglob("*") if p.is_file()}
    book = NoteBook(mem.workspace)
    assert book._read("notes/entities/secret.md") is None  # not parsed from outside
    assert SECRET not in book.noted  # entity titles are not read through the link
    mem.record([Unit("u2", "2024-01-02 10:00", "Ann", "Ann took Miso to the vet; Secret the dog came too")],
               slug="s2")
    assert {p: p.read_bytes() for p in outside.rglob("*") if p.is_file()} == before
    assert all(mem.workspace.inside(p) for p in mem.workspace.note_files())


def test_the_index_skips_links_and_search_never_reads_outside(planted):
    mem, _ = planted
    r = cli("index", mem.workspace.root, "--rebuild", "--json")
    assert r.code == 0 and r.exception is None, r.stderr
    with hi.SearchIndex.open(str(mem.workspace.root / ".horma" / "index")) as idx:
        assert not any("linkdir" in p or "secret" in p or "etc" in p for p in idx.indexed_notes())
    ctx = mem.recall(f"{SECRET} Miso", budget=200)
    assert SECRET not in ctx.text and "Miso" in ctx.text


def test_a_raw_segment_linked_out_is_not_archive(planted, tmp_path):
    mem, _ = planted
    fake = tmp_path / "fake"
    fake.mkdir()
    (fake / "units.log").write_text(f"x1 | 2024-01-01 | evil: {SECRET}\n")
    os.symlink(fake, mem.workspace.root / "raw" / "2020-01-01__fake")
    assert "x1" not in horma.workspace.Workspace.open(mem.workspace.root).unit_ids()
    with hi.SearchIndex.open(str(mem.workspace.root / ".horma" / "index")) as idx:
        idx.sync(str(mem.workspace.root), rebuild=True)
    assert SECRET not in mem.recall(SECRET, budget=200).text
