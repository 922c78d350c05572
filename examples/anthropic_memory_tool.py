"""Claude with a horma workspace as its memory, through the anthropic SDK's tool runner.

    ANTHROPIC_API_KEY=... python examples/anthropic_memory_tool.py ./mem "Remember that I take my tea green."

The memory tool (memory_20250818) sees the workspace's notes/agent/ folder as
/memories: Claude's own files, which horma's manager never overwrites and
whose lines recall quotes. Beside it, a `recall` tool runs horma's retriever
over the whole workspace (the exact raw archive, the manager's notes and
Claude's files); .horma/ is never seen. The client reads ANTHROPIC_BASE_URL
too, so the example runs against any Messages-API
endpoint (a proxy, or the loopback server the tests use).
"""

import json
import os
import sys

import anthropic

import horma
from horma.memory_tool import HormaMemoryTool, recall_tool

SYSTEM = ("You have a long-term memory. Check /memories before answering; keep durable facts about the user "
          "as short notes under /memories/. Use recall to find what past conversations said.")


def main(workspace: str, message: str) -> None:
    with horma.Memory(workspace) as mem:
        client = anthropic.Anthropic()  # ANTHROPIC_API_KEY, and ANTHROPIC_BASE_URL when set
        runner = client.beta.messages.tool_runner(
            model=os.environ.get("HORMA_EXAMPLE_MODEL", "claude-sonnet-4-6"),
            max_tokens=2048,
            system=SYSTEM,
            messages=[{"role": "user", "content": message}],
            tools=[HormaMemoryTool(mem.workspace), recall_tool(mem)],
            betas=["context-management-2025-06-27"],
        )
        for reply in runner:  # one model turn at a time; the runner answers its tool calls in between
            for block in reply.content:
                if block.type == "text":
                    print(block.text)
                elif block.type == "tool_use":
                    print(f"-> {block.name} {json.dumps(block.input, ensure_ascii=False)}")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: anthropic_memory_tool.py WORKSPACE MESSAGE")
    main(sys.argv[1], sys.argv[2])
