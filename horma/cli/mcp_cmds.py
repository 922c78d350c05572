"""`horma mcp`: serve workspaces to any MCP client (the server itself is horma.mcp_server)."""

from __future__ import annotations

import ipaddress
import json
import shlex
import sys
from pathlib import Path

import typer

from horma.cli.common import err_console, shown
from horma.cli.interrupt import handled
from horma.cli.options import DOMAIN_OPT, MANAGER_OPT, RETRIEVER_OPT
from horma.errors import BadArgument, MissingExtra

MISSING_MCP = "the MCP server needs the mcp extra: pip install -e '.[mcp]'"
LOOPBACK_NAMES = ("localhost",)


def register(app: typer.Typer) -> None:
    app.command("mcp")(mcp)


def parse_http(value: str, allow_remote: bool) -> tuple[str, int]:
    """``HOST:PORT`` (``[::1]:PORT`` for IPv6); a non-loopback host only with ``--allow-remote``."""
    host, colon, port = value.rpartition(":")
    host = host.strip("[]")
    if not colon or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise BadArgument(f"--http must be HOST:PORT, e.g. 127.0.0.1:8765, got {value!r}")
    try:
        loopback = host in LOOPBACK_NAMES or ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = False
    if not loopback and not allow_remote:
        raise BadArgument(f"--http {value}: {host} is not a loopback address; anyone who can reach it could read "
                          "and write this memory (there is no authentication): pass --allow-remote to mean it")
    return host, int(port)


def client_config(workspace: Path | None, root: Path | None, fixed: str | None, backend: str | None) -> dict:
    """The ``mcpServers`` entry that starts this server: this interpreter and absolute paths.

    A desktop app starts servers without the user's shell, so neither a
    virtualenv's ``horma`` on PATH nor a relative path would resolve.
    """
    if (workspace is None) == (root is None):
        raise BadArgument("name one workspace folder, or serve a folder of workspaces with --root DIR")
    args = ["-m", "horma", "mcp"]
    if workspace is not None:
        args += [str(workspace.expanduser().resolve())]
    elif root is not None:  # always, given the check above
        args += ["--root", str(root.expanduser().resolve())] + (["--workspace", fixed] if fixed else [])
    if backend:
        args += ["--backend", backend]
    return {"mcpServers": {"horma": {"command": sys.executable, "args": args}}}


def _print_client_config(workspace: Path | None, root: Path | None, fixed: str | None, backend: str | None) -> None:
    block = client_config(workspace, root, fixed, backend)
    typer.echo(json.dumps(block, indent=2))
    entry = block["mcpServers"]["horma"]
    err_console.print("Claude Desktop: merge into claude_desktop_config.json (Settings > Developer > Edit Config); "
                      "Cursor: into .cursor/mcp.json or ~/.cursor/mcp.json; Claude Code: claude mcp add horma -- "
                      f"{shlex.join([entry['command'], *entry['args']])}",
                      highlight=False, soft_wrap=True, markup=False)
    try:
        import mcp as _  # noqa: F401
    except ImportError:
        err_console.print(f"note: {MISSING_MCP}", highlight=False, soft_wrap=True, markup=False)


