"""horma as an MCP server: any MCP client (Claude Desktop, Claude Code, Cursor, agent frameworks) gets a memory.

Built on the official ``mcp`` SDK (FastMCP). Tools:

- ``record`` archives units and organizes notes (the manager), under :mod:`horma.record_contract`;
- ``recall`` returns the context for a query once, every item with its path, lines and unit ids (the retriever);
- ``search``, ``read``, ``run``, ``tree``: the retriever's own action space, for a client model that
  navigates by itself (``run`` is one command in the read-view sandbox: read-only, time- and output-limited);
- ``forget`` and ``delete_note``: real deletion, each a dry run until ``confirm=true``.

A failed call answers one line, ``code: what is wrong`` (codes in :mod:`horma.mcp_tools`); the server
reports horma's version; over HTTP a body over the limit is a JSON-RPC error (:mod:`horma.mcp_http`).

Resources: each workspace's ``INDEX.md`` and its notes, as ``horma://<workspace>/<path>``.

One server serves one workspace folder, or a root folder of many (``--root``),
the workspace named per call (the ``workspace`` argument) or fixed for the
server. Names are validated and every workspace has its own sandbox sessions,
so one workspace's calls never see another's files: host-side reads go
through :mod:`horma.paths` (no ``..``, no links, ``.horma/`` hidden) and
``run`` sees only its workspace's read view. Calls into one workspace are
serialized (its sandbox shells are single-threaded); the blocking work runs in
worker threads so the event loop keeps serving other clients.
"""

from __future__ import annotations

import re
import shlex
import stat
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, TypeVar

import anyio.to_thread
from mcp.server.fastmcp import FastMCP
from mcp.server.fastmcp.exceptions import ToolError
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import Field

from horma import __version__, paths
from horma.config import Settings, load_config
from horma.errors import HormaError
from horma.mcp_http import DEFAULT_MAX_BODY, BodyLimit
from horma.mcp_resources import WorkspaceResources
from horma.mcp_tools import (
    Newlines,
    Recalled,
    UnitIn,
    WorkspaceArg,
    add_deletion_tools,
    coded,
    do_recall,
    do_record,
    error_line,
    recall_text,
    record_text,
    search_command,
)
from horma.memory import Memory
from horma.sandbox import Sandbox, View, open_for_agent
from horma.sandbox.views import index_dir
from horma.server_pool import PoolLimits, Upkeep, WorkspacePool, compact_in_child, compaction_due
from horma.vectors import format_near, nearest
from horma.workspace import META_DIR, Workspace, WorkspaceError

NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
READ_MAX_LINES = 2000
READ_MAX_CHARS = 64_000

INSTRUCTIONS = """\
horma is a file-tree memory. `record` archives conversation turns or steps (units) exactly under raw/ and
organizes notes/ that cite them (re-sending an id is safe: each id comes back archived, unchanged or conflict);
`recall` returns a compact context for a question, each item with its file, line range and source unit ids.
To navigate by yourself: `tree`, `search` (ranked lines, best first), `read` (numbered lines), `run` (one
read-only shell command: ls, grep, cat, hsearch). `forget` and `delete_note` delete for real, after a dry run.
A failed call answers one line: `code: what is wrong`."""

T = TypeVar("T")


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
        else:
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

    @staticmethod
    def check_name(name: str) -> str:
        if not isinstance(name, str) or not NAME.fullmatch(name) or name in (".", ".."):
            raise WorkspaceError(f"bad workspace name {name!r}: use 1-64 letters, digits, '_', '.' or '-', "
                                 "starting with a letter or digit")
        return name

    def names(self) -> list[str]:
        """The workspaces a client may name."""
        if not self.multi:
            return [self.fixed]
        out = []
        for p in sorted(self.root.iterdir()):
            if NAME.fullmatch(p.name) and not p.is_symlink() and (p / META_DIR / "workspace.yaml").is_file():
                out.append(p.name)
        return out

    def get(self, name: str | None, *, create: bool = False) -> Served:
        """The served workspace a call names (None: the fixed one)."""
        if not self.multi:
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
            folder = self.root / name
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


# -- what the tools do (blocking; called in a worker thread under the workspace's lock) ----------------------
def _box_output(box: Sandbox, command: str, timeout: float) -> tuple[str, int]:
    box.exec(f"cd {shlex.quote(box.home)}")  # every call starts at the workspace root
    result = box.exec(command, timeout=timeout)
    out = result.output.rstrip("\n") if result.output.strip() else "(no output)"
    if result.timed_out:
        out += f"\n[timed out after {timeout:g} s]"
    return out, result.exit_code


