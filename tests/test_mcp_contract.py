"""The record contract and the MCP surface of issue 21, through the mcp SDK's own client against `horma mcp`
(a real subprocess, a real isolated sandbox): per-id archived/unchanged/conflict, optional and RFC 3339
times, line breaks refused, actors checked, forget and delete_note with a dry run first, a compact recall,
search lines with their paths, coded one-line errors, horma's version, and the HTTP body limit."""

from __future__ import annotations

import datetime as dt
import json
import re
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import pytest
from test_mcp import ENV, REPO, call, error, files_of, horma_mcp, isolated, session_over

import horma

mcp = pytest.importorskip("mcp", reason="the mcp extra is not installed")
from mcp import ClientSession, McpError, StdioServerParameters  # noqa: E402
from mcp.client.stdio import stdio_client  # noqa: E402

CODED = re.compile(r"^(failed|bad_argument|bad_unit|bad_path|not_found|workspace|config|provider|sandbox|missing_extra|"
                   r"unknown_tool|internal): \S")  # docs/errors.md's codes, and the two only MCP has
TURNS = [
    {"id": "d1:1", "time": "2024-03-02T09:15:00+01:00", "actor": "user", "text": "My sister Ana moves to Lisbon."},
    {"id": "d1:2", "actor": "assistant", "text": "Lisbon is lovely in June."},
    {"id": "d1:3", "time": "2024-03-02t09:17:30z", "actor": "user", "text": "She found a flat near the river."},
]


@asynccontextmanager
async def stdio_session(*args: str) -> AsyncIterator[tuple[ClientSession, object]]:
    """A client session over stdio with the server's initialize result (its serverInfo)."""
    params = StdioServerParameters(command=sys.executable, args=horma_mcp(*args)[1:], env=ENV, cwd=str(REPO))
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        yield session, await session.initialize()


async def coded(client: ClientSession, code: str, tool: str, **args) -> str:
    """The one coded line a failing call answers."""
    text = await error(client, tool, **args)
    assert "\n" not in text and CODED.match(text), text
    assert text.startswith(f"{code}: "), text
    return text


def agent_writes(ws: Path, path: str, text: str) -> None:
    """What an agent's memory tool writes (another process than the server, as in real use)."""
    from anthropic.types.beta import BetaMemoryTool20250818CreateCommand

    from horma.memory_tool import HormaMemoryTool

    HormaMemoryTool(ws).create(BetaMemoryTool20250818CreateCommand(command="create", path=path, file_text=text))


def raw_lines(ws: Path) -> list[str]:
    return [ln for f in sorted(ws.glob("raw/*/units.log")) for ln in f.read_text().splitlines() if ln]


