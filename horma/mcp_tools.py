"""What the MCP tools do beyond navigation: record under the contract, a compact recall, search lines,
forget and note deletion (each a dry run until ``confirm``), and errors as one coded line.

The server module (:mod:`horma.mcp_server`) declares the tools, bar the two
deleting ones (:func:`add_deletion_tools`); every job here runs in a worker
thread under the workspace's lock.

Error codes are stable: a client may branch on the word before the colon. They
are the codes of :mod:`horma.errors`, the same the CLI prints under ``--json``
(docs/errors.md lists them all); those a tool call meets:

- ``bad_argument``: an argument of the wrong type or out of range;
- ``bad_unit``: a unit the record contract refuses (:mod:`horma.record_contract`);
- ``bad_path``: a path that leaves the workspace, crosses a link, or names nothing;
- ``workspace``: the workspace refuses the call (unknown name, nothing matches, lock held);
- ``sandbox``: the sandbox could not run the command;
- ``provider``: the model of an LLM policy could not be reached or used;
- ``unknown_tool``: no tool of that name (MCP only);
- ``internal``: anything else (a bug: please report it with the line; MCP only).
"""

from __future__ import annotations

import os
import shlex
import stat
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Annotated, Any, Literal, Protocol

from mcp.server.fastmcp import FastMCP
from mcp.server.fastmcp.exceptions import ToolError
from mcp.types import ToolAnnotations
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from horma import agent_files, paths
from horma.context import ItemSource, Recall
from horma.core.layout import MANAGER_KINDS
from horma.errors import BadArgument, HormaError
from horma.forget import Selection, forget
from horma.workspace import NOTES_DIR, Workspace

if TYPE_CHECKING:
    from horma.memory import Memory

MAX_ERROR_CHARS = 500
CONFLICT_LINES = 20  # conflicts spelled out in a record's text; the structured result has them all
OWN_LINES = 5  # lines of notes someone wrote (an agent's preferences...) listed before the raw lines
Newlines = Literal["refuse", "fold"]


class Served(Protocol):
    """What a job needs of a served workspace (``horma.mcp_workspaces.Served`` is one); declared here so
    the jobs never import the server that calls them."""

    name: str
    workspace: Workspace

    @property
    def memory(self) -> Memory: ...

    def reopen(self) -> None: ...
WorkspaceArg = Annotated[str | None, Field(
    description="The workspace to use, when the server serves a folder of workspaces; omit it otherwise.")]


class UnitIn(BaseModel):
    """One unit to remember: a dialogue turn, an environment step, a log line."""

    model_config = ConfigDict(extra="forbid")
    id: str = Field(description="Its id in your source, unique in the workspace, no spaces or '|' (e.g. 's3:7'). "
                                "Re-sending an id is safe: same content is 'unchanged', other content a 'conflict'.")
    time: str | None = Field(None, description="When it happened: RFC 3339 ('2024-03-02T09:15:00Z', "
                                               "'...+01:00': stored in UTC) or a plain '2024-03-02 09:15'. "
                                               "Default: now, UTC.")
    actor: str = Field(description="Who spoke or acted, e.g. 'user' (not empty, no '|', no line break).")
    text: str = Field(description="What was said or done, verbatim, on one line (see 'newlines').")


class Recalled(Recall):
    """The ``recall`` tool's structured output: the one context type (:class:`horma.context.Recall`) and the
    workspace it came from.

    One difference on this wire: the context's text is stated once (``context``), so its items are listed
    as their :class:`~horma.context.ItemSource` (file, lines, tokens, unit ids, score, why), without the
    text again: a model client pays for every repeated byte.
    """

    workspace: str
    items: list[ItemSource] = Field(default_factory=list)  # type: ignore[assignment]  # a ContextItem is one


# -- errors ------------------------------------------------------------------------------------------------------
class CodedError(ToolError):
    """A tool failure as one line, ``code: what is wrong``; see the module docstring for the codes."""

    def __init__(self, code: str, message: str):
        self.code = code
        super().__init__(f"{code}: {one_line(message)}")


