"""The HTTP body limit of ``horma mcp --http``, answered in JSON-RPC.

The MCP SDK refuses a request body over its limit (4 MiB by default) with a
bare ``413``; its client raises on that status, which ends the whole session
(every later call of that client fails). This middleware, in front of the
SDK's, answers an oversized request with a JSON-RPC error for that request's
id instead: the call fails with one clear line and the session goes on. The
request's id is the top-level ``"id"``: the first key of the body or its last
(the SDK's client writes it last), so an oversized body is read to its end
(at most :data:`MAX_DRAIN` bytes) keeping only its first and last few KB.
Where no id is found (a notification, a body past the drain cap), the bare
413 stays.
"""

from __future__ import annotations

import json
import re
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

DEFAULT_MAX_BODY = 4 * 1024 * 1024  # the SDK's own default, kept
EDGE_BYTES = 4096  # how much of each end of an oversized body is kept to find its request id
MAX_DRAIN = 256 * 1024 * 1024  # past this, an oversized body is not read further: a bare 413
INVALID_REQUEST = -32600
_VALUE = rb'(-?\d{1,18}|"(?:[^"\\]|\\.){0,200}")'
_FIRST_ID = re.compile(rb'^\s*\{[^{\[]*?"id"\s*:\s*' + _VALUE)  # before any nested object or list opens
_LAST_ID = re.compile(rb'"id"\s*:\s*' + _VALUE + rb'\s*\}\s*$')  # the outermost object's last key


def request_id(head: bytes, tail: bytes) -> int | str | None:
    """The JSON-RPC id of a request body from its first and last bytes, or None."""
    m = _FIRST_ID.search(head) or _LAST_ID.search(tail)
    return None if m is None else json.loads(m.group(1))


class BodyLimit:
    """ASGI middleware: a POST body over ``limit`` bytes gets a JSON-RPC error for its id (see the module)."""

    def __init__(self, app: ASGIApp, limit: int = DEFAULT_MAX_BODY):
        if limit <= 0:
            raise ValueError("the body limit must be a positive number of bytes")
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("method") != "POST":
            await self.app(scope, receive, send)
            return
        declared = _content_length(scope)
        chunks: list[bytes] = []
        size = 0
        more = True
        trailing: Message | None = None
        while more:
            message = await receive()
            if message["type"] != "http.request":
                trailing = message  # the client went away: pass it on as it came
                break
            body = message.get("body", b"")
            chunks.append(body)
            size += len(body)
            more = message.get("more_body", False)
            if size > self.limit or (declared is not None and declared > self.limit):
                await self._refuse(send, receive, b"".join(chunks), size, more)
                return
        replay: list[Message] = [{"type": "http.request", "body": b"".join(chunks), "more_body": trailing is not None}]
        if trailing is not None:
            replay.append(trailing)

        async def replayed() -> Message:
            return replay.pop(0) if replay else await receive()

        await self.app(scope, replayed, send)

    async def _refuse(self, send: Send, receive: Receive, start: bytes, size: int, more: bool) -> None:
        """Read the rest of the body keeping its two ends, then answer for its id (or a bare 413)."""
        head, tail = start[:EDGE_BYTES], start[-EDGE_BYTES:]
        while more and size <= MAX_DRAIN:
            message = await receive()
            if message["type"] != "http.request":
                return  # the client went away: nobody to answer
            body = message.get("body", b"")
            size += len(body)
            tail = (tail + body)[-EDGE_BYTES:]
            more = message.get("more_body", False)
        rid = None if more else request_id(head, tail)
        if rid is None:
            await _answer(send, 413, b"text/plain", b"Request body too large")
            return
        text = (f"request too large: over {self.limit:,} bytes (the server's --max-body); the session goes on: "
                "send it in smaller parts (fewer units per record call)")
        reply: dict[str, Any] = {"jsonrpc": "2.0", "id": rid, "error": {"code": INVALID_REQUEST, "message": text}}
        await _answer(send, 200, b"application/json", json.dumps(reply).encode())


def _content_length(scope: Scope) -> int | None:
    for name, value in scope.get("headers", []):
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


async def _answer(send: Send, status: int, kind: bytes, body: bytes) -> None:
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", kind), (b"content-length", str(len(body)).encode()),
                            (b"connection", b"close")]})
    await send({"type": "http.response.body", "body": body})


__all__ = ["DEFAULT_MAX_BODY", "MAX_DRAIN", "BodyLimit", "request_id"]
