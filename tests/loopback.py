"""Loopback LLM servers for tests: the real Anthropic Messages and OpenAI Chat Completions wire formats.

Start one with a script of replies, point the real SDK client (or
``make_llm``) at ``server.base_url``, and inspect ``server.requests``::

    from loopback import LoopbackServer, call, say, fault, slow, malformed   # tests/ is on sys.path under pytest

    with LoopbackServer("openai", [call("bash", command="ls"), fault(429), call("done")]) as srv:
        llm = make_llm(f"openai:test-model@{srv.base_url}", api_key="sk-test", retry_base_delay=0.001)
        ...
        srv.requests[0].body["tools"]          # the JSON the client sent
        srv.tool_results(1)                    # tool results carried by request 1

Script items, served one per HTTP request in order:

- ``say(text)``: a plain text reply (``end_turn`` / ``stop``);
- ``call(name, **arguments)``: one tool call; ``turn(text, call(...), call(...))``
  for text plus several calls in one reply;
- ``malformed(name, raw)``: a tool call whose arguments are the raw string
  ``raw`` (invalid JSON for OpenAI; a non-object ``input`` for Anthropic);
- ``fault(status, retry_after=None)``: an HTTP error in the provider's error format;
- ``slow(seconds, item)``: wait, then serve ``item`` (a client timeout shorter
  than ``seconds`` sees a timeout and its retry gets the next item).

``tool_calling=False`` (OpenAI flavor) makes the server behave like vLLM
without ``--enable-auto-tool-choice``: any request carrying ``tools`` gets a
400. ``usage=False`` (OpenAI flavor) omits the ``usage`` field, as some local
servers do. A request after the script is used up gets a 500 naming the problem,
so a test fails loudly instead of hanging.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = ["LoopbackServer", "Recorded", "call", "fault", "malformed", "say", "slow", "turn"]


@dataclass
class Call:
    name: str
    arguments: dict | str


@dataclass
class Turn:
    text: str = ""
    calls: list[Call] = field(default_factory=list)


@dataclass
class Fault:
    status: int
    retry_after: float | None = None


@dataclass
class Slow:
    seconds: float
    then: Turn | Fault


def say(text: str) -> Turn:
    return Turn(text)


def call(name: str, **arguments: Any) -> Turn:
    return Turn("", [Call(name, arguments)])


def turn(text: str, *calls: Turn) -> Turn:
    return Turn(text, [c for t in calls for c in t.calls])


def malformed(name: str, raw: str) -> Turn:
    return Turn("", [Call(name, raw)])


def fault(status: int, retry_after: float | None = None) -> Fault:
    return Fault(status, retry_after)


def slow(seconds: float, then: Turn | Fault) -> Slow:
    return Slow(seconds, then)


@dataclass
class Recorded:
    """One request as the server received it."""

    path: str
    headers: dict[str, str]
    body: dict


def _usage(body: bytes, turn: Turn) -> tuple[int, int]:
    """Deterministic token counts: about one per four bytes, like a real tokenizer's order of magnitude."""
    out = len(turn.text) + sum(len(json.dumps(c.arguments)) for c in turn.calls)
    return max(1, len(body) // 4), max(1, out // 4)


def _anthropic(turn: Turn, n: int, model: str, body: bytes) -> dict:
    content: list[dict] = [{"type": "text", "text": turn.text}] if turn.text else []
    for i, c in enumerate(turn.calls):
        content.append({"type": "tool_use", "id": f"toolu_{n:03d}_{i}", "name": c.name, "input": c.arguments})
    tin, tout = _usage(body, turn)
    return {
        "id": f"msg_{n:03d}", "type": "message", "role": "assistant", "model": model, "content": content,
        "stop_reason": "tool_use" if turn.calls else "end_turn", "stop_sequence": None,
        "usage": {"input_tokens": tin, "output_tokens": tout},
    }


def _openai(turn: Turn, n: int, model: str, body: bytes) -> dict:
    message: dict[str, Any] = {"role": "assistant", "content": turn.text or None}
    if turn.calls:
        message["tool_calls"] = [
            {"id": f"call_{n:03d}_{i}", "type": "function",
             "function": {"name": c.name,
                          "arguments": c.arguments if isinstance(c.arguments, str) else json.dumps(c.arguments)}}
            for i, c in enumerate(turn.calls)
        ]
    tin, tout = _usage(body, turn)
    return {
        "id": f"chatcmpl-{n:03d}", "object": "chat.completion", "created": int(time.time()), "model": model,
        "choices": [{"index": 0, "message": message, "logprobs": None,
                     "finish_reason": "tool_calls" if turn.calls else "stop"}],
        "usage": {"prompt_tokens": tin, "completion_tokens": tout, "total_tokens": tin + tout},
    }


def _error_body(flavor: str, status: int, message: str) -> dict:
    if flavor == "anthropic":
        kind = {429: "rate_limit_error", 400: "invalid_request_error", 529: "overloaded_error"}.get(status, "api_error")
        return {"type": "error", "error": {"type": kind, "message": message}}
    return {"error": {"message": message, "type": "server_error" if status >= 500 else "invalid_request_error",
                      "param": None, "code": status}}


class LoopbackServer:
    """An HTTP server on 127.0.0.1 (free port) speaking one provider's wire format."""

    def __init__(self, flavor: str, script: list[Turn | Fault | Slow], *, tool_calling: bool = True,
                 usage: bool = True):
        if flavor not in ("anthropic", "openai"):
            raise ValueError(f"flavor must be anthropic or openai, got {flavor!r}")
        self.flavor = flavor
        self.script = list(script)
        self.tool_calling = tool_calling
        self.usage = usage
        self.requests: list[Recorded] = []
        self._lock = threading.Lock()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        """What the SDK takes: the host for Anthropic, ``.../v1`` for OpenAI."""
        host = f"http://127.0.0.1:{self._httpd.server_address[1]}"
        return host if self.flavor == "anthropic" else f"{host}/v1"

    @property
    def remaining(self) -> int:
        return len(self.script)

    def tool_results(self, i: int) -> list[dict]:
        """Tool results in request ``i``, neutral: ``[{"id": ..., "content": ...}]``."""
        body = self.requests[i].body
        out = []
        for m in body.get("messages", []):
            if self.flavor == "openai" and m.get("role") == "tool":
                out.append({"id": m["tool_call_id"], "content": m["content"]})
            if self.flavor == "anthropic" and isinstance(m.get("content"), list):
                for b in m["content"]:
                    if b.get("type") == "tool_result":
                        content = b["content"]
                        if isinstance(content, list):
                            content = "".join(x.get("text", "") for x in content)
                        out.append({"id": b["tool_use_id"], "content": content})
        return out

    def __enter__(self) -> LoopbackServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def _next(self, raw: bytes, path: str, headers: dict[str, str]) -> tuple[int, dict, dict[str, str], float]:
        """Record the request; return (status, JSON body, extra headers, delay)."""
        try:
            body = json.loads(raw or b"{}")
        except json.JSONDecodeError:
            body = {"_unparsed": raw.decode(errors="replace")}
        with self._lock:
            self.requests.append(Recorded(path, headers, body))
            n = len(self.requests)
            item = self.script.pop(0) if self.script else None
        want = "/v1/messages" if self.flavor == "anthropic" else "/v1/chat/completions"
        if path.split("?")[0] != want:
            return 404, _error_body(self.flavor, 404, f"no route {path}"), {}, 0.0
        if not self.tool_calling and body.get("tools"):
            msg = '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set'
            if item is not None:
                with self._lock:
                    self.script.insert(0, item)
            return 400, _error_body(self.flavor, 400, msg), {}, 0.0
        delay = 0.0
        if isinstance(item, Slow):
            delay, item = item.seconds, item.then
        if item is None:
            return 500, _error_body(self.flavor, 500, f"loopback script exhausted at request {n}"), {}, delay
        if isinstance(item, Fault):
            extra = {"retry-after": str(item.retry_after)} if item.retry_after is not None else {}
            return item.status, _error_body(self.flavor, item.status, f"injected HTTP {item.status}"), extra, delay
        render = _anthropic if self.flavor == "anthropic" else _openai
        payload = render(item, n, str(body.get("model", "loopback")), raw)
        if not self.usage and self.flavor == "openai":
            del payload["usage"]
        return 200, payload, {}, delay

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True  # headers and body go out in two writes

            def do_POST(self) -> None:  # http.server's naming
                raw = self.rfile.read(int(self.headers.get("content-length") or 0))
                headers = {k.lower(): v for k, v in self.headers.items()}
                status, payload, extra, delay = server._next(raw, self.path, headers)
                if delay:
                    time.sleep(delay)
                data = json.dumps(payload).encode()
                try:
                    self.send_response(status)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(data)))
                    for k, v in extra.items():
                        self.send_header(k, v)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a timeout test)

            def log_message(self, *args: Any) -> None:
                pass

        return Handler
