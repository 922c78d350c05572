"""Every CLI error is one line, or one JSON object with a code under --json, and exits with the code docs/errors.md
gives it; every HormaError class is in that table."""

from __future__ import annotations

import importlib
import json
import os
import pkgutil
import re
import textwrap
from pathlib import Path

import pytest
import typer

import horma
from horma.cli import app, wants_json
from horma.errors import HormaError
from tests.wsstate import assert_one_error_line, assert_one_error_object, cli

ROOT = Path(__file__).resolve().parent.parent
ROW = re.compile(r"^\| `(\w+)` \| (\d+) \| [^|]+\| (.+) \|$")


def doc_table() -> tuple[dict[str, int], dict[str, str]]:
    """docs/errors.md's table: the exit code of each code, and the code of each class it names."""
    exits, classes = {}, {}
    for line in (ROOT / "docs/errors.md").read_text(encoding="utf-8").splitlines():
        if m := ROW.match(line):
            exits[m[1]] = int(m[2])
            classes.update({name: m[1] for name in re.findall(r"`(\w+)`", m[3])})
    return exits, classes


EXITS, CLASSES = doc_table()


def every_json_command() -> list[tuple[str, ...]]:
    def walk(group, path: tuple[str, ...] = ()):
        if hasattr(group, "commands"):
            for name, cmd in sorted(group.commands.items()):
                yield from walk(cmd, (*path, name))
        elif any("--json" in p.opts for p in group.params):
            yield path

    return list(walk(typer.main.get_command(app)))


def test_the_table_is_read() -> None:
    assert EXITS["bad_argument"] == 2 and EXITS["workspace"] == 4 and EXITS["interrupted"] == 130
    assert CLASSES["WorkspaceError"] == "workspace" and CLASSES["PathRefused"] == "bad_path"


def test_every_error_class_is_in_the_table_with_its_code_and_exit_code() -> None:
    for info in pkgutil.walk_packages(horma.__path__, "horma."):
        # not the entry point (it runs the CLI) nor the modules that need an extra to import
        extra = info.name.startswith(("horma.train.", "horma.llm.hf")) and info.name != "horma.train.trajectories"
        if info.name != "horma.__main__" and not extra:
            importlib.import_module(info.name)

    def subclasses(cls: type) -> set[type]:
        return {cls} | {s for sub in cls.__subclasses__() for s in subclasses(sub)}

    found = {c for c in subclasses(HormaError) if c.__module__.startswith("horma.")}
    assert len(found) > 20
    for cls in found:
        assert CLASSES.get(cls.__name__) == cls.code, f"{cls.__name__} ({cls.code}) is not in docs/errors.md's row"
        assert EXITS[cls.code] == cls.exit_code, cls


def test_json_is_asked_by_a_json_word_before_the_double_dash() -> None:
    assert wants_json(["recall", "ws", "q", "--json"])
    assert not wants_json(["recall", "--", "ws", "--json"])  # a query that reads --json
    assert not wants_json(["recall", "ws", "q"])