def test_record_contract(tmp_path: Path) -> None:
    ws = tmp_path / "ws"

    async def scenario() -> None:
        async with stdio_session(str(ws), "--backend", isolated()) as (s, init):
            assert (init.serverInfo.name, init.serverInfo.version) == ("horma", horma.__version__)
            before = dt.datetime.now(dt.timezone.utc).replace(tzinfo=None, microsecond=0)
            first = (await s.call_tool("record", {"units": TURNS, "session": "s1"})).structuredContent
            assert first["ids"] == {"archived": ["d1:1", "d1:2", "d1:3"], "unchanged": [], "conflict": []}
            lines = raw_lines(ws)
            assert lines[0] == "d1:1 | 2024-03-02 08:15 | user: My sister Ana moves to Lisbon."  # +01:00 -> UTC
            assert lines[2] == "d1:3 | 2024-03-02 09:17:30 | user: She found a flat near the river."
            stamped = dt.datetime.fromisoformat(lines[1].split(" | ")[1])  # no time: now, in UTC
            assert before <= stamped <= dt.datetime.now(dt.timezone.utc).replace(tzinfo=None)

            again = (await s.call_tool("record", {"units": TURNS})).structuredContent
            assert again["ids"] == {"archived": [], "unchanged": ["d1:1", "d1:2", "d1:3"], "conflict": []}
            assert (again["archived"], again["skipped"], again["segment"]) == (0, 3, None)

            changed = [{**TURNS[0], "text": "My sister Ana moves to Porto."}, TURNS[1],
                       {"id": "d1:4", "time": "2024-03-02 09:20", "actor": "user", "text": "It has a balcony."}]
            state = files_of(ws)
            res = await s.call_tool("record", {"units": changed})
            assert not res.isError  # the new unit is archived; the conflict is listed, not an error of the call
            got = res.structuredContent
            assert got["ids"] == {"archived": ["d1:4"], "unchanged": ["d1:2"], "conflict": ["d1:1"]}
            assert got["conflicts"] == [{
                "id": "d1:1", "fields": ["text"],
                "archived": {"time": "2024-03-02 08:15", "actor": "user", "text": "My sister Ana moves to Lisbon."},
                "sent": {"time": "2024-03-02 08:15", "actor": "user", "text": "My sister Ana moves to Porto."}}]
            head, row = res.content[0].text.split("\n")  # what a model reads: counts, then each conflict
            assert head.startswith("archived 1 into raw/") and head.endswith(", unchanged 1, conflict 1"), head
            assert row.startswith("conflict d1:1 (text): archived {") and "moves to Porto." in row, row
            assert "Porto" not in "\n".join(raw_lines(ws))
            assert set(files_of(ws)) > set(state)  # only added files (the new segment and its notes)

            # refused: one coded line each, nothing written
            state = files_of(ws)
            unit = {"id": "n1", "time": "2024-03-03 10:00", "actor": "user", "text": "two\nlines"}
            assert "text holds a line break" in await coded(s, "bad_unit", "record", units=[unit])
            for bad, words in [({"actor": "a | b"}, "contains '|'"), ({"actor": " "}, "empty actor"),
                               ({"actor": "a\nb"}, "actor holds a line break"), ({"time": "yesterday"}, "RFC 3339"),
                               ({"id": "a b"}, "whitespace"), ({"text": "bell \x07"}, "control character")]:
                assert words in await coded(s, "bad_unit", "record", units=[{**unit, "text": "ok", **bad}])
            assert "units: List should have at least 1 item" in await coded(s, "bad_argument", "record", units=[])
            assert "newlines" in await coded(s, "bad_argument", "record", units=[unit], newlines="keep")
            assert files_of(ws) == state
            folded = await s.call_tool("record", {"units": [unit], "newlines": "fold"})
            assert folded.structuredContent["ids"]["archived"] == ["n1"]
            assert raw_lines(ws)[-1] == "n1 | 2024-03-03 10:00 | user: two lines"

            assert "budget: Input should be greater than or equal to 1" in await coded(
                s, "bad_argument", "recall", query="x", budget=0)
            assert await coded(s, "unknown_tool", "nope")
            assert "'..' is not allowed" in await coded(s, "bad_path", "read", path="../x")

    anyio.run(scenario)


