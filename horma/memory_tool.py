"""The Anthropic memory tool (``memory_20250818``) backed by a horma workspace, plus a ``recall`` tool beside it.

Claude manages a ``/memories`` directory with view / create / str_replace /
insert / delete / rename; here ``/memories`` is the workspace's
``notes/agent/`` folder (see :mod:`horma.agent_files`): the agent's own files,
which no manager run overwrites, whose lines recall quotes, every change a
revision of the notes history. ``raw/`` and the manager's notes are not under
``/memories``: the ``recall`` tool beside it searches them (and the agent's files).

Commands follow the SDK's reference implementation
(``BetaLocalFilesystemMemoryTool``): ``view`` of a folder lists two levels
(hidden names left out), ``view_range [a, b]`` shows lines ``max(1, a)`` to
``b`` (``-1``: to the end), ``create`` refuses an existing file and makes
missing folders. Path rules are exact: ``/memories`` or a ``/memories/``
prefix (never ``/memories_x``), no ``..``, no links anywhere on the path
(every folder is opened with ``O_NOFOLLOW`` relative to its parent, see
:mod:`horma.paths`). Writes are atomic (temp file + fsync + rename) under the
workspace's writer lock, with the workspace's file mode.

    client.beta.messages.tool_runner(model=..., max_tokens=..., messages=...,
        tools=[HormaMemoryTool("./mem"), recall_tool(horma.Memory("./mem"))],
        betas=["context-management-2025-06-27"])
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import sys
from collections.abc import Callable
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio.to_thread
from anthropic.lib.tools import BetaAbstractMemoryTool, BetaAsyncAbstractMemoryTool, ToolError, beta_tool
from anthropic.lib.tools._beta_functions import BetaFunctionTool
from anthropic.types.beta import (
    BetaCacheControlEphemeralParam,
    BetaMemoryTool20250818CreateCommand,
    BetaMemoryTool20250818DeleteCommand,
    BetaMemoryTool20250818InsertCommand,
    BetaMemoryTool20250818RenameCommand,
    BetaMemoryTool20250818StrReplaceCommand,
    BetaMemoryTool20250818ViewCommand,
)

from horma import agent_files, paths
from horma.agent_files import AGENT_PARTS
from horma.memory import Memory
from horma.workspace import Workspace, WorkspaceError

MEMORIES = "/memories"
LINE_WIDTH = 6


def _size(n: float) -> str:
    """``4K``, ``1.5M``: sizes as the SDK's own memory tool shows them."""
    for unit in ("B", "K", "M"):
        if n < 1024:
            return f"{int(n)}{unit}" if n == int(n) else f"{n:.1f}{unit}"
        n /= 1024
    return f"{int(n)}G" if n == int(n) else f"{n:.1f}G"


def _numbered(lines: list[str], first: int) -> str:
    return "\n".join(f"{n:>{LINE_WIDTH}}\t{line}" for n, line in enumerate(lines, first))


def rmtree_at(name: str, dir_fd: int) -> None:
    """``shutil.rmtree(name, dir_fd=dir_fd)``: links are removed, never followed.

    ``dir_fd`` came to shutil.rmtree in Python 3.11; on 3.10 (horma's floor) the
    folder is walked by fds instead (:func:`_rmtree_fds`).
    """
    if sys.version_info >= (3, 11):
        shutil.rmtree(name, dir_fd=dir_fd)
    else:
        _rmtree_fds(name, dir_fd)


def _rmtree_fds(name: str, dir_fd: int) -> None:
    """Remove the folder ``name`` in ``dir_fd`` bottom-up through folder fds (os.fwalk never follows a link)."""
    for _, dirs, files, fd in os.fwalk(name, topdown=False, dir_fd=dir_fd):
        for entry in files:
            os.unlink(entry, dir_fd=fd)
        for entry in dirs:  # a link to a folder is listed here: unlinked, not entered
            if stat.S_ISLNK(os.stat(entry, dir_fd=fd, follow_symlinks=False).st_mode):
                os.unlink(entry, dir_fd=fd)
            else:
                os.rmdir(entry, dir_fd=fd)
    os.rmdir(name, dir_fd=dir_fd)

