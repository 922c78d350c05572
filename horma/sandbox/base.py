"""What the three backends share: a persistent shell, restarted after a timeout in the same cwd.

It also answers the two questions callers ask about paths the agent typed:
``home`` (the workspace root as the shell sees it: ``/ws`` in docker and
bwrap, the host path in ``local``) and ``cwd`` (where the shell is now, in the
same terms), so nobody has to reach into the shell or guess the mount point.
"""

from __future__ import annotations

import shlex
from pathlib import Path

from horma.sandbox.shell import ExecResult, PersistentShell


class ShellSandbox:
    """Base of every backend; a subclass supplies the shell and how to kill what it left."""

    backend = "base"
    isolated = True

    def __init__(self, workspace: Path, view, limits, shell: PersistentShell, home: str):
        self.workspace = workspace
        self.view = view
        self.limits = limits
        self.shell = shell
        self.home = home  # the workspace root as the shell sees it
        self._closed = False
        self.services: list = []  # what lives as long as the session (its meaning socket): closed with it
        self.commands = 0  # commands run in this session: what a call's Cost counts

    @property
    def cwd(self) -> str:
        """The shell's current directory as the shell sees it; ``home`` until the first command."""
        return self.shell.pwd or self.home

    def exec(self, command: str, timeout: float | None = None) -> ExecResult:
        if self._closed:
            raise RuntimeError("sandbox session is closed")
        self.commands += 1
        last_pwd = self.shell.pwd
        if not self.shell.alive:
            self._restart(last_pwd)
        result = self.shell.run(command, timeout if timeout is not None else self.limits.timeout)
        if not self.shell.alive:
            self._cleanup()
            self.shell.pwd = last_pwd if result.timed_out else self.shell.pwd
        return result

    def _restart(self, pwd: str | None) -> None:
        self.shell.start()
        if pwd and pwd != self.home:
            self.shell.run(f"cd {shlex.quote(pwd)}", self.limits.timeout)

    def _cleanup(self) -> None:
        """Kill whatever the session left behind (background jobs)."""

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            try:
                self.shell.kill()
                self._cleanup()
            finally:
                for service in self.services:
                    service.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:  # a forgotten session must not leave processes behind
        try:  # noqa: SIM105 - not contextlib.suppress: __del__ may run at exit, after module globals are cleared
            self.close()
        except Exception:
            pass