def test_forget_and_delete_note_dry_run_first(tmp_path: Path) -> None:
    ws = tmp_path / "ws"

    async def scenario() -> None:
        async with stdio_session(str(ws), "--backend", isolated()) as (s, _):
            await call(s, "record", units=TURNS, session="s1")
            assert "user: She found a flat near the river." in await call(s, "search", query="flat river")
            state = files_of(ws)
            dry = (await s.call_tool("forget", {"units": ["d1:3"]})).structuredContent
            assert (dry["forgotten"], dry["dry_run"], dry["units"]) == (False, True, ["d1:3"])
            assert "confirm=true" in dry["next"] and files_of(ws) == state
            done = (await s.call_tool("forget", {"units": ["d1:3"], "confirm": True})).structuredContent
            assert (done["forgotten"], done["units"]) == (True, ["d1:3"])
            assert not any("flat near the river" in ln for ln in raw_lines(ws))
            assert "flat" not in (await call(s, "recall", query="Where did she find a flat?"))
            assert "flat near the river" not in await call(s, "search", query="flat river")  # the open client box
            # the server read the workspace afresh: the forgotten id is new again, not 'unchanged'
            back = (await s.call_tool("record", {"units": [TURNS[2]]})).structuredContent
            assert back["ids"]["archived"] == ["d1:3"]
            assert "no archived unit with id nope" in await coded(s, "not_found", "forget", units=["nope"])
            assert "say what to forget" in await coded(s, "bad_argument", "forget")

            agent_writes(ws, "/memories/plan.md", "- call Ana on Sunday\n")
            assert "notes/agent/plan.md:1:- call Ana on Sunday" in await call(s, "search", query="call Ana Sunday")
            state = files_of(ws)
            dry = (await s.call_tool("delete_note", {"path": "notes/agent/plan.md"})).structuredContent
            assert dry == {"workspace": "ws", "path": "notes/agent/plan.md", "lines": 1, "deleted": False,
                           "regenerated": False, "next": "nothing changed yet: call delete_note again with "
                                                         "confirm=true"}
            assert files_of(ws) == state
            await call(s, "delete_note", path="notes/agent/plan.md", confirm=True)
            assert not (ws / "notes/agent/plan.md").exists()
            assert "Ana on Sunday" not in await call(s, "search", query="call Ana Sunday")
            seg = next(ws.glob("raw/*/units.log")).relative_to(ws).as_posix()
            assert "not a note" in await coded(s, "bad_path", "delete_note", path=seg, confirm=True)
            (ws / "notes" / "dir.md").mkdir()
            assert "is a folder, not a note file" in await coded(s, "bad_path", "delete_note", path="notes/dir.md")
            assert "'..' is not allowed" in await coded(s, "bad_path", "delete_note", path="notes/../INDEX.md")
            assert (ws / "raw").is_dir() and (ws / seg).is_file()

    anyio.run(scenario)


def test_recall_is_compact_and_search_lists_lines(tmp_path: Path) -> None:
    ws = tmp_path / "ws"

    async def scenario() -> None:
        async with stdio_session(str(ws), "--backend", isolated()) as (s, _):
            await call(s, "record", units=TURNS, session="s1")
            agent_writes(ws, "/memories/preferences.md", "- Ana prefers flats near a river\n")
            res = await s.call_tool("recall", {"query": "Where is Ana moving?", "budget": 300})
            got = res.structuredContent
            text = res.content[0].text
            assert len(res.content) == 1 and text.startswith(got["context"])
            assert text.count(got["context"]) == 1 and json.dumps(got).count("Lisbon is lovely") == 1
            assert all(set(i) == {"path", "start", "end", "refs", "tokens", "score", "why"} for i in got["items"])
            assert "[sources]" in text and f"{got['items'][0]['path']}:{got['items'][0]['start']}-" in text
            size = len(text) + len(json.dumps(got))
            assert size < 2 * len(got["context"]) + 1200, (size, len(got["context"]))

            pref = (await s.call_tool("recall", {"query": "Which flats does Ana prefer?"})).structuredContent
            assert "Ana prefers flats near a river" in pref["context"]
            assert "notes/agent/preferences.md" in [i["path"] for i in pref["items"]]

            hits = (await call(s, "search", query="Ana flats river", n=5)).splitlines()
            assert hits[0] == "notes/agent/preferences.md:1:- Ana prefers flats near a river"  # own lines first
            assert all(re.match(r"^(raw/[^:]+/units\.log|notes/agent/[^:]+\.md):\d+:", h) for h in hits), hits
            assert any(h.endswith("user: She found a flat near the river.") for h in hits)

    anyio.run(scenario)


def test_http_body_over_the_limit_is_a_json_rpc_error_and_the_session_goes_on(tmp_path: Path) -> None:
    backend = isolated()

    async def scenario() -> None:
        async with session_over("http", str(tmp_path / "ws"), "--backend", backend, "--max-body", "1") as s:
            big = [{"id": f"b{i}", "time": "2024-03-02 09:00", "actor": "user", "text": "x" * 4000}
                   for i in range(300)]  # about 1.2 MB of JSON
            with pytest.raises(McpError, match=r"request too large: over 1,048,576 bytes .*the session goes on"):
                await s.call_tool("record", {"units": big})
            rec = await s.call_tool("record", {"units": TURNS})
            assert not rec.isError and rec.structuredContent["archived"] == 3
            assert "Lisbon" in await call(s, "recall", query="Where is Ana moving?")

    anyio.run(scenario)
