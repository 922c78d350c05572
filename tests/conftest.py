"""Shared fixtures: small workspaces and the isolated sandbox backends.

Docker and bwrap tests run for real wherever the tool works (CI builds the
image with scripts/setup-sandbox.sh) and skip with the backend's own reason
where it does not. Under HORMA_CI=1 (.ci/run sets it) every skip fails
instead, with the same reason: a missing backend or extra in CI is a broken
machine, not a passing run.
"""

from __future__ import annotations

import os
from collections.abc import Generator
from functools import cache
from pathlib import Path

import pytest

from horma.note import Note
from horma.sandbox import BackendStatus
from horma.workspace import Unit, Workspace

ISOLATED = ("docker", "bwrap")

SAMPLE_UNITS = [
    Unit("D1:1", "2023-05-08 13:56", "Caroline", "I went to the LGBTQ support group yesterday."),
    Unit("D1:2", "2023-05-08 13:57", "Melanie", "That sounds brave. How did it feel?"),
    Unit("D1:3", "2023-05-08 13:58", "Caroline", "Powerful. I want to study counseling."),
]


def _fail_skip_in_ci(report: pytest.TestReport | pytest.CollectReport) -> None:
    """In CI a skip hides a missing sandbox or extra: report it as a failure with the skip's reason."""
    if os.environ.get("HORMA_CI") == "1" and report.skipped and not hasattr(report, "wasxfail"):
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        report.outcome = "failed"
        report.longrepr = f"HORMA_CI=1: would have skipped: {str(reason).removeprefix('Skipped: ')}"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, None, None]:
    outcome = yield
    _fail_skip_in_ci(outcome.get_result())


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector: pytest.Collector) -> Generator[None, None, None]:
    outcome = yield
    _fail_skip_in_ci(outcome.get_result())


@cache
def backend_status(name: str) -> BackendStatus:
    from horma.sandbox import bwrap, docker, local

    return {"docker": docker, "bwrap": bwrap, "local": local}[name].status()


def require_backend(name: str) -> None:
    st = backend_status(name)
    if not st.available:
        pytest.skip(f"{name} sandbox unavailable here: {st.reason}")


@pytest.fixture(params=[pytest.param(b, marks=getattr(pytest.mark, b)) for b in ISOLATED])
def isolated_backend(request: pytest.FixtureRequest) -> str:
    """Each isolated backend in turn; skipped with its reason where it cannot start."""
    require_backend(request.param)
    return request.param


def archive(ws: Workspace, us: list[Unit], slug: str) -> str:
    """Archive ``us`` as one segment under the writer lock; its raw path."""
    with ws.writer():
        rel = ws.archive(us, slug, us[0].time)
    assert rel is not None
    return rel


def make_workspace(root: Path) -> Workspace:
    """A workspace with one raw segment and one note citing it."""
    ws = Workspace.init(root)
    with ws.writer():
        raw = ws.archive(SAMPLE_UNITS, "caroline-melanie", "2023-05-08 13:56")
        ws.write_note(
            Note(
                path="notes/people/caroline.md",
                title="Caroline",
                time="2023-05-08",
                body="- went to a support group (D1:1)\n- wants to study counseling (D1:3)\n",
                sources=[{"path": raw, "units": ["D1:1", "D1:3"]}],
            )
        )
    return ws


@pytest.fixture
def workspace(tmp_path: Path) -> Workspace:
    return make_workspace(tmp_path / "ws")
