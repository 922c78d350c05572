"""`horma mcp --print-config`: the JSON a desktop client pastes starts a working server from anywhere."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import anyio
import pytest
from typer.testing import CliRunner

import horma
from horma.cli import app
from horma.workspace import Unit

mcp = pytest.importorskip("mcp", reason="the mcp extra is not installed")
from mcp import ClientSession, StdioServerParameters  # noqa: E402
from mcp.client.stdio import stdio_client  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
runner = CliRunner()


def test_printed_config_starts_the_server_from_another_folder(tmp_path, monkeypatch):
    with horma.Memory(tmp_path / "mem", sandbox="local") as mem:
        mem.record([Unit("s1:1", "2024-03-02 09:15", "me", "My sister Ana moves to Lisbon in June.")], slug="s1")
    monkeypatch.chdir(tmp_path)
    res = runner.invoke(app, ["mcp", "mem", "--print-config", "--backend", "local"])  # a relative path
    assert res.exit_code == 0, res.output
    entry = json.loads(res.stdout)["mcpServers"]["horma"]
    assert entry == {"command": sys.executable,
                     "args": ["-m", "horma", "mcp", str(tmp_path / "mem"), "--backend", "local"]}
    assert "claude mcp add horma -- " in res.stderr
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {**os.environ, "PYTHONPATH": str(REPO)}  # this checkout's code, as an install would give

    async def scenario() -> str:
        params = StdioServerParameters(command=entry["command"], args=entry["args"], env=env, cwd=str(elsewhere))
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            got = await session.call_tool("recall", {"query": "Where is Ana moving?", "budget": 200})
            return "".join(getattr(c, "text", "") for c in got.content)

    assert "s1:1" in anyio.run(scenario)


def test_print_config_needs_a_workspace_or_root(tmp_path):
    res = runner.invoke(app, ["mcp", "--print-config"])
    assert res.exit_code == 2 and "name one workspace folder" in res.stderr
    res = runner.invoke(app, ["mcp", "--root", str(tmp_path), "--workspace", "alpha", "--print-config"])
    assert json.loads(res.stdout)["mcpServers"]["horma"]["args"] == ["-m", "horma", "mcp", "--root", str(tmp_path),
                                                                   "--workspace", "alpha"]