def mcp(
    workspace: Path | None = typer.Argument(None, help="The workspace folder to serve (created if missing)."),
    root: Path | None = typer.Option(None, "--root", help="Serve a folder of workspaces instead: each call names "
                                                          "one (the tools' 'workspace' argument)."),
    fixed: str | None = typer.Option(None, "--workspace", "-w", help="With --root: serve only this workspace of "
                                                                     "the folder (calls need not name it)."),
    http: str | None = typer.Option(None, "--http", help="Serve streamable HTTP at HOST:PORT (endpoint /mcp) "
                                                         "instead of stdio."),
    allow_remote: bool = typer.Option(False, "--allow-remote", help="Allow --http on a non-loopback address."),
    max_body: int | None = typer.Option(None, "--max-body", min=1, max=1024,
                                        help="With --http: the largest request body in MiB (default: mcp.max_body, "
                                             "4); a larger one is answered with a JSON-RPC error for that call, and "
                                             "the session goes on."),
    manager: str | None = MANAGER_OPT,
    retriever: str | None = RETRIEVER_OPT,
    llm: str | None = typer.Option(None, "--llm", help="Model spec for LLM policies, e.g. openai:gpt-4o-mini."),
    backend: str | None = typer.Option(None, "--backend", "-b", help="Sandbox: auto, docker, bwrap or local "
                                                                     "(default: config, auto)."),
    domain: str | None = DOMAIN_OPT,
    unsafe_local: bool = typer.Option(False, "--unsafe-local", help="Let the client's run and search commands (and "
                                                                    "LLM agents) use the local sandbox: no isolation."),
    run_timeout: float | None = typer.Option(None, "--run-timeout", min=0.1, max=600,
                                             help="Seconds a client's run or search command may take "
                                                  "(default: mcp.run_timeout, 10)."),
    max_open: int | None = typer.Option(None, "--max-open", min=1,
                                        help="Workspaces kept open at once (sandboxes, memory); the least recently "
                                             "used idle one is closed past it (default: mcp.max_open, 16)."),
    idle_close: float | None = typer.Option(None, "--idle-close", min=0,
                                            help="Seconds after which an idle workspace is closed (0: never); its "
                                                 "next call reopens it (default: mcp.idle_close, 900)."),
    config: Path | None = typer.Option(None, "--config", "-c", help="Config file (default: $HORMA_CONFIG or "
                                                                    "~/.config/horma/config.yaml)."),
    print_config: bool = typer.Option(False, "--print-config", help="Print the JSON a desktop client needs to start "
                                                                    "this server (absolute paths), then exit."),
) -> None:
    """Serve a memory over MCP (Model Context Protocol) to Claude Desktop, Claude Code, Cursor or any agent.

    Tools: [bold]record[/] (archive units, organize notes; each id archived, unchanged or conflict),
    [bold]recall[/] (a context with every item's path, lines and unit ids), [bold]forget[/] and
    [bold]delete_note[/] (a dry run until confirm=true), and for a client that navigates by itself
    [bold]search[/] (hsearch), [bold]read[/] (numbered lines), [bold]run[/] (one command in the read-only
    sandbox), [bold]tree[/]. A failed call answers one line, "code: what is wrong". Resources: INDEX.md
    and the notes, as horma://WORKSPACE/PATH. Every record and recall reports its cost (tokens, LLM calls,
    sandbox commands, wall time, dollars where the model's price is known).

    Transport: stdio by default (the client starts the server); --http 127.0.0.1:8765 serves streamable HTTP
    at http://127.0.0.1:8765/mcp for clients that connect by URL.

    Claude Desktop, Cursor, Claude Code: [bold]horma mcp ./mem --print-config[/] prints the block to paste,
    with this Python and absolute paths (a desktop app does not see your shell's PATH or virtualenv):
    [bold]{"mcpServers": {"horma": {"command": "/abs/.venv/bin/python", "args": \\["-m", "horma", "mcp", "/abs/mem"]}}}[/]
    and the matching [bold]claude mcp add horma -- /abs/.venv/bin/python -m horma mcp /abs/mem[/] line.

    Many workspaces behind one server: [bold]horma mcp --root ./memories[/] (each call names its
    workspace; one workspace's calls never see another's files). Needs the extra: pip install -e '.\\[mcp]'
    """  # noqa: E501 - the client config block stays on one line, so it can be copied whole
    if print_config:
        _print_client_config(workspace, root, fixed, backend)
        return
    try:
        import mcp as _  # noqa: F401  (the SDK is an optional extra)
    except ImportError:
        raise MissingExtra(MISSING_MCP) from None
    from horma.cli.run_setup import check_policy, setup
    from horma.mcp_server import build_server
    from horma.mcp_workspaces import Options, Workspaces

    if (workspace is None) == (root is None):
        raise BadArgument("name one workspace folder, or serve a folder of workspaces with --root DIR")
    if fixed is not None and root is None:
        raise BadArgument("--workspace NAME picks a workspace of --root DIR; to serve one folder, pass it as the "
                          "argument")
    if unsafe_local and root is not None:
        raise BadArgument("--unsafe-local cannot be combined with --root: the local sandbox cannot keep workspaces "
                          "apart")
    host, port = parse_http(http, allow_remote) if http else ("127.0.0.1", 8000)
    run = setup(config, backend, unsafe_local, {
        "policies.manager": manager, "policies.retriever": retriever, "policies.domain": domain,
        "mcp.run_timeout": run_timeout, "mcp.max_open": max_open, "mcp.idle_close": idle_close,
        "mcp.max_body": max_body})
    model = None
    if check_policy("manager", run) | check_policy("retriever", run):
        model = run.llm("manager", llm)
    spaces = Workspaces(Options(run.settings, model), workspace=workspace, root=root, fixed=fixed)
    server = build_server(spaces, host=host, port=port, max_body=run.settings.mcp.max_body * 1024 * 1024)
    what = f"workspace {spaces.fixed}" if not spaces.multi else f"the workspaces under {spaces.root}"
    where = f"http://{host if ':' not in host else f'[{host}]'}:{port}/mcp" if http else "stdio"
    err_console.print(f"horma mcp: serving {shown(what)} over {shown(where)} ({run.backend} sandbox)",
                      highlight=False, soft_wrap=True)
    try:
        server.run("streamable-http" if http else "stdio")
    except KeyboardInterrupt:
        pass
    finally:
        handled()  # however the server ended after a Ctrl-C, it stopped as it means to: exit 0
        spaces.close()  # the server's workspaces live as long as the server, never as long as one session
