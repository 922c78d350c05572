#!/usr/bin/env sh
# Register horma with Claude Code (stdio: Claude Code starts the server itself).
claude mcp add horma -- horma mcp "$HOME/mem"

# Or serve many workspaces over streamable HTTP and connect by URL:
#   horma mcp --root "$HOME/memories" --http 127.0.0.1:8765 &
#   claude mcp add --transport http horma http://127.0.0.1:8765/mcp