# A real error for every command that takes --json; the code it must answer with (a set where the
# environment decides, e.g. whether the train extra is installed).
NOWHERE = "{tmp}/nowhere"
CASES: dict[tuple[str, ...], tuple[list[str], set[str]]] = {
    ("add",): ([NOWHERE, "a thing", "--time", "not a time", "--backend", "local"], {"bad_unit"}),
    ("ask",): ([NOWHERE, "where?", "--backend", "local"], {"workspace"}),
    ("config", "keys"): (["--bogus"], {"bad_argument"}),  # it reads nothing a user could get wrong
    ("config", "show"): (["--config", "{tmp}/none.yaml"], {"config"}),
    ("eval", "alfworld"): (["--games", "{tmp}", "--max-steps", "0"], {"bad_argument"}),
    ("eval", "locomo"): (["--data", "{tmp}/none.json", "--retrieval-only", "--out", "{tmp}/run"], {"bad_argument"}),
    ("eval", "longmemeval"): (["--data", "{tmp}/none.json", "--retrieval-only", "--out", "{tmp}/run"],
                              {"bad_argument"}),
    ("forget",): ([NOWHERE, "--unit", "a1", "--yes"], {"workspace"}),
    ("import", "chatgpt"): (["{tmp}/none.zip", "-w", NOWHERE, "--backend", "local"], {"bad_argument"}),
    ("import", "claude"): (["{tmp}/none.zip", "-w", NOWHERE, "--backend", "local"], {"bad_argument"}),
    ("import", "markdown"): (["{tmp}/none", "-w", NOWHERE, "--backend", "local"], {"bad_argument"}),
    ("index",): ([NOWHERE], {"workspace"}),
    ("ingest", "jsonl"): (["{tmp}/none.jsonl", "-w", NOWHERE, "--backend", "local"], {"bad_argument"}),
    ("ingest", "locomo"): (["{tmp}/none.json", "-w", NOWHERE, "--backend", "local"], {"bad_argument"}),
    ("log",): ([NOWHERE], {"workspace"}),
    ("recall",): ([NOWHERE, "where?", "--backend", "local"], {"workspace"}),
    ("refine",): (["locomo", "--data", "{tmp}/none.json"], {"bad_argument"}),
    ("reorganize",): ([NOWHERE, "--backend", "local"], {"workspace"}),
    ("revert",): ([NOWHERE, "abcd"], {"workspace"}),
    ("sandbox", "check"): (["--bogus"], {"bad_argument"}),  # it takes no argument that could be wrong
    ("sandbox", "exec"): ([NOWHERE, "--backend", "local", "--", "ls"], {"workspace"}),
    ("skills", "diff"): (["0", "99", "--domain", "no_such_domain"], {"bad_argument"}),
    ("skills", "list"): (["--domain", "no_such_domain"], {"bad_argument"}),
    ("skills", "show"): (["no_such_skill"], {"bad_argument"}),
    ("trace",): ([NOWHERE], {"workspace"}),
    # a flag's value the settings model refuses is a config error (the settings say which key)
    ("train", "export"): (["--data", "{tmp}/none.json", "--out", "{tmp}/out", "--budget", "0"], {"config"}),
    ("train", "grpo"): (["--tasks", "{tmp}/none", "--out", "{tmp}/out", "--steps", "0"],
                        {"bad_argument", "missing_extra"}),
    ("train", "sft"): (["--data", "{tmp}/none", "--out", "{tmp}/out", "--steps", "0"],
                       {"bad_argument", "missing_extra"}),
    ("tree",): ([NOWHERE], {"workspace"}),
}


def test_every_json_command_has_a_case() -> None:
    assert sorted(CASES) == every_json_command()


def with_json(args: list[str]) -> list[str]:
    """``--json`` before any ``--``: after it, it would be a word of the sandbox command."""
    return [*args[: args.index("--")], "--json", *args[args.index("--"):]] if "--" in args else [*args, "--json"]


@pytest.mark.parametrize("command", sorted(CASES), ids=" ".join)
def test_an_error_under_json_is_one_object_with_a_code_and_its_exit_code(command: tuple[str, ...],
                                                                           tmp_path: Path) -> None:
    args, codes = CASES[command]
    args = [a.format(tmp=tmp_path) for a in args]
    r = cli(*command, *with_json(args))
    assert r.exception is None, f"{type(r.exception).__name__}: {r.exception}"
    assert r.stderr == "", r.stderr
    error = json.loads(r.stdout)["error"]  # one JSON document, nothing else on stdout
    assert set(error) == {"code", "message"} and error["message"], error
    assert error["code"] in codes, error
    assert r.code == EXITS[error["code"]], (r.code, error)

    plain = cli(*command, *args)
    line = assert_one_error_line(plain)
    assert plain.stdout == "" and plain.code == r.code
    assert line == f"error: {error['message']}", (line, error)
    assert not (tmp_path / "nowhere").exists()  # an error leaves nothing behind



