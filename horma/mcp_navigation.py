"""What the MCP navigation tools do: ``search``, ``run``, ``read`` and ``tree``, the retriever's own action space.

``search`` and ``run`` act in the client's read-view sandbox session; ``read``
and ``tree`` read on the host through :mod:`horma.paths` (no ``..``, no links,
``.horma/`` hidden). Each runs in a worker thread under the workspace's lock.
"""

from __future__ import annotations

import shlex
import stat

from horma import paths
from horma.mcp_tools import search_command
from horma.mcp_workspaces import Served
from horma.sandbox import Sandbox
from horma.sandbox.views import index_dir
from horma.vectors import format_near, meaning
from horma.workspace import WorkspaceError

READ_MAX_LINES = 2000
READ_MAX_CHARS = 64_000


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
    near = meaning(str(index_dir(served.memory.workspace.root)), query)  # embedded here on the host
    near_arg = f"--near {format_near(near.units, near.lines)} " if near.units or near.lines else ""
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
