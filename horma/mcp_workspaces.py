"""The workspaces one MCP server serves, each with its memory, its client's read-view session and its lock.

One server serves one workspace folder, or a root folder of many (``--root``),
the workspace named per call (the ``workspace`` argument) or fixed for the
server. Names are validated and every workspace has its own sandbox sessions,
so one workspace's calls never see another's files. Calls into one workspace
are serialized by its lock (its sandbox shells are single-threaded); the
pool (:mod:`horma.server_pool`) keeps the open workspaces in bounds.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from horma.config import Settings, load_config
from horma.memory import Memory
from horma.sandbox import Sandbox, View, open_for_agent
from horma.server_pool import PoolLimits, Upkeep, WorkspacePool, compact_in_child, compaction_due
from horma.workspace import META_DIR, Workspace, WorkspaceError

NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")


@dataclass
class Options:
    """How the served workspaces' memories are built: the settings (``mcp.*`` for the server's own limits),
    and the one LLM their LLM-driven policies share (built once, not once per workspace)."""

    settings: Settings = field(default_factory=load_config)
    llm: Any = None

    @property
    def pool(self) -> PoolLimits:
        return PoolLimits(self.settings.mcp.max_open, self.settings.mcp.idle_close or None)


@dataclass
class Served:
    """One served workspace: its memory, the client's own read-view session, and the lock that serializes calls."""

    name: str
    workspace: Workspace
    options: Options
    lock: threading.Lock = field(default_factory=threading.Lock)
    _memory: Memory | None = None
    _client_box: Sandbox | None = None

    @property
    def memory(self) -> Memory:
        if self._memory is None:
            self._memory = Memory(self.workspace, llm=self.options.llm, settings=self.options.settings)
        return self._memory

    @property
    def client_box(self) -> Sandbox:
        """The read view the client's ``search`` and ``run`` act in: its own session, so a client's shell
        state (functions, variables) never reaches the retriever's; an unisolated one is refused."""
        if self._client_box is None:
            sandbox = self.options.settings.sandbox
            self._client_box = open_for_agent(self.workspace.root, sandbox.backend, View.READ,
                                              llm_driven=True, allow_unsafe_local=sandbox.unsafe_local)
        return self._client_box

    def reopen(self) -> None:
        """Read the workspace afresh (after ``forget`` rewrote raw/, every cached id is stale); holds ``lock``."""
        if self._memory is not None:
            self._memory.close()
            self._memory = None
        self.workspace = Workspace.open(self.workspace.root)

    def close(self) -> None:
        with self.lock:
            self._release()

    def close_if_idle(self) -> bool:
        """Close unless a call holds the workspace now (the pool never waits on a busy one)."""
        if not self.lock.acquire(blocking=False):
            return False
        try:
            self._release()
        finally:
            self.lock.release()
        return True

    def _release(self) -> None:
        if self._client_box is not None:
            self._client_box.close()
            self._client_box = None
        if self._memory is not None:
            self._memory.close()
            self._memory = None


class Workspaces:
    """What one server serves: one workspace folder, or a root folder of many workspaces.

    ``root`` mode names a workspace per call, unless ``fixed`` names it for the
    server. A name is one folder directly under the root (letters, digits,
    ``_.-``; not a link); ``record`` into a new name creates that workspace.
    """

    def __init__(self, options: Options, *, workspace: Path | None = None, root: Path | None = None,
                 fixed: str | None = None):
        if (workspace is None) == (root is None):
            raise WorkspaceError("serve either one workspace or a --root of workspaces")
        self.options = options
        self._served: dict[str, Served] = {}
        self.pool = WorkspacePool(options.pool)  # what stays open: owned by the server, not by a client session
        self.upkeep = Upkeep(self.pool)
        self._lock = threading.Lock()
        self.root = root.resolve() if root is not None else None
        self.fixed = fixed
        if workspace is not None:
            ws = Workspace.init(workspace)
            self.fixed = self.check_name(ws.root.name) if NAME.fullmatch(ws.root.name) else "workspace"
            self._served[self.fixed] = Served(self.fixed, ws, options)
        elif self.root is not None:  # always here: exactly one of workspace and root is given
            if self.root.exists() and not self.root.is_dir():
                raise WorkspaceError(f"{root}: exists and is not a directory")
            self.root.mkdir(parents=True, exist_ok=True)
            if fixed is not None:
                folder = self.root / self.check_name(fixed)
                if folder.is_symlink():
                    raise WorkspaceError(f"workspace {fixed!r} is a link; links are refused")
                self._served[fixed] = Served(fixed, Workspace.init(folder), options)

    @property
    def multi(self) -> bool:
        """Whether a call names its workspace."""
        return self.fixed is None

    def _root(self) -> Path:
        """The folder of workspaces (set whenever ``multi``: a server of one workspace has no root)."""
        if self.root is None:
            raise WorkspaceError("this server serves one workspace, not a folder of workspaces")
        return self.root

    @staticmethod
    def check_name(name: str) -> str:
        if not isinstance(name, str) or not NAME.fullmatch(name) or name in (".", ".."):
            raise WorkspaceError(f"bad workspace name {name!r}: use 1-64 letters, digits, '_', '.' or '-', "
                                 "starting with a letter or digit")
        return name

    def names(self) -> list[str]:
        """The workspaces a client may name."""
        if self.fixed is not None:  # not multi
            return [self.fixed]
        out = []
        for p in sorted(self._root().iterdir()):
            if NAME.fullmatch(p.name) and not p.is_symlink() and (p / META_DIR / "workspace.yaml").is_file():
                out.append(p.name)
        return out

    def get(self, name: str | None, *, create: bool = False) -> Served:
        """The served workspace a call names (None: the fixed one)."""
        if self.fixed is not None:  # not multi
            if name not in (None, "", self.fixed):
                raise WorkspaceError(f"this server serves only the workspace {self.fixed!r}; omit 'workspace'")
            return self._served[self.fixed]
        if name is None or name == "":
            known = ", ".join(self.names()) or "none yet"
            raise WorkspaceError(f"name the workspace: this server serves a folder of workspaces ({known})")
        name = self.check_name(name)
        with self._lock:
            served = self._served.get(name)
            if served is not None:
                return served
            folder = self._root() / name
            if folder.is_symlink():
                raise WorkspaceError(f"workspace {name!r} is a link; links are refused")
            if not (folder / META_DIR / "workspace.yaml").is_file():
                if not create:
                    known = ", ".join(self.names()) or "none yet"
                    raise WorkspaceError(f"no workspace {name!r} (workspaces: {known}); `record` creates one")
                Workspace.init(folder)
            served = self._served[name] = Served(name, Workspace.open(folder), self.options)
            return served

    def after_call(self, served: Served) -> None:
        """Keep the open workspaces in bounds; queue a history compaction once its packs pile up."""
        self.pool.used(served)
        if compaction_due(served.workspace.meta):
            root = served.workspace.root
            self.upkeep.submit(f"compact {served.name}", lambda: compact_in_child(root))

    def close(self) -> None:
        """Close every workspace: at server shutdown only (a client session's end closes nothing)."""
        self.upkeep.stop()
        for served in list(self._served.values()):
            served.close()
        self.pool.clear()