def one_line(text: str) -> str:
    line = " ".join(str(text).split())
    return line if len(line) <= MAX_ERROR_CHARS else line[: MAX_ERROR_CHARS - 3] + "..."


def coded(exc: Exception) -> CodedError:
    """A known failure of a tool's job as its coded line: a HormaError's own code; a ValueError the
    arguments caused."""
    return CodedError(exc.code if isinstance(exc, HormaError) else BadArgument.code, str(exc))


def error_line(exc: ToolError) -> str:
    """The one line a failed call answers, whatever raised (FastMCP wraps every failure in a ToolError)."""
    cause = exc.__cause__
    if isinstance(exc, CodedError):
        return str(exc)
    if isinstance(cause, CodedError):
        return str(cause)
    if isinstance(cause, ValidationError):
        first = cause.errors()[0]
        where = ".".join(str(x) for x in first["loc"]) or "arguments"
        more = f" (and {cause.error_count() - 1} more)" if cause.error_count() > 1 else ""
        return CodedError("bad_argument", f"{where}: {first['msg']}{more}").args[0]
    if cause is None and str(exc).startswith("Unknown tool"):
        return CodedError("unknown_tool", str(exc)).args[0]
    return CodedError("internal", f"{type(cause or exc).__name__}: {cause or exc}").args[0]


# -- the jobs ----------------------------------------------------------------------------------------------------
def do_record(served: Served, units: list[UnitIn], session: str | None, newlines: Newlines) -> dict:
    result = served.memory.record([u.model_dump() for u in units], slug=session or "segment", newlines=newlines)
    return {"workspace": served.name, **result.as_dict()}


def record_text(done: dict[str, Any]) -> str:
    """What a model reads of a record: counts and every conflict on one line each, not the 10,000 ids of a
    large batch (the structured result lists every id)."""
    ids = done["ids"]
    head = (f"archived {len(ids['archived'])} into {done['segment'] or '(no new segment)'}, unchanged "
            f"{len(ids['unchanged'])}, conflict {len(ids['conflict'])}")
    rows = [f"conflict {c['id']} ({', '.join(c['fields'])}): archived {c['archived']!r}, sent {c['sent']!r}: "
            "not archived" for c in done["conflicts"][:CONFLICT_LINES]]
    if len(done["conflicts"]) > CONFLICT_LINES:
        rows.append(f"... {len(done['conflicts']) - CONFLICT_LINES} more in the structured result's 'conflicts'")
    return "\n".join([head, *rows])


def do_recall(served: Served, query: str, budget: int, asked: str | None = None) -> Recalled:
    ctx = served.memory.recall(query, budget, asked)
    return Recalled(workspace=served.name, **dict(ctx))


def recall_text(r: Recalled) -> str:
    """The text a model reads: the context, then one line per item naming its lines and units."""
    refs = [f"{i.path}:{i.start}-{i.end} ({', '.join(i.refs) or 'no unit'})" for i in r.items]
    return r.text + ("\n\n[sources]\n" + "\n".join(refs) if refs else "")


def search_command(query: str, n: int, near_arg: str) -> str:
    """hsearch listing the lines of notes someone wrote, then raw lines; no line of the manager's regenerated
    notes (their headings, counts and key-phrase lists only point at raw lines the search lists anyway)."""
    return f"hsearch -n {int(n)} --notes 0 --own {OWN_LINES} {near_arg}-- {shlex.quote(query)}"


def do_forget(served: Served, selection: Selection, confirm: bool) -> dict:
    """What would go (a dry run) or what went; after a real forget the served workspace is read afresh."""
    report = forget(served.workspace, selection, dry_run=not confirm)
    if confirm:
        served.reopen()
    out = {"workspace": served.name, "forgotten": confirm, **report.as_dict()}
    if not confirm:
        out["next"] = "nothing changed yet: call forget again with the same selection and confirm=true"
    return out