class HormaMemoryTool(BetaAbstractMemoryTool):
    """``BetaAbstractMemoryTool`` over a horma workspace (created if missing)."""

    def __init__(self, workspace: str | os.PathLike[str] | Workspace, *,
                 cache_control: BetaCacheControlEphemeralParam | None = None):
        super().__init__(cache_control=cache_control)
        self.workspace = workspace if isinstance(workspace, Workspace) else Workspace.init(workspace)
        self.root: Path = self.workspace.root
        try:
            agent_files.make_folders(self.root, AGENT_PARTS)  # /memories exists from the start, as in the SDK's tool
        except paths.PathRefused as exc:
            raise WorkspaceError(f"{self.root}: {'/'.join(AGENT_PARTS)}: {exc.reason}") from None

    # -- paths ------------------------------------------------------------------------------------------------
    def _parts(self, path: Any) -> list[str]:
        """The workspace components of a ``/memories`` path (under ``notes/agent/``); ToolError for anything else."""
        if not isinstance(path, str) or not (path == MEMORIES or path.startswith(MEMORIES + "/")):
            raise ToolError(f"paths must be {MEMORIES} or start with {MEMORIES}/, got {path!r}")
        try:
            return AGENT_PARTS + paths.split(path[len(MEMORIES):])
        except paths.PathRefused as exc:
            raise ToolError(f"{path}: {exc.reason}") from None

    def _stat(self, path: str, parts: list[str]) -> os.stat_result | None:
        try:
            st = paths.lstat(self.root, parts)
        except paths.PathRefused as exc:
            raise ToolError(f"{path}: {exc.reason}") from None
        if st is not None and stat.S_ISLNK(st.st_mode):
            raise ToolError(f"{path}: {paths.LINKS}")
        return st

    def _existing(self, path: str, parts: list[str]) -> os.stat_result:
        st = self._stat(path, parts)
        if st is None:
            raise ToolError(f"The path {path} does not exist. Please provide a valid path.")
        return st

    def _writable(self, path: Any) -> list[str]:
        """Components of a path below ``/memories`` (the folder itself is not a file)."""
        parts = self._parts(path)
        if parts == AGENT_PARTS:
            raise ToolError(f"{path}: is the {MEMORIES} directory itself; name a file in it")
        return parts

    def _read(self, path: str, parts: list[str]) -> str:
        st = self._existing(path, parts)
        if stat.S_ISDIR(st.st_mode):
            raise ToolError(f"The path {path} is a directory, not a file.")
        if not stat.S_ISREG(st.st_mode):
            raise ToolError(f"The path {path} is not a file.")
        try:
            return paths.read_bytes(self.root, parts).decode("utf-8")
        except paths.PathRefused as exc:
            raise ToolError(f"{path}: {exc.reason}") from None
        except UnicodeDecodeError:
            raise ToolError(f"{path} is not UTF-8 text") from None

    # -- writes -------------------------------------------------------------------------------------------------
    @contextmanager
    def _writing(self, message: str):
        """Hold the writer lock for one change; after it succeeded, record it (history and index)."""
        try:
            with self.workspace.writer():
                yield
                agent_files.committed(self.workspace, f"memory tool: {message}")
        except WorkspaceError as exc:
            raise ToolError(str(exc)) from None
        except OSError as exc:
            raise ToolError(f"{message}: failed ({exc.strerror or exc})") from None

    def _write(self, parts: list[str], text: str) -> None:
        agent_files.write(self.root, parts, text)

    # -- the six commands ---------------------------------------------------------------------------------------
    def view(self, command: BetaMemoryTool20250818ViewCommand) -> str:
        path = command.path
        parts = self._parts(path)
        st = self._existing(path, parts)
        if stat.S_ISDIR(st.st_mode):
            try:
                entries = paths.listing(self.root, parts, depth=2)
            except paths.PathRefused as exc:
                raise ToolError(f"{path}: {exc.reason}") from None
            base = path.rstrip("/")
            rows = [f"{_size(st.st_size)}\t{path}"]
            for e in entries:
                if e.kind == "dir":
                    rows.append(f"{_size(e.size)}\t{base}/{e.path}/")
                elif e.kind == "file":
                    rows.append(f"{_size(e.size)}\t{base}/{e.path}")
            head = f"Here're the files and directories up to 2 levels deep in {path}, excluding hidden items:"
            return head + "\n" + "\n".join(rows)
        content = self._read(path, parts)
        lines = content.split("\n")
        first = 1
        span = command.view_range
        if span is not None and (not isinstance(span, list) or not all(
                isinstance(x, int) and not isinstance(x, bool) for x in span)):
            raise ToolError(f"view_range must be a list of two integers [start, end], got {span!r}")
        if span and len(span) == 2:  # the SDK's rule: lines max(1, start)..end, end -1 meaning the last
            first = max(1, span[0])
            lines = lines[first - 1 : None if span[1] == -1 else span[1]]
        return f"Here's the content of {path} with line numbers:\n" + _numbered(lines, first)

    def create(self, command: BetaMemoryTool20250818CreateCommand) -> str:
        path, text = command.path, command.file_text
        parts = self._writable(path)
        if not isinstance(text, str):
            raise ToolError("file_text must be a string")
        with self._writing(f"create {path}"):
            if self._stat(path, parts) is not None:
                raise ToolError(f"File {path} already exists")
            self._write(parts, text)
        return f"File created successfully at: {path}"

    def str_replace(self, command: BetaMemoryTool20250818StrReplaceCommand) -> str:
        path, old, new = command.path, command.old_str, command.new_str
        parts = self._writable(path)
        if not isinstance(old, str) or not old or not isinstance(new, str):
            raise ToolError("old_str must be a non-empty string and new_str a string")
        with self._writing(f"str_replace in {path}"):
            content = self._read(path, parts)
            count = content.count(old)
            if count == 0:
                raise ToolError(f"No replacement was performed, old_str `{old}` did not appear verbatim in {path}.")
            if count > 1:
                at, lines = 0, []
                while (at := content.find(old, at)) != -1:
                    lines.append(str(content.count("\n", 0, at) + 1))
                    at += 1
                raise ToolError(f"No replacement was performed. Multiple occurrences of old_str `{old}` in lines: "
                                f"{', '.join(lines)}. Please ensure it is unique")
            changed = content.count("\n", 0, content.find(old))
            content = content.replace(old, new)
            self._write(parts, content)
        lines = content.split("\n")
        lo = max(0, changed - 2)
        snippet = _numbered(lines[lo : changed + 3 + new.count("\n")], lo + 1)
        return ("The memory file has been edited. Here is the snippet showing the change (with line numbers):\n"
                f"{snippet}")

    def insert(self, command: BetaMemoryTool20250818InsertCommand) -> str:
        path, at, text = command.path, command.insert_line, command.insert_text
        parts = self._writable(path)
        if isinstance(at, bool) or not isinstance(at, int) or not isinstance(text, str):
            raise ToolError("insert_line must be an integer and insert_text a string")
        with self._writing(f"insert into {path}"):
            lines = self._read(path, parts).split("\n")
            if lines[-1] == "":
                lines.pop()
            if not 0 <= at <= len(lines):
                raise ToolError(f"Invalid `insert_line` parameter: {at}. It should be within the range "
                                f"[0, {len(lines)}].")
            lines.insert(at, text.rstrip("\n"))
            self._write(parts, "\n".join(lines) + "\n")
        return f"The file {path} has been edited."

    def delete(self, command: BetaMemoryTool20250818DeleteCommand) -> str:
        path = command.path
        if self._parts(path) == AGENT_PARTS:
            raise ToolError(f"Cannot delete the {MEMORIES} directory itself")
        parts = self._writable(path)
        with self._writing(f"delete {path}"):
            st = self._existing(path, parts)
            with paths.open_dir(self.root, parts[:-1]) as fd:
                if stat.S_ISDIR(st.st_mode):
                    rmtree_at(parts[-1], fd)
                else:
                    os.unlink(parts[-1], dir_fd=fd)
        return f"Successfully deleted {path}"

    def rename(self, command: BetaMemoryTool20250818RenameCommand) -> str:
        old_path, new_path = command.old_path, command.new_path
        if self._parts(old_path) == AGENT_PARTS:
            raise ToolError(f"Cannot rename the {MEMORIES} directory itself")
        old, new = self._writable(old_path), self._writable(new_path)
        if new[: len(old)] == old:
            raise ToolError(f"cannot move {old_path} into itself")
        with self._writing(f"rename {old_path} to {new_path}"):
            self._existing(old_path, old)
            if self._stat(new_path, new) is not None:
                raise ToolError(f"The destination {new_path} already exists")
            with paths.open_dir(self.root, old[:-1]) as src, \
                    paths.open_dir(self.root, new[:-1], create=True) as dst:
                os.rename(old[-1], new[-1], src_dir_fd=src, dst_dir_fd=dst)
        return f"Successfully renamed {old_path} to {new_path}"


