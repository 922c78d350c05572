"""Helpers for the trust tests: a workspace's exact state, and the CLI run in-process as a user runs it."""

from __future__ import annotations

import hashlib
import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path

from typer.testing import CliRunner

from horma.cli import run


def tree_state(root: Path) -> str:
    """One hash of everything under ``root`` (names, types, modes, contents, link targets), links not followed."""
    h = hashlib.sha256()
    if not os.path.lexists(root):
        return "absent"
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        dirnames.sort()
        for name in sorted(dirnames + filenames):
            p = Path(dirpath) / name
            st = p.lstat()
            h.update(f"{p.relative_to(root)}\0{st.st_mode}\0".encode("utf-8", "surrogateescape"))
            if p.is_symlink():
                h.update(os.readlink(p).encode("utf-8", "surrogateescape"))
            elif p.is_file():
                h.update(p.read_bytes())
    return h.hexdigest()


@dataclass
class Result:
    code: int
    stdout: str
    stderr: str
    exception: BaseException | None


def cli(*args: object) -> Result:
    """Run ``horma ARGS`` in this process (milliseconds, not an interpreter start)."""
    with CliRunner().isolation() as (out, err, _):
        try:
            code, exc = run([str(a) for a in args]), None
        except Exception as e:  # the test reports it: bad input must never raise
            code, exc = 1, e
        sys.stdout.flush()
        sys.stderr.flush()
        return Result(code, out.getvalue().decode(errors="replace"), err.getvalue().decode(errors="replace"), exc)


def assert_one_error_line(r: Result, *needles: str) -> str:
    """The bad-input contract: no traceback, a non-zero exit, exactly one line on stderr."""
    assert r.exception is None, f"{type(r.exception).__name__}: {r.exception}"
    assert r.code != 0, (r.stdout, r.stderr)
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), r.stderr
    for n in needles:
        assert n in lines[0], lines[0]
    return lines[0]


def assert_one_error_object(r: Result) -> dict:
    """The bad-input contract under --json: no traceback, a non-zero exit, one error object on stdout, a quiet
    stderr."""
    assert r.exception is None, f"{type(r.exception).__name__}: {r.exception}"
    assert r.code != 0 and r.stderr == "", (r.stdout, r.stderr)
    error = json.loads(r.stdout)["error"]
    assert set(error) == {"code", "message"} and error["code"] and error["message"], error
    return error
