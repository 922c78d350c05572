"""Sandboxes: where agents' bash commands run.

One Protocol, three backends (one module each): ``docker``, ``bwrap`` and
``local``. A sandbox shows a workspace in one of two views: ``read`` (the
retriever: everything read-only) or ``write`` (the manager: notes and index
writable, ``raw/`` read-only). In docker and bwrap ``.horma/`` is hidden in
both views and the search index is at ``$HORMA_INDEX`` (see ``views``). Every
command has a timeout, an output cap and an environment without the host's
secrets.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Protocol, runtime_checkable

from horma.errors import HormaError
from horma.registry import Registry
from horma.sandbox.shell import DEFAULT_OUTPUT_CAP, DEFAULT_TIMEOUT, ExecResult

__all__ = [
    "SANDBOXES",
    "Backend",
    "BackendStatus",
    "ExecResult",
    "Limits",
    "Sandbox",
    "SandboxError",
    "View",
    "check_backends",
    "open_for_agent",
    "open_sandbox",
    "require_isolation",
    "resolve_backend",
    "safe_env",
]


class SandboxError(HormaError):
    """A sandbox could not be started or a request was refused; worded for the user."""

    code = "sandbox"
    exit_code = 7


class View(str, Enum):
    READ = "read"
    WRITE = "write"


@dataclass(frozen=True)
class Limits:
    """Per-session resource limits, applied by the backends that can enforce them."""

    timeout: float = DEFAULT_TIMEOUT
    output_cap: int = DEFAULT_OUTPUT_CAP
    memory_mb: int = 512
    pids: int = 128
    cpu_seconds: int = 60
    file_mb: int = 64


@runtime_checkable
class Sandbox(Protocol):
    """A persistent shell over a workspace view.

    ``workspace`` is the host path; ``home`` and ``cwd`` are paths as the shell
    sees them (``/ws`` and below in docker and bwrap, host paths in local), so a
    caller turns a path the agent typed into a workspace path without knowing
    the backend.
    """

    backend: str
    view: View
    workspace: Path
    isolated: bool  # False only for ``local``: LLM agents refuse it unless told otherwise
    home: str  # the workspace root as the shell sees it
    commands: int  # commands run in this session: what a call's Cost counts (horma/sandbox/base.py keeps it)

    @property
    def cwd(self) -> str:
        """The shell's current directory as the shell sees it (``home`` until a ``cd``)."""
        ...

    def exec(self, command: str, timeout: float | None = None) -> ExecResult:
        """Run ``command`` with bash; cwd persists between calls."""
        ...

    def close(self) -> None:
        """End the session and every process it started."""
        ...

    def __enter__(self) -> Sandbox: ...

    def __exit__(self, *exc: object) -> None: ...


@dataclass(frozen=True)
class BackendStatus:
    name: str
    available: bool
    reason: str


_SAFE_ENV_KEYS = ("LANG", "LC_ALL", "TZ")


def safe_env(home: str, extra: dict[str, str] | None = None) -> dict[str, str]:
    """The whole environment a sandboxed shell gets: nothing inherited but locale and TZ."""
    env = {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "HOME": home,
        "TERM": "dumb",
        "LANG": "C.UTF-8",
        "PS1": "",
        "HISTFILE": "/dev/null",
    }
    for key in _SAFE_ENV_KEYS:
        if key in os.environ and key != "LANG":
            env[key] = os.environ[key]
    env.update(extra or {})
    return env


class Backend(Protocol):
    """A backend module (``docker.py``, ``bwrap.py``, ``local.py``): whether it can start here, and a session."""

    def status(self) -> BackendStatus: ...

    def open(self, workspace: Path, view: View, limits: Limits, near_socket: str | None = None) -> Sandbox: ...


# the isolated backends first: ``auto`` takes the first that can start here, else local
SANDBOXES: Registry[Backend] = Registry("sandbox backend", SandboxError, also="auto")
for _name in ("docker", "bwrap", "local"):
    SANDBOXES.register(_name, f"horma.sandbox.{_name}")


def check_backends() -> list[BackendStatus]:
    """Which backends can start here, and why not where they cannot."""
    return [SANDBOXES.get(name).status() for name in SANDBOXES.names()]


def resolve_backend(backend: str) -> str:
    """The backend ``auto`` stands for here (the first isolated one that can start, else local), or the
    named one if it can start; SandboxError listing the backends, or saying why it cannot start, if not."""
    if backend == "auto":
        isolated = [name for name in SANDBOXES.names() if name != "local"]
        return next((name for name in isolated if SANDBOXES.get(name).status().available), "local")
    st = SANDBOXES.get(backend).status()
    if not st.available:
        raise SandboxError(f"sandbox backend {backend} is not available: {st.reason}")
    return backend


def open_sandbox(
    workspace: str | os.PathLike[str],
    backend: str = "auto",
    view: View | str = View.READ,
    *,
    limits: Limits | None = None,
) -> Sandbox:
    """Open a sandbox session; ``auto`` picks docker, then bwrap, then local.

    ``local`` has no isolation (``isolated`` is False): the LLM agent loop
    refuses it unless its caller passes an explicit unsafe flag.
    """
    view = View(view)
    limits = limits or Limits()
    ws = Path(workspace).resolve()
    if not ws.is_dir():
        raise SandboxError(f"{workspace}: workspace directory does not exist")
    return _with_meaning(SANDBOXES.get(resolve_backend(backend)), ws, view, limits)


def _with_meaning(module, ws: Path, view: View, limits: Limits) -> Sandbox:
    """Open the session with its own meaning socket (horma/near_service.py), closed when the session closes."""
    from horma.near_service import NearService
    from horma.sandbox.views import index_dir

    near = NearService(str(index_dir(ws)))
    try:
        box = module.open(ws, view, limits, near_socket=near.path)
    except BaseException:
        near.close()
        raise
    box.services.append(near)
    return box


def require_isolation(sandbox: Sandbox, allow_unsafe_local: bool) -> None:
    """Refuse to let an LLM drive a sandbox without isolation unless the user said so.

    The one isolation check: ``open_for_agent`` runs it when an LLM-driven
    session opens, and the agent loop runs it again before an LLM acts, since
    its caller may hand it any sandbox.
    """
    if not sandbox.isolated and not allow_unsafe_local:
        raise SandboxError(
            f"refusing to run a model's commands in the {sandbox.backend} sandbox (no isolation: they would reach "
            "this whole machine): use --backend docker or bwrap (`horma sandbox check`), or pass --unsafe-local"
        )


def open_for_agent(
    workspace: str | os.PathLike[str],
    backend: str,
    view: View | str,
    *,
    llm_driven: bool,
    allow_unsafe_local: bool = False,
    limits: Limits | None = None,
) -> Sandbox:
    """Open a session for an agent; one driven by an LLM refuses an unisolated sandbox at once."""
    box = open_sandbox(workspace, backend, view, limits=limits)
    if llm_driven:
        try:
            require_isolation(box, allow_unsafe_local)
        except SandboxError:
            box.close()
            raise
    return box
