"""The MCP resources of the served workspaces: each one's ``INDEX.md`` and notes as ``horma://<workspace>/<path>``.

Listed as they are on disk at each request (a note the manager wrote a second
ago is there), at most :data:`MAX_RESOURCES`; read through :mod:`horma.paths`
(no ``..``, no links, ``.horma/`` hidden), and only ``INDEX.md`` and
``notes/...``: the raw archive is read with the ``read`` tool, a page at a time.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote, unquote

import anyio.to_thread
from mcp.server.fastmcp.exceptions import ResourceError
from mcp.server.lowlevel.helper_types import ReadResourceContents
from mcp.types import Resource, ResourceTemplate

from horma import paths
from horma.workspace import INDEX_FILE, NOTES_DIR, WorkspaceError

SCHEME = "horma"
MAX_RESOURCES = 2000


class WorkspaceResources:
    """The resource half of the server (mixed into :class:`horma.mcp_server.HormaMCP`, which sets ``spaces``)."""

    spaces: Any  # horma.mcp_workspaces.Workspaces

    async def list_resources(self) -> list[Resource]:
        return await anyio.to_thread.run_sync(self._resources)

    def _resources(self) -> list[Resource]:
        out: list[Resource] = []
        for name in self.spaces.names():
            ws = self.spaces.get(name).workspace
            rels = [INDEX_FILE] + [ws.rel(p) for p in ws.note_files() if not p.is_symlink()]
            for rel in rels:
                if len(out) >= MAX_RESOURCES:
                    return out
                # pydantic validates the str into the AnyUrl the field is typed as (mypy sees the field type only)
                out.append(Resource(uri=resource_uri(name, rel), name=f"{name}/{rel}",  # type: ignore[arg-type]
                                    mimeType="text/markdown",
                                    description="what is where in this memory" if rel == INDEX_FILE else "a note"))
        return out

    async def list_resource_templates(self) -> list[ResourceTemplate]:
        return [ResourceTemplate(uriTemplate=f"{SCHEME}://{{workspace}}/{{+path}}", name="workspace file",
                                 description="INDEX.md or a note (notes/...) of a workspace", mimeType="text/markdown")]

    async def read_resource(self, uri: Any) -> list[ReadResourceContents]:
        name, rel = parse_uri(str(uri))
        parts = paths.split(rel)
        if parts != [INDEX_FILE] and (not parts or parts[0] != NOTES_DIR):
            raise ResourceError(f"{uri}: resources are INDEX.md and notes/...; use the read tool for other files")

        def read() -> str:
            return paths.read_text(self.spaces.get(name).workspace.root, parts)

        try:
            text = await anyio.to_thread.run_sync(read)
        except WorkspaceError as exc:
            raise ResourceError(str(exc)) from None
        return [ReadResourceContents(content=text, mime_type="text/markdown")]


def resource_uri(name: str, rel: str) -> str:
    return f"{SCHEME}://{name}/{quote(rel)}"


def parse_uri(uri: str) -> tuple[str, str]:
    prefix = f"{SCHEME}://"
    if not uri.startswith(prefix) or "/" not in uri[len(prefix):]:
        raise ResourceError(f"{uri}: not a horma resource (expected {SCHEME}://<workspace>/<path>)")
    name, _, rel = uri[len(prefix):].partition("/")
    return name, unquote(rel)


__all__ = ["MAX_RESOURCES", "SCHEME", "WorkspaceResources", "parse_uri", "resource_uri"]