def do_search(served: Served, query: str, n: int) -> str:
    if not query.strip():
        raise WorkspaceError("the query is empty")
    query = " ".join(query.split())
    near = nearest(str(index_dir(served.memory.workspace.root)), query)  # meaning, embedded here on the host
    near_arg = f"--near {format_near(near)} " if near else ""
    timeout = served.options.settings.mcp.run_timeout
    out, code = _box_output(served.client_box, search_command(query, n, near_arg), timeout)
    if code == 1:  # like grep: nothing matched
        return f"(no matches for {query!r})"
    if code != 0:
        raise WorkspaceError(f"search failed (exit {code}): {out[-500:]}")
    return out


def do_run(served: Served, command: str) -> str:
    if not command.strip():
        raise WorkspaceError("the command is empty")
    out, code = _box_output(served.client_box, command, served.options.settings.mcp.run_timeout)
    return f"{out}\n[exit code {code}]"


def do_read(served: Served, path: str, start: int | None, end: int | None) -> str:
    parts = paths.split(path)
    lines = paths.read_text(served.workspace.root, parts).splitlines()
    first = start or 1
    last = min(end or len(lines), len(lines), first + READ_MAX_LINES - 1)
    if not lines:
        return "(empty file)"
    if first > len(lines) or (end is not None and end < first):
        raise WorkspaceError(f"{path}: bad line range {start}-{end} (the file has {len(lines)} lines)")
    out, size = [], 0
    for n in range(first, last + 1):
        row = f"{n:>6}\t{lines[n - 1]}"
        size += len(row) + 1
        if size > READ_MAX_CHARS:
            out.append(f"[... stopped at {READ_MAX_CHARS} characters: read from line {n} on]")
            break
        out.append(row)
    else:
        if last < len(lines):
            out.append(f"[... {len(lines) - last} more lines: read from line {last + 1} on]")
    return "\n".join(out)


def do_tree(served: Served, path: str, depth: int) -> str:
    parts = paths.split(path)
    st = paths.lstat(served.workspace.root, parts)
    if st is None or not stat.S_ISDIR(st.st_mode):
        raise paths.PathRefused(path, "no such folder" if st is None else "is a file, not a folder: read it")
    entries = paths.listing(served.workspace.root, parts, depth)
    label = "/".join(parts) or "."
    rows = [f"{label}/"]
    for e in entries:
        indent = "  " * e.depth
        name = e.path.rsplit("/", 1)[-1]
        suffix = {"dir": "/", "link": " (link, not followed)", "other": " (special file)"}.get(e.kind, "")
        size = f"  {e.size} B" if e.kind == "file" else ""
        rows.append(f"{indent}{name}{suffix}{size}")
    return "\n".join(rows)


# -- the server ------------------------------------------------------------------------------------------------
class HormaMCP(WorkspaceResources, FastMCP):
    """FastMCP over served workspaces: their INDEX.md and notes as resources, tools answering coded errors."""

    def __init__(self, spaces: Workspaces, **settings: Any):
        super().__init__(name="horma", instructions=INSTRUCTIONS, **settings)
        self._mcp_server.version = __version__  # serverInfo: horma's version, not the SDK's
        self.spaces = spaces

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> Any:
        """Every failure as one coded line (FastMCP would answer "Error executing tool ...: " and a traceback's
        worth of validation detail)."""
        try:
            return await super().call_tool(name, arguments)
        except ToolError as exc:
            raise ToolError(error_line(exc)) from None

    def streamable_http_app(self) -> Any:
        """The HTTP app with the body limit answered in JSON-RPC (:mod:`horma.mcp_http`)."""
        return BodyLimit(super().streamable_http_app(), self.settings.max_request_body_size)


def reading(title: str) -> ToolAnnotations:
    """Annotations of a tool that only reads this closed world: safe to call freely and to repeat."""
    return ToolAnnotations(title=title, readOnlyHint=True, destructiveHint=False, idempotentHint=True,
                           openWorldHint=False)


