"""A short MCP client session with horma: start `horma mcp` over stdio, record a few turns, recall them.

    python examples/mcp/client_session.py ./mem        # needs: pip install -e '.[mcp]'

It uses the mcp SDK's own client, as any agent framework would. Over HTTP,
start `horma mcp ./mem --http 127.0.0.1:8765` and swap `stdio_client` for
`streamable_http_client("http://127.0.0.1:8765/mcp")`.
"""

import asyncio
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

TURNS = [
    {"id": "s1:1", "time": "2024-03-02 09:15", "actor": "user", "text": "My sister Ana moves to Lisbon in June."},
    {"id": "s1:2", "time": "2024-03-02 09:16", "actor": "assistant", "text": "Lisbon is lovely in June."},
    {"id": "s1:3", "time": "2024-03-02 09:17", "actor": "user", "text": "She found a flat near the river."},
]


async def main(workspace: str) -> None:
    # `horma mcp WS` is what Claude Desktop or Claude Code would start; `python -m horma` works without PATH
    server = StdioServerParameters(command=sys.executable, args=["-m", "horma", "mcp", workspace])
    async with stdio_client(server) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        tools = await session.list_tools()
        print("tools:", ", ".join(sorted(t.name for t in tools.tools)))

        recorded = await session.call_tool("record", {"units": TURNS, "session": "lisbon"})
        done = recorded.structuredContent
        print(f"archived {done['archived']} units into {done['segment']} in {done['cost']['wall_ms']:.0f} ms")

        recalled = await session.call_tool("recall", {"query": "Where is Ana moving, and when?", "budget": 300})
        ctx = recalled.structuredContent
        for item in ctx["items"]:
            print(f"{item['path']}:{item['start']}-{item['end']} units {', '.join(item['refs'])}")
        print(ctx["context"])
        cost = ctx["cost"]
        print(f"{ctx['tokens']} tokens, {cost['llm_calls']} LLM calls, {cost['sandbox_commands']} sandbox commands, "
              f"{cost['wall_ms']:.0f} ms")

        tree = await session.call_tool("tree", {"depth": 1})
        print(tree.content[0].text)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: client_session.py WORKSPACE")
    asyncio.run(main(sys.argv[1]))
