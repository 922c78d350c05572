"""Under HORMA_CI=1 a skip (missing backend or extra) fails the run with its reason; elsewhere it skips."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

CONFTEST = Path(__file__).parent / "conftest.py"
PROBE = '''
import pytest
pytest.importorskip("no_such_extra_xyz", reason="the xyz extra is not installed")
'''
RUNTIME = '''
import pytest
def test_backend():
    pytest.skip("docker sandbox unavailable here: no engine")
'''
MARK = '''
import pytest
@pytest.mark.skipif(True, reason="needs the alfworld extra")
def test_game():
    pass
'''
FIXTURE = '''
import pytest
@pytest.fixture
def backend():
    pytest.skip("bwrap sandbox unavailable here: no user namespaces")
def test_uses_backend(backend):
    pass
'''


def run_pytest(tmp_path: Path, body: str, ci: bool) -> subprocess.CompletedProcess[str]:
    (tmp_path / "conftest.py").write_text(CONFTEST.read_text())
    (tmp_path / "test_probe.py").write_text(body)
    env = {k: v for k, v in os.environ.items() if k != "HORMA_CI"}
    if ci:
        env["HORMA_CI"] = "1"
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", str(tmp_path)],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("body, reason", [(PROBE, "the xyz extra is not installed"),
                                          (RUNTIME, "docker sandbox unavailable here: no engine"),
                                          (MARK, "needs the alfworld extra"),
                                          (FIXTURE, "bwrap sandbox unavailable here: no user namespaces")],
                         ids=["extra-at-import", "backend-at-run", "skipif-mark", "in-a-fixture"])
def test_skip_outside_ci_fail_in_ci(tmp_path: Path, body: str, reason: str) -> None:
    local = run_pytest(tmp_path, body, ci=False)
    assert local.returncode in (0, 5), local.stdout + local.stderr  # 5: a module-level skip leaves no test to run
    assert "1 skipped" in local.stdout and reason in local.stdout
    ci = run_pytest(tmp_path, body, ci=True)
    assert ci.returncode in (1, 2), ci.stdout + ci.stderr  # 1: a test failed; 2: a collection error
    assert "skipped" not in ci.stdout.splitlines()[-1]
    assert f"HORMA_CI=1: would have skipped: {reason}" in ci.stdout