def build_server(spaces: Workspaces, *, host: str = "127.0.0.1", port: int = 8000,
                 log_level: str = "WARNING", max_body: int = DEFAULT_MAX_BODY) -> HormaMCP:
    """The MCP server over ``spaces``; run it with ``.run("stdio")`` or ``.run("streamable-http")``."""

    # No lifespan closes the workspaces: the SDK enters a server's lifespan once per client session, so its
    # end closed every client's sandboxes. The caller closes ``spaces`` when the server stops.
    server = HormaMCP(spaces, host=host, port=port, log_level=log_level, max_request_body_size=max_body)
    default_budget = spaces.options.settings.recall.budget  # a recall call that names no budget gets this

    async def call(workspace: str | None, job: Callable[[Served], T], *, create: bool = False) -> T:
        """Run ``job`` on the named workspace in a worker thread, one call per workspace at a time."""

        def work() -> T:
            served = spaces.get(workspace, create=create)
            try:
                with served.lock:
                    return job(served)
            finally:
                spaces.after_call(served)

        try:
            return await anyio.to_thread.run_sync(work)
        except (HormaError, ValueError) as exc:
            raise coded(exc) from None

    @server.tool(annotations=ToolAnnotations(title="Record units", readOnlyHint=False, destructiveHint=False,
                                             idempotentHint=True, openWorldHint=False), structured_output=True)
    async def record(
        units: Annotated[list[UnitIn], Field(min_length=1, description="The units, in order.")],
        session: Annotated[str | None, Field(description="A short name for this batch (a session, an episode); "
                                                         "it names the raw folder.")] = None,
        workspace: WorkspaceArg = None,
        newlines: Annotated[Newlines, Field(description="A line break in a text: 'refuse' (the call fails, "
                                                        "naming the unit) or 'fold' (lines joined with a "
                                                        "space).")] = "refuse",
    ) -> Annotated[CallToolResult, dict[str, Any]]:
        """Remember units: archive them exactly under raw/ and organize notes that cite them. Idempotent by id:
        'ids' lists every id as archived, unchanged (already archived alike: re-sending is safe) or conflict
        (already archived with other content: nothing changed, both versions in 'conflicts')."""
        done = await call(workspace, lambda s: do_record(s, units, session, newlines), create=True)
        return CallToolResult(content=[TextContent(type="text", text=record_text(done))], structuredContent=done)

    @server.tool(annotations=reading("Recall"),
                 structured_output=True)
    async def recall(
        query: Annotated[str, Field(min_length=1, description="What to remember, as a question or keywords.")],
        budget: Annotated[int, Field(ge=1, le=100_000, description="Context budget in tokens.")] = default_budget,
        workspace: WorkspaceArg = None,
        asked: Annotated[str | None, Field(description="When the question is asked (YYYY-MM-DD; default today): "
                                                       "'10 days ago', 'last Saturday' count from it.")] = None,
    ) -> Annotated[CallToolResult, Recalled]:
        """Build a compact context for the query within the token budget: the verified lines the memory
        holds about it (once), then each item's file path, line range and source unit ids, and what it cost."""
        got = await call(workspace, lambda s: do_recall(s, query, budget, asked))
        return CallToolResult(content=[TextContent(type="text", text=recall_text(got))],
                              structuredContent=got.model_dump(mode="json"))

    @server.tool(annotations=reading("Search"),
                 structured_output=False)
    async def search(
        query: Annotated[str, Field(min_length=1, description="Keywords or a question.")],
        n: Annotated[int, Field(ge=1, le=200, description="How many raw lines to list.")] = 20,
        workspace: WorkspaceArg = None,
    ) -> str:
        """Ranked search (hsearch): the matching lines, best first, each as `path:line:text`: lines of notes
        someone wrote (an agent's own files) first, then raw lines. Read around a hit with `read`."""
        return await call(workspace, lambda s: do_search(s, query, n))

    @server.tool(annotations=reading("Read"),
                 structured_output=False)
    async def read(
        path: Annotated[str, Field(description="A file inside the workspace, e.g. INDEX.md, "
                                               "notes/people/ana.md or raw/<segment>/units.log.")],
        start: Annotated[int | None, Field(ge=1, description="First line (1-based).")] = None,
        end: Annotated[int | None, Field(ge=1, description="Last line (inclusive).")] = None,
        workspace: WorkspaceArg = None,
    ) -> str:
        """Read a file's lines, numbered (at most 2000 lines a call). Paths stay inside the workspace:
        '..' and links are refused."""
        return await call(workspace, lambda s: do_read(s, path, start, end))

    @server.tool(annotations=reading("Run a read-only command"),
                 structured_output=False)
    async def run(
        command: Annotated[str, Field(min_length=1, description="One bash command line, e.g. "
                                                                "\"grep -rn Lisbon notes | head\".")],
        workspace: WorkspaceArg = None,
    ) -> str:
        """Run one bash command in the workspace's read-only sandbox (no network; writes fail), starting at the
        workspace root, with a time limit and an output cap. Tools: ls, cat, grep, head, tail, wc, hsearch."""
        return await call(workspace, lambda s: do_run(s, command))

    @server.tool(annotations=reading("Tree"),
                 structured_output=False)
    async def tree(
        path: Annotated[str, Field(description="A folder inside the workspace; '.' is its root.")] = ".",
        depth: Annotated[int, Field(ge=1, le=8, description="How many folder levels to show.")] = 2,
        workspace: WorkspaceArg = None,
    ) -> str:
        """List a folder of the workspace as a tree with file sizes: INDEX.md (what is where), notes/ (written
        by the memory manager; notes/agent/ is an agent's own), raw/ (the exact archive, one folder per session)."""
        return await call(workspace, lambda s: do_tree(s, path, depth))

    add_deletion_tools(server, call)

    @server.tool(annotations=reading("List workspaces"),
                 structured_output=False)
    async def workspaces() -> str:
        """The workspaces this server serves, one per line (name one in the other tools' 'workspace')."""
        names = await anyio.to_thread.run_sync(spaces.names)
        return "\n".join(names) if names else "(none yet: record into a new name to create one)"

    return server