def test_what_the_disk_refuses_is_the_io_code(tmp_path: Path) -> None:
    """An OSError a user causes (here: a file where the output folder's parent must be) is one error with code io,
    not a traceback."""
    (tmp_path / "file").write_text("x")
    args = ["train", "export", "--data", ROOT / "tests/fixtures/eval/locomo_mini.json", "--out",
            tmp_path / "file" / "out", "--limit", "1", "--backend", "local"]
    r = cli(*args, "--json")
    error = assert_one_error_object(r)
    assert error["code"] == "io" and r.code == EXITS["io"] and "Not a directory" in error["message"], error
    assert assert_one_error_line(cli(*args)) == f"error: {error['message']}"


def _horma_under(tmp_path: Path, prelude: str, *args: str):
    """``horma ARGS`` run by a module that first runs ``prelude`` (how a test makes a Ctrl-C land where a
    user's once did), then the CLI's own ``main``."""
    import subprocess
    import sys

    (tmp_path / "cli_under_test.py").write_text(textwrap.dedent(prelude) + "from horma.cli import main\nmain()\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    return subprocess.run([sys.executable, "-m", "cli_under_test", *args], capture_output=True, text=True,
                          cwd=tmp_path, env=env, timeout=120)


def _ingest_under(tmp_path: Path, prelude: str, sessions: int = 1):
    """``horma ingest jsonl`` of ``sessions`` one-turn sessions under ``prelude`` (:func:`_horma_under`)."""
    source = tmp_path / "units.jsonl"
    source.write_text("".join(json.dumps({"id": f"s{s}:1", "time": f"2024-01-0{s} 10:00", "actor": "Ana",
                                          "session": f"s{s}", "text": "We sailed to the cove."}) + "\n"
                              for s in range(1, sessions + 1)))
    return _horma_under(tmp_path, prelude, "ingest", "jsonl", str(source), "--workspace", str(tmp_path / "mem"),
                        "--backend", "local")


# SIGINT while CPython runs a callback of its own (a weakref's, as at the end of an import): the handler raises
# there, and CPython only prints the exception. Here it lands so while the model runtime is being imported.
_SWALLOWED = """
    import importlib.abc, os, signal, sys, weakref
    class Thing:
        pass
    def pressed(ref):
        os.kill(os.getpid(), signal.SIGINT)
        for _ in range(100000):  # the handler runs here, inside the callback
            pass
    class Swallowed(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path, target=None):
            if name == "onnxruntime":
                sys.meta_path.remove(self)
                thing = Thing()
                ref = weakref.ref(thing, pressed)
                del thing
    sys.meta_path.insert(0, Swallowed())
"""


def test_ctrl_c_while_the_model_runtime_loads_is_the_interrupted_code(tmp_path: Path) -> None:
    """A Ctrl-C inside onnxruntime's native import reaches Python as ``ImportError: initialization failed``
    caused by the KeyboardInterrupt (pybind11 wraps it); the test below met it by chance on a loaded machine.
    Here the import fails that way every time, the interrupt raised by Python code the native side runs
    (``PyRun_String``): under ``python -m`` that leaves CPython's "unhandled interrupt" flag set, which once
    turned the clean exit 130 into death by SIGINT (returncode -2) after the report was printed."""
    child = _ingest_under(tmp_path, """
        import ctypes, importlib.abc, sys
        native_run = ctypes.pythonapi.PyRun_String
        native_run.restype = ctypes.py_object
        native_run.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.py_object, ctypes.py_object]
        class Interrupted(importlib.abc.MetaPathFinder):
            def find_spec(self, name, path, target=None):
                if name == "onnxruntime":
                    try:
                        native_run(b"raise KeyboardInterrupt", 257, {}, {})  # 257: Py_file_input
                    except KeyboardInterrupt as exc:
                        raise ImportError("initialization failed") from exc
        sys.meta_path.insert(0, Interrupted())
    """)
    assert (child.returncode, child.stdout, child.stderr) == (EXITS["interrupted"], "", "error: interrupted\n")


