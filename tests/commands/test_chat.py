"""`companion chat`'s REPL on a scripted model: /private pauses memory and says how many turns stayed private."""

from __future__ import annotations

import io

from companion.agent.turn import Agent
from companion.commands.chat import repl
from companion.memory.daylog import DayLog


def test_private_command_pauses_and_resumes_memory(home, clock, scripted) -> None:
    agent = Agent(home, scripted, clock=clock)
    out = io.StringIO()
    stdin = io.StringIO("hello\n/private\nmy secret plan\nanother secret\n/private\nback to normal\n/quit\n")
    assert repl(agent, stdin, out, interactive=False) == 0
    text = out.getvalue()
    assert "Memory paused" in text and "2 turns stayed private" in text
    users = [r for r in DayLog(home.days).read_day(clock().date()).records if r.role == "user"]
    assert [(r.text, r.private) for r in users] == [
        ("hello", False), ("my secret plan", True), ("another secret", True), ("back to normal", False)]
