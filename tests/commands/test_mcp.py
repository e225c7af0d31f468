"""`companion mcp` through the official SDK's own client, over stdio and streamable HTTP: the tools, the
token, private turns never served, masking, per-agent consent, and writes that are only proposals."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import anyio
import httpx2
import pytest
from mcp import Client, MCPError, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from companion.curate.gate import MemoryWriter
from companion.curate.proposals import ProposalQueue
from companion.memory.history import Actor
from companion.memory.daylog import DayLog
from companion.memory.longterm import LongTermStore
from companion.paths import Home

TZ = timezone(timedelta(hours=1))
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}


def _companion(home: Home, *args: str) -> str:
    done = subprocess.run([sys.executable, "-m", "companion", "--home", str(home.root), *args], env=ENV,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


@pytest.fixture
def memory(home: Home) -> Home:
    now = [datetime(2026, 12, 1, 9, 0, tzinfo=TZ)]
    log = DayLog(home.days, lambda: now[0])
    for text, extra in [
        ("I adopted a beagle called Toffee, write to me at lea.martin@example.com", {}),
        ("我下个月去成都看大熊猫", {}),
        ("The beagle chewed my diary, I'm furious", {"private": True}),
        ("The beagle fund password: Zq9!xv_77Lm", {}),
    ]:
        log.append("user", text, **extra)
        now[0] += timedelta(minutes=2)
    writer = MemoryWriter(LongTermStore(home))
    writer.append("USER.md", "- Name: Lea (2026-12-01#1)", "Profile", actor=Actor.EDITOR)
    writer.append("USER.md", "- Phone +33 6 12 34 56 78 (2026-12-01#1)", "Profile", actor=Actor.EDITOR)
    writer.append("MEMORY.md", "- Dentist on 2026-12-09 (2026-12-01#2)", "Upcoming", actor=Actor.EDITOR)
    return home


def _texts(result) -> str:
    assert not result.is_error, result.content[0].text
    return result.content[0].text


def test_stdio_round_trip_through_the_sdk_client(memory):
    _companion(memory, "mcp", "allow", "claude-desktop", "search", "profile", "upcoming", "propose")
    params = StdioServerParameters(command=sys.executable, env=ENV,
                                   args=["-m", "companion", "--home", str(memory.root), "mcp", "--agent", "claude-desktop"])

    async def session() -> dict:
        out: dict = {}
        async with Client(params, read_timeout_seconds=60) as client:
            out["tools"] = sorted(t.name for t in (await client.list_tools()).tools)
            out["en"] = json.loads(_texts(await client.call_tool("search_memory", {"query": "beagle"})))
            out["zh"] = json.loads(_texts(await client.call_tool("search_memory", {"query": "大熊猫"})))
            out["dated"] = json.loads(_texts(await client.call_tool("search_memory", {"query": "beagle", "until": "2026-11-30"})))
            out["profile"] = json.loads(_texts(await client.call_tool("get_profile", {})))
            out["upcoming"] = json.loads(_texts(await client.call_tool("upcoming", {})))
            out["digests"] = await client.call_tool("recent_digests", {})
            out["proposed"] = json.loads(_texts(await client.call_tool(
                "propose_memory", {"text": "Prefers meetings in the morning", "file": "USER.md"})))
            out["resources"] = sorted(str(r.uri) for r in (await client.list_resources()).resources)
            out["USER.md"] = (await client.read_resource("memory://USER.md")).contents[0].text
            try:
                out["MEMORY.md"] = await client.read_resource("memory://MEMORY.md")
            except MCPError as exc:  # not allowed for this agent
                out["MEMORY.md"] = exc
        return out

    out = anyio.run(session)
    assert out["tools"] == ["get_profile", "propose_memory", "recent_digests", "search_memory", "upcoming"]
    english = " ".join(h["text"] for h in out["en"])
    assert "Toffee" in english and "[email]" in english and "lea.martin@example.com" not in english
    assert "diary" not in english  # the private turn is never served
    assert "Zq9!xv_77Lm" not in english and "[secret]" in english
    assert out["zh"] and "大熊猫" in out["zh"][0]["text"]
    assert out["dated"] == []
    assert "Name: Lea" in out["profile"]["USER.md"] and "MEMORY.md" not in out["profile"]
    assert "[phone]" in out["profile"]["USER.md"] and "12 34 56 78" not in out["profile"]["USER.md"]
    assert out["upcoming"] == ["Dentist on 2026-12-09"]
    assert out["digests"].is_error and "has not allowed" in out["digests"].content[0].text
    assert out["resources"] == ["memory://MEMORY.md", "memory://SOUL.md", "memory://USER.md"]
    assert "Name: Lea" in out["USER.md"]
    assert isinstance(out["MEMORY.md"], MCPError) and "has not allowed" in str(out["MEMORY.md"])

    store = LongTermStore(memory)
    assert "morning" not in store.read("USER.md").body  # a proposal, never a write
    [waiting] = ProposalQueue(memory).items()
    assert waiting.source == "claude-desktop" and waiting.text == "Prefers meetings in the morning"
    assert waiting.id == out["proposed"]["proposal"]
    events = [r for r in DayLog(memory.days).iter_backwards() if r.role == "event" and "agent_request" in r.extra]
    asked = [(e.extra["agent_request"]["tool"], e.extra["agent_request"]["items"]) for e in reversed(events)]
    assert asked[:4] == [("search_memory", len(out["en"])), ("search_memory", len(out["zh"])), ("search_memory", 0),
                         ("get_profile", 2)]
    assert all(e.extra["agent_request"]["agent"] == "claude-desktop" for e in events)
    assert "lea.martin" not in " ".join(e.text for e in events)


def test_an_agent_the_user_has_not_allowed_gets_nothing(memory):
    params = StdioServerParameters(command=sys.executable, env=ENV,
                                   args=["-m", "companion", "--home", str(memory.root), "mcp", "--agent", "cursor"])

    async def session() -> list:
        async with Client(params, read_timeout_seconds=60) as client:
            return [await client.call_tool(name, args) for name, args in
                    [("search_memory", {"query": "beagle"}), ("get_profile", {}),
                     ("propose_memory", {"text": "Likes jazz a lot"})]]

    for result in anyio.run(session):
        assert result.is_error and "has not allowed 'cursor'" in result.content[0].text
    assert ProposalQueue(memory).items() == []


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_http_needs_the_agents_token_and_serves_what_that_agent_may_see(memory):
    _companion(memory, "mcp", "allow", "cursor", "search", "profile", "memory", "contacts")
    token = _companion(memory, "mcp", "token", "cursor")
    other = _companion(memory, "mcp", "token", "openclaw")  # a known token, but nothing allowed
    port = _free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    server = subprocess.Popen([sys.executable, "-m", "companion", "--home", str(memory.root), "mcp", "--http",
                               "--port", str(port)], env=ENV, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                refused = httpx2.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, timeout=5)
                break
            except httpx2.TransportError:
                assert time.monotonic() < deadline and server.poll() is None, "the server did not start"
                time.sleep(0.2)
        assert refused.status_code == 401
        wrong = httpx2.post(url, json={}, headers={"Authorization": "Bearer " + token[:-2] + "xx"}, timeout=5)
        assert wrong.status_code == 401 and b"token" in wrong.content

        async def session(tok: str) -> tuple:
            async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {tok}"}, timeout=30) as http:
                async with Client(streamable_http_client(url, http_client=http)) as client:
                    found = await client.call_tool("search_memory", {"query": "beagle"})
                    profile = await client.call_tool("get_profile", {})
                    return found, profile

        found, profile = anyio.run(session, token)
        text = _texts(found)
        assert "lea.martin@example.com" in text  # this agent may see contact details ...
        assert "Zq9!xv_77Lm" not in text and "diary" not in text  # ... never secrets or private turns
        assert set(json.loads(_texts(profile))) == {"USER.md", "MEMORY.md"}
        found, _ = anyio.run(session, other)
        assert found.is_error and "has not allowed 'openclaw'" in found.content[0].text

        async def without_token() -> None:
            async with Client(url) as client:
                await client.list_tools()

        with pytest.raises(BaseException):
            anyio.run(without_token)
    finally:
        server.terminate()
        server.communicate(timeout=30)


def test_the_server_runs_beside_the_open_app_and_shares_its_day_log(memory):
    from companion.runtime import open_home

    _companion(memory, "mcp", "allow", "claude-desktop", "search")
    params = StdioServerParameters(command=sys.executable, env=ENV,
                                   args=["-m", "companion", "--home", str(memory.root), "mcp", "--agent", "claude-desktop"])
    with open_home(memory.root) as app:  # the app holds the one-instance lock
        app_log = DayLog(app.home.days)

        async def session() -> None:
            async with Client(params, read_timeout_seconds=60) as client:
                for n in range(3):
                    app_log.append("user", f"typed in the app while an agent searched {n}")
                    _texts(await client.call_tool("search_memory", {"query": "beagle"}))

        anyio.run(session)
    records = [r for r in DayLog(memory.days).iter_backwards()]
    ids = [r.id for r in records]
    assert len(ids) == len(set(ids))
    assert sum(1 for r in records if "agent_request" in r.extra) == 3
    assert sum(1 for r in records if r.text.startswith("typed in the app")) == 3


def test_recent_digests_are_served_masked_and_never_hold_a_private_turn(memory):
    from companion.agent.sharing import MemoryShare, allow
    from companion.commands.mcp_server import build_server, stdio_agent
    from companion.settings import Settings
    from companion.sleep.job import SleepJob

    SleepJob(memory, None, clock=lambda: datetime(2026, 12, 2, 3, 0, tzinfo=TZ)).run()
    settings = Settings()
    allow(settings, "cursor", {"digests"})
    share = MemoryShare(memory, settings)
    try:
        async def session():
            async with Client(build_server(share, stdio_agent("cursor"))) as client:
                return json.loads(_texts(await client.call_tool("recent_digests", {"days": 3})))

        digests = anyio.run(session)
    finally:
        share.close()
    assert [d["day"] for d in digests] == ["2026-12-01"]
    text = digests[0]["text"]
    assert "2026-12-01" in text and "diary" not in text and "lea.martin@example.com" not in text
    assert "Zq9!xv_77Lm" not in text