class HormaAsyncMemoryTool(BetaAsyncAbstractMemoryTool):
    """The async twin: each command runs :class:`HormaMemoryTool`'s in a worker thread."""

    def __init__(self, workspace: str | os.PathLike[str] | Workspace, *,
                 cache_control: BetaCacheControlEphemeralParam | None = None):
        super().__init__(cache_control=cache_control)
        self.sync = HormaMemoryTool(workspace)

    async def _run(self, fn: Callable[[Any], str], command: Any) -> str:
        return await anyio.to_thread.run_sync(fn, command)

    async def view(self, command: BetaMemoryTool20250818ViewCommand) -> str:
        return await self._run(self.sync.view, command)

    async def create(self, command: BetaMemoryTool20250818CreateCommand) -> str:
        return await self._run(self.sync.create, command)

    async def str_replace(self, command: BetaMemoryTool20250818StrReplaceCommand) -> str:
        return await self._run(self.sync.str_replace, command)

    async def insert(self, command: BetaMemoryTool20250818InsertCommand) -> str:
        return await self._run(self.sync.insert, command)

    async def delete(self, command: BetaMemoryTool20250818DeleteCommand) -> str:
        return await self._run(self.sync.delete, command)

    async def rename(self, command: BetaMemoryTool20250818RenameCommand) -> str:
        return await self._run(self.sync.rename, command)


