"""Fuzz the unit fields and the main commands: bad input is one error line, a non-zero exit, an unchanged workspace.

Each command runs in-process (typer's runner), so a few hundred examples take seconds.
"""

from __future__ import annotations

import json
import os

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import horma
from horma.workspace import Unit
from tests.wsstate import Result, assert_one_error_line, assert_one_error_object, cli, tree_state

NASTY = "\n\r\x0b\x1c\x85\u2028\u2029\x00\x1b\x9b\ud800\u202e |:[]/.\\"
chars = st.one_of(st.characters(min_codepoint=0, max_codepoint=0x10FFFF, exclude_categories=()), st.sampled_from(NASTY))
text = st.text(chars, max_size=20)
value = st.one_of(text, st.integers(), st.none(), st.lists(st.integers(), max_size=2), st.booleans())
FUZZ = settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))


def either_ok_or_one_error(r: Result, as_json: bool = False) -> bool:
    """True when the command succeeded; otherwise the three properties hold (one error line, or one error object
    under --json). Never a traceback."""
    assert r.exception is None, f"{type(r.exception).__name__}: {r.exception}"
    if r.code == 0:
        return True
    if as_json:
        assert_one_error_object(r)
    else:
        assert_one_error_line(r)
    return False


@pytest.fixture(scope="module")
def ws(tmp_path_factory):
    root = tmp_path_factory.mktemp("fuzz") / "ws"
    with horma.Memory(root, sandbox="local") as mem:
        mem.record([Unit("a1", "2024-01-01 10:00", "Ann", "Ann adopted a cat named Miso"),
                    Unit("a2", "2024-01-01 10:01", "Bob", "Miso likes tuna")], slug="s1")
    return root


@FUZZ
@given(records=st.lists(st.fixed_dictionaries({"id": value, "time": st.one_of(value, st.just("2024-02-02")),
                                               "actor": value, "text": value}), min_size=1, max_size=3),
       raw_bytes=st.one_of(st.none(), st.binary(max_size=20)))
def test_ingest_jsonl(ws, tmp_path_factory, records, raw_bytes):
    f = tmp_path_factory.mktemp("in") / "u.jsonl"
    data = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records).encode("utf-8", "surrogatepass")
    f.write_bytes(data + (raw_bytes or b""))
    before = tree_state(ws)
    r = cli("ingest", "jsonl", f, "--workspace", ws, "--backend", "local")
    if not either_ok_or_one_error(r):
        assert tree_state(ws) == before


@FUZZ
@given(query=text, budget=st.one_of(st.integers(-5, 3000), st.sampled_from(["x", "1e3", ""])))
@example(query="\x00", budget=100)  # once refused only after the retriever had written its trajectory
@example(query="a\x00b", budget=100)
def test_recall(ws, query, budget):
    before = tree_state(ws)
    r = cli("recall", "--budget", budget, "--backend", "local", "--json", "--", ws, query)
    if either_ok_or_one_error(r, as_json=True):
        assert json.loads(r.stdout)["query"]  # an answer for scripts
    else:
        assert tree_state(ws) == before


@FUZZ
@given(path=st.one_of(text, st.sampled_from(["notes", "raw", "../x", "/etc/passwd", ".horma/workspace.yaml",
                                              "INDEX.md", "notes/../../x", "raw/x/units.log"])),
       follow=st.booleans())
def test_show(ws, path, follow):
    before = tree_state(ws)
    r = cli("show", *(["--follow"] if follow else []), "--", ws, path)  # "--": a path may start with "-"
    either_ok_or_one_error(r)
    assert tree_state(ws) == before


@FUZZ
@given(name=text, depth=st.integers(1, 4), as_json=st.booleans())
@example(name="\udc80", depth=1, as_json=True)  # a lone surrogate in the path: the JSON error must still print
@example(name="\x0b\udc97", depth=1, as_json=False)  # ... and "workspace ready at" it
def test_tree_index_and_init_on_odd_paths(ws, tmp_path_factory, name, depth, as_json):
    base = tmp_path_factory.mktemp("odd")
    (base / "afile").write_text("x")
    target = base / "afile" / name if name.startswith("/") is False and len(name) % 2 else base / name
    before = tree_state(base)
    for args in (("tree", "--depth", depth, *(["--json"] if as_json else []), "--", target), ("index", "--", target)):
        if "\x00" in str(target):
            continue  # no OS takes a NUL in a path; the argument parser is not horma's
        r = cli(*args)
        either_ok_or_one_error(r, as_json="--json" in args)
        assert tree_state(base) == before  # tree and index on a non-workspace create nothing
    if "\x00" not in str(target):
        r = cli("init", "--", target)
        if not either_ok_or_one_error(r):
            assert tree_state(base) == before
    r = cli("tree", ws, "--depth", depth, *(["--json"] if as_json else []))
    assert r.code == 0 and r.exception is None


def test_undecodable_units_log_is_one_error_line(ws, tmp_path):
    copy = tmp_path / "ws"
    os.system(f"cp -a {ws} {copy}")
    seg = next((copy / "raw").iterdir()) / "units.log"
    os.chmod(seg, 0o644)
    seg.write_bytes(seg.read_bytes() + b"a9 | 2024-01-01 | x: \xff\xfe broken\n")
    f = tmp_path / "u.jsonl"
    f.write_text(json.dumps({"id": "n1", "time": "2024-03-03", "actor": "a", "text": "new"}) + "\n")
    before = tree_state(copy)
    for args in (("ingest", "jsonl", f, "--workspace", copy, "--backend", "local"),
                 ("show", copy, "notes/sessions", "--follow")):
        r = cli(*args)
        if args[0] == "ingest":
            assert_one_error_line(r, "not UTF-8")
        else:
            either_ok_or_one_error(r)
        assert tree_state(copy) == before


@pytest.mark.parametrize("args", [
    ["recall", "--bogus"],                                # unknown option
    ["recall"],                                           # missing argument
    ["recall", ".", "q", "--budget", "lots"],             # a value of the wrong type
    ["ingest", "jsonl"],                                  # a subcommand without its argument
    ["no-such-command"],
])
def test_usage_errors_through_the_real_entry_point_are_one_line(args: list[str], tmp_path) -> None:
    """What a user types reaches ``horma.cli.main``, not the test runner: a usage mistake is one line too."""
    import subprocess
    import sys

    before = tree_state(tmp_path)
    proc = subprocess.run([sys.executable, "-m", "horma", *args], cwd=tmp_path, capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "--help" in lines[0], proc.stderr
    assert "Traceback" not in proc.stderr and proc.stdout == ""
    assert tree_state(tmp_path) == before


@pytest.mark.parametrize("backend", ["local", pytest.param("bwrap", marks=pytest.mark.bwrap)])
def test_a_query_of_any_size_reaches_search(backend: str, tmp_path) -> None:
    """A ~290 KB query once failed with "Argument list too long" and came back as an empty context: the
    navigator now hands hsearch the query on standard input, so size is no reason to fail."""
    from tests.conftest import require_backend

    require_backend(backend)
    with horma.Memory(tmp_path / "ws", sandbox=backend) as mem:
        mem.record([Unit("a1", "2024-01-01 10:00", "Ann", "Ann adopted a cat named Miso"),
                    Unit("a2", "2024-01-01 10:01", "Bob", "Miso likes tuna")], slug="s1")
        query = "What does Miso like to eat? " + " ".join(f"filler{i}" for i in range(25000))
        assert len(query.encode()) > 280_000  # far past one argv string (128 KB on Linux)
        ctx = mem.recall(query, budget=200)
    assert "a2" in ctx.refs, ctx.refs
