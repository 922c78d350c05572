"""The ``local`` backend: a plain persistent bash in the workspace, no isolation.

Fine for code the project drives itself (heuristic agents, tests, the demo on
a machine without docker or bubblewrap); LLM agents refuse it unless the user
passes an explicit unsafe flag. Nothing is enforced or hidden here: the view
is not applied (``raw/`` is writable), ``.horma/`` (other queries'
trajectories, locks, the ingest log) is readable, and the whole host is one
``cd ..`` away. ``HORMA_INDEX`` names the host's index folder, where the
isolated backends mount it at /opt/horma/index.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from horma.resources import SANDBOX_BIN
from horma.sandbox import BackendStatus, Limits, View, safe_env
from horma.sandbox.base import ShellSandbox
from horma.sandbox.shell import PersistentShell
from horma.sandbox.views import NEAR_ENV, index_dir


class LocalSandbox(ShellSandbox):
    backend = "local"
    isolated = False


def status() -> BackendStatus:
    if shutil.which("bash") is None:
        return BackendStatus("local", False, "bash not found")
    return BackendStatus("local", True, "plain bash in the workspace: no isolation")


def open(workspace: Path, view: View, limits: Limits, near_socket: str | None = None) -> LocalSandbox:
    extra = {"HORMA_INDEX": str(index_dir(workspace))}
    if near_socket:
        extra[NEAR_ENV] = near_socket
    env = safe_env(str(workspace), extra)
    env["PATH"] = f"{SANDBOX_BIN}:{env['PATH']}"
    shell = PersistentShell(
        ["bash", "--noprofile", "--norc"], env=env, cwd=str(workspace), output_cap=limits.output_cap
    )
    shell.start()
    return LocalSandbox(workspace, view, limits, shell, home=str(workspace))