def shown_path(rel: str) -> str:
    """A workspace path as the model knows it: ``/memories/...`` for its own files, ``raw/...`` or
    ``notes/...`` (readable through recall, not the memory tool) for the rest."""
    own = "/".join(AGENT_PARTS) + "/"
    return f"{MEMORIES}/{rel.removeprefix(own)}" if rel.startswith(own) else rel


def recall_tool(memory: Memory, budget: int = 1000) -> BetaFunctionTool:
    """A ``recall`` tool for the tool runner, offered beside the memory tool: horma's retriever over the same
    workspace (the raw archive, the manager's notes and the agent's own files), returning the context with
    every item's path, lines and unit ids, and what it cost."""

    def recall(query: str, budget: int = budget) -> str:
        """Recall what the memory holds about a question, with each line's file, line range and source unit ids.

        Verified lines from the raw archive of past conversations, within a token budget.

        Args:
            query: The question or keywords to recall.
            budget: The most tokens the context may take.
        """
        try:
            ctx = memory.recall(query, budget)
        except WorkspaceError as exc:
            raise ToolError(str(exc)) from None
        return json.dumps({
            "context": ctx.text, "tokens": ctx.tokens,
            "items": [{"path": shown_path(i.path or ""), "start": i.start, "end": i.end, "units": i.refs}
                      for i in ctx.items],
            "cost": ctx.cost.as_dict(),
        }, ensure_ascii=False)

    return beta_tool(recall)
