"""Archived text never drives the user's terminal: control characters are escaped in human output, exact in --json."""

from __future__ import annotations

import json

import pytest

import horma
from horma.bench.alfworld import INSTALL_HINT
from horma.bench.methods import EMBED_HINT
from horma.cli.common import plain, report, shown
from horma.file_writes import atomic_write
from horma.workspace import Unit
from tests.wsstate import cli

EVIL = "\x1b]0;owned\x07\x1b[2J\x1b[31mred\u202eevil\x9b1m"  # OSC title, clear screen, colour, bidi, C1 CSI
CONTROL = ("\x1b", "\x07", "\x9b", "\u202e")


def clean(out: str) -> bool:
    return not any(c in out for c in CONTROL)


@pytest.fixture
def evil_ws(tmp_path):
    """A workspace whose archive (written by an older horma, or by hand), notes and traces hold escapes."""
    with horma.Memory(tmp_path / "ws", sandbox="local") as mem:
        mem.record([Unit("u1", "2024-01-01 10:00", "Ann", "Ann adopted a cat named Miso")], slug="s1")
    root = mem.workspace.root
    seg = root / "raw" / "2024-01-02T10-00__old"
    seg.mkdir()
    (seg / "units.log").write_text(f"u2 | 2024-01-02 10:00 | Bob: Miso the cat {EVIL} purrs\n", encoding="utf-8")
    atomic_write(root / "notes" / "evil.md", f"---\ntitle: evil\nsources: []\nlinks: []\n---\nMiso {EVIL}\n")
    assert cli("index", root, "--rebuild").code == 0
    return root


def test_recall_and_ask_escape_archived_text_and_json_stays_exact(evil_ws):
    r = cli("recall", evil_ws, "Miso cat purrs", "--backend", "local")
    assert r.code == 0, r.stderr
    assert "Miso the cat" in r.stdout and "\\x1b]0;owned\\x07" in r.stdout and clean(r.stdout)
    r = cli("ask", evil_ws, "Miso cat purrs", "--backend", "local")
    assert "Miso the cat" in r.stdout and clean(r.stdout + r.stderr)
    r = cli("recall", evil_ws, "Miso cat purrs", "--backend", "local", "--json")
    assert EVIL in json.loads(r.stdout)["context"]  # scripts get the exact text


def test_show_and_tree_escape(evil_ws):
    r = cli("show", evil_ws, "notes/evil.md")
    assert r.code == 0 and "Miso \\x1b]0;owned" in r.stdout and clean(r.stdout)
    (evil_ws / "notes" / f"name{EVIL}.md").write_text("x")
    r = cli("tree", evil_ws, "--depth", "3")
    assert r.code == 0 and "name\\x1b" in r.stdout and clean(r.stdout)


def test_trace_escapes_commands_observations_and_messages(evil_ws):
    run = evil_ws / ".horma" / "trajectories" / "20990101T000000Z__retriever__evil.jsonl"
    records = [{"type": "start", "role": "retriever", "task": f"q {EVIL}"},
               {"type": "step", "step": 1, "action": "bash", "args": {"command": f"cat notes/evil.md # {EVIL}"},
                "observation": f"Miso {EVIL}", "message": EVIL, "exit_code": 0},
               {"type": "end", "status": f"done{EVIL}"}]
    run.write_text("".join(json.dumps(r) + "\n" for r in records))
    for args in ((), ("--list",)):
        r = cli("trace", evil_ws, *args)
        assert r.code == 0 and r.exception is None, r.stderr
        assert clean(r.stdout)
    r = cli("trace", evil_ws, "--json")
    assert json.loads(r.stdout)["records"][1]["observation"] == f"Miso {EVIL}"


@pytest.mark.parametrize("hint", [INSTALL_HINT, EMBED_HINT])
def test_error_hints_keep_their_brackets(capsys, hint):
    assert report("missing_extra", hint, 8, as_json=False) == 8
    err = capsys.readouterr().err
    assert err.strip() == f"error: {hint}" and "'.[" in err


def test_helpers():
    assert plain("a\nb\tc\x1b") == "a\nb\tc\\x1b"
    assert shown("a\n[b]\x00") == "a\\n\\[b]\\x00"
