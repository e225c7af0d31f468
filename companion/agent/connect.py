"""The exact configuration another assistant needs to reach the memory (Claude Desktop, any MCP client)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

SERVER_NAME = "companion-memory"


def launch_command() -> list[str]:
    """How to start this Companion from another program: the frozen app itself, or this Python."""
    if getattr(sys, "frozen", False):
        return [sys.executable]
    return [sys.executable, "-m", "companion"]


def stdio_entry(home: Path, agent: str) -> dict[str, object]:
    command = launch_command()
    return {"command": command[0], "args": command[1:] + ["--home", str(home), "mcp", "--agent", agent]}


def claude_desktop_config(home: Path, agent: str = "claude-desktop") -> str:
    """The block for claude_desktop_config.json (Claude Desktop starts the server over stdio)."""
    return json.dumps({"mcpServers": {SERVER_NAME: stdio_entry(home, agent)}}, indent=2)


def generic_config(home: Path, agent: str, port: int, token: str | None) -> str:
    """For any MCP client: the same stdio entry, or streamable HTTP on 127.0.0.1 with a bearer token
    (start it with `companion mcp --http`)."""
    http: dict[str, object] = {"type": "streamable-http", "url": f"http://127.0.0.1:{port}/mcp"}
    http["headers"] = {"Authorization": f"Bearer {token}" if token else "Bearer <run: companion mcp token " + agent + ">"}
    return json.dumps({"mcpServers": {SERVER_NAME: stdio_entry(home, agent), f"{SERVER_NAME}-http": http}}, indent=2)
