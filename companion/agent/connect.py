"""What another assistant needs to reach the memory: the exact config for Claude Desktop or any MCP client, and its HTTP token."""

from __future__ import annotations

import hmac
import json
import secrets
import sys
from pathlib import Path

from companion.agent.sharing import check_agent
from companion.atomic import atomic_write
from companion.paths import Home

SERVER_NAME = "companion-memory"
TOKENS_VERSION = 1


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


def tokens_path(home: Home) -> Path:
    return home.state / "mcp_tokens.json"


def load_tokens(home: Home) -> dict[str, str]:
    """agent -> token; read on every request, so a new or revoked token counts at once."""
    try:
        data = json.loads(tokens_path(home).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    raw = data.get("tokens", {}) if isinstance(data, dict) else {}
    return {k: v for k, v in raw.items() if isinstance(k, str) and isinstance(v, str) and len(v) >= 32}


def issue_token(home: Home, agent: str) -> str:
    """A new token for `agent` (replacing its old one)."""
    tokens = load_tokens(home)
    tokens[check_agent(agent)] = secrets.token_urlsafe(32)
    atomic_write(tokens_path(home), json.dumps({"schema_version": TOKENS_VERSION, "tokens": tokens}, indent=1))
    return tokens[agent]


def agent_for_token(home: Home, header: str | None) -> str | None:
    """The agent whose token the Authorization header carries, or None (compared in constant time)."""
    if not header or not header.startswith("Bearer "):
        return None
    given = header[len("Bearer "):].strip().encode()
    found = None
    for agent, token in load_tokens(home).items():
        if hmac.compare_digest(given, token.encode()):
            found = agent
    return found