def test_a_ctrl_c_cpython_swallows_still_stops_the_command(tmp_path: Path) -> None:
    """A swallowed Ctrl-C mid-ingest (:data:`_SWALLOWED`): the ingest archived everything and exited 0 (seen in
    CI). Its progress bar stops it."""
    child = _ingest_under(tmp_path, _SWALLOWED, sessions=3)
    assert (child.returncode, child.stdout, child.stderr) == (EXITS["interrupted"], "", "error: interrupted\n")


def test_a_ctrl_c_cpython_swallows_in_a_command_with_no_bar_is_the_interrupted_code(tmp_path: Path) -> None:
    """``horma recall`` has no progress bar to stop at: it answered and exited 0 as if no Ctrl-C was pressed.
    Its end is the checkpoint: a script sees exit 130."""
    assert _ingest_under(tmp_path, "").returncode == 0
    child = _horma_under(tmp_path, _SWALLOWED, "recall", str(tmp_path / "mem"), "Where did we sail?", "--budget",
                         "300", "--backend", "local")
    assert (child.returncode, child.stderr) == (EXITS["interrupted"], "error: interrupted\n"), child.stderr


def test_a_ctrl_c_a_native_import_turns_into_its_own_error_is_the_interrupt(tmp_path: Path) -> None:
    """SIGINT inside numpy's native import surfaced as "ImportError: numpy._core.multiarray failed to import",
    with no KeyboardInterrupt left in it: a traceback and exit 1 (seen in CI). Here an import mid-ingest is
    cut short that way every time."""
    child = _ingest_under(tmp_path, """
        import importlib.abc, os, signal, sys
        class CutShort(importlib.abc.MetaPathFinder):
            def find_spec(self, name, path, target=None):
                if name == "onnxruntime":
                    sys.meta_path.remove(self)
                    try:
                        os.kill(os.getpid(), signal.SIGINT)
                        for _ in range(100000):  # the handler runs here
                            pass
                    except KeyboardInterrupt:
                        pass  # the native side clears it and fails in its own words
                    raise ImportError("numpy._core.multiarray failed to import")
        sys.meta_path.insert(0, CutShort())
    """, sessions=3)
    assert (child.returncode, child.stdout, child.stderr) == (EXITS["interrupted"], "", "error: interrupted\n")


@pytest.mark.parametrize("as_json", [False, True])
def test_ctrl_c_is_the_interrupted_code_said_once(tmp_path: Path, as_json: bool) -> None:
    """A real SIGINT mid-ingest: exit 130 and one 'interrupted' report, not typer's silent exit."""
    import signal
    import subprocess
    import sys
    import time

    source = tmp_path / "units.jsonl"
    with source.open("w") as fh:  # far more than the ingest gets through before the signal
        for s in range(200):
            for i in range(50):
                when = f"2024-{1 + s // 28:02d}-{1 + s % 28:02d} 10:{i:02d}"
                fh.write(json.dumps({"id": f"s{s}:{i}", "time": when, "actor": "Ana", "session": f"session-{s}",
                                     "text": f"Turn {i}: to cove {i}."}) + "\n")
    ws = tmp_path / "mem"
    child = subprocess.Popen([sys.executable, "-m", "horma", "ingest", "jsonl", str(source), "--workspace", str(ws),
                              "--backend", "local", *(["--json"] if as_json else [])],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    deadline = time.monotonic() + 60
    while not list((ws / "raw").glob("*/units.log")) and time.monotonic() < deadline and child.poll() is None:
        time.sleep(0.05)  # interrupt once the ingest is under way
    child.send_signal(signal.SIGINT)
    out, err = child.communicate(timeout=60)
    assert child.returncode == EXITS["interrupted"] == 130, (out, err)
    if as_json:
        assert err == "" and json.loads(out) == {"error": {"code": "interrupted", "message": "interrupted"}}
    else:
        assert out == "" and err == "error: interrupted\n"
