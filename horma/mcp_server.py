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
server (:mod:`horma.mcp_workspaces`). Names are validated and every workspace
has its own sandbox sessions, so one workspace's calls never see another's
files: host-side reads go through :mod:`horma.paths` (no ``..``, no links,
``.horma/`` hidden) and ``run`` sees only its workspace's read view
(:mod:`horma.mcp_navigation`). Calls into one workspace are serialized (its
sandbox shells are single-threaded); the blocking work runs in worker threads
so the event loop keeps serving other clients.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, TypeVar

import anyio.to_thread
from mcp.server.fastmcp import FastMCP
from mcp.server.fastmcp.exceptions import ToolError
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import Field

from horma import __version__
from horma.errors import HormaError
from horma.mcp_http import DEFAULT_MAX_BODY, BodyLimit
from horma.mcp_navigation import do_read, do_run, do_search, do_tree
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
)
from horma.mcp_workspaces import Served, Workspaces

INSTRUCTIONS = """\
horma is a file-tree memory. `record` archives conversation turns or steps (units) exactly under raw/ and
organizes notes/ that cite them (re-sending an id is safe: each id comes back archived, unchanged or conflict);
`recall` returns a compact context for a question, each item with its file, line range and source unit ids.
To navigate by yourself: `tree`, `search` (ranked lines, best first), `read` (numbered lines), `run` (one
read-only shell command: ls, grep, cat, hsearch). `forget` and `delete_note` delete for real, after a dry run.
A failed call answers one line: `code: what is wrong`."""

T = TypeVar("T")


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
                                                         "it names the raw folder. Recording a conversation a "
                                                         "message at a time, give every call the same name: "
                                                         "records of one name within 30 minutes of each "
                                                         "other are searched as one session.")] = None,
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
                              structuredContent=got.as_dict())

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