def do_delete_note(served: Served, path: str, confirm: bool) -> dict:
    """Delete one note file (the notes history keeps it: ``horma revert`` brings it back)."""
    ws = served.workspace
    parts = paths.split(path)
    if len(parts) < 2 or parts[0] != NOTES_DIR or not parts[-1].endswith(".md"):
        raise paths.PathRefused(path, f"not a note: notes are {NOTES_DIR}/....md files (use forget for raw units)")
    rel = "/".join(parts)
    with ws.writer():
        st = paths.lstat(ws.root, parts)
        if st is None:
            raise paths.PathRefused(rel, paths.NO_SUCH)
        if stat.S_ISDIR(st.st_mode):
            raise paths.PathRefused(rel, "is a folder, not a note file")
        if not stat.S_ISREG(st.st_mode):
            raise paths.PathRefused(rel, paths.LINKS if stat.S_ISLNK(st.st_mode) else "is not a regular file")
        lines = paths.read_text(ws.root, parts).count("\n")
        out = {"workspace": served.name, "path": rel, "lines": lines, "deleted": confirm,
               "regenerated": len(parts) > 2 and parts[1] in MANAGER_KINDS}
        if not confirm:
            out["next"] = "nothing changed yet: call delete_note again with confirm=true"
            return out
        with paths.open_dir(ws.root, parts[:-1]) as fd:
            os.unlink(parts[-1], dir_fd=fd)
        agent_files.committed(ws, f"mcp: delete {rel}")
    return out


def add_deletion_tools(server: FastMCP, call: Callable[..., Awaitable[Any]]) -> None:
    """Declare ``forget`` and ``delete_note`` on ``server``: real deletion, each a dry run until confirm=true.
    ``call`` runs a job on the named workspace under its lock (see :func:`horma.mcp_server.build_server`)."""

    @server.tool(annotations=ToolAnnotations(title="Forget units", readOnlyHint=False, destructiveHint=True,
                                             idempotentHint=False, openWorldHint=False), structured_output=True)
    async def forget(
        units: Annotated[list[str], Field(description="Unit ids to forget.")] = [],  # noqa: B006 (a schema default)
        actor: Annotated[list[str], Field(description="Forget every unit of these actors.")] = [],  # noqa: B006
        before: Annotated[str | None, Field(description="Units before this time (YYYY-MM-DD[ HH:MM]).")] = None,
        after: Annotated[str | None, Field(description="Units at or after this time.")] = None,
        segment: Annotated[list[str], Field(description="Raw segments (raw/<folder>).")] = [],  # noqa: B006
        confirm: Annotated[bool, Field(description="false (default): only list what would go; true: forget it "
                                                   "from raw/, notes, the index and every history revision.")] = False,
        workspace: WorkspaceArg = None,
    ) -> dict[str, Any]:
        """Forget units for real (every option given must match). Call first without confirm to see what would
        go, then again with confirm=true. What is forgotten cannot be recalled, reverted or found again."""
        return await call(workspace, lambda s: do_forget(
            s, Selection.of(units=units, actors=actor, before=before, after=after, segments=segment), confirm))

    @server.tool(annotations=ToolAnnotations(title="Delete a note", readOnlyHint=False, destructiveHint=True,
                                             idempotentHint=False, openWorldHint=False), structured_output=True)
    async def delete_note(
        path: Annotated[str, Field(description="A note file, e.g. notes/agent/old-plan.md.")],
        confirm: Annotated[bool, Field(description="false (default): only show what would go; true: delete "
                                                   "it.")] = False,
        workspace: WorkspaceArg = None,
    ) -> dict[str, Any]:
        """Delete one note file (the notes history keeps it: `horma revert` brings it back). A page the
        manager regenerates (notes/people/...) comes back when a later record mentions its name."""
        return await call(workspace, lambda s: do_delete_note(s, path, confirm))


__all__ = ["CodedError", "Recalled", "UnitIn", "WorkspaceArg", "add_deletion_tools", "coded", "do_delete_note",
           "do_forget", "do_recall", "do_record", "error_line", "recall_text", "record_text", "search_command"]
