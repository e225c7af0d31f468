"""`companion chat`'s REPL on a scripted model: /private, proposed memory changes (y/N), /undo, no raw control characters."""

from __future__ import annotations

import io

from companion.agent.session import ChatSession
from companion.agent.turn import Agent
from companion.commands.chat import _one_turn, repl
from companion.commands.terminal import safe
from companion.llm.base import ToolCall
from companion.llm.scripted import ScriptedBackend
from companion.memory.daylog import DayLog
from companion.settings import Settings

def session_on(home, clock, backend) -> ChatSession:
    session = ChatSession(home, Settings(), clock=clock)
    session.adopt(backend)
    return session


SOUL_CALL = ToolCall("context_update", {"file": "SOUL.md", "action": "append", "content": "- Speaks in rhyme"})


def test_private_command_pauses_and_resumes_memory(home, clock, scripted) -> None:
    session = session_on(home, clock, scripted)
    out = io.StringIO()
    stdin = io.StringIO("hello\n/private\nmy secret plan\nanother secret\n/private\nback to normal\n/quit\n")
    assert repl(session, stdin, out, interactive=False) == 0
    text = out.getvalue()
    assert "Memory paused" in text and "2 turns stayed private" in text
    users = [r for r in DayLog(home.days).read_day(clock().date()).records if r.role == "user"]
    assert [(r.text, r.private) for r in users] == [
        ("hello", False), ("my secret plan", True), ("another secret", True), ("back to normal", False)]


def test_an_unasked_change_is_applied_only_after_yes(home, clock):
    backend = ScriptedBackend(supports_tools=True)
    agent = Agent(home, backend, clock=clock)
    questions: list[str] = []
    for answer in (False, True):
        backend.queue([SOUL_CALL], "I could rhyme.")
        out = io.StringIO()
        changed = _one_turn(agent, "hello there", out, ask=lambda q: questions.append(q) or answer)
        assert "[proposed] SOUL.md (append): - Speaks in rhyme" in out.getvalue()
        assert ("rhyme" in agent.store.read("SOUL.md").body) is answer
        assert len(changed) == int(answer)
    assert questions == ["Apply this change? [y/N] "] * 2


def test_piped_input_applies_no_proposal_and_undo_takes_a_change_back(home, clock):
    backend = ScriptedBackend(supports_tools=True)
    backend.queue([SOUL_CALL], "Maybe.")
    backend.queue([ToolCall("context_update", {"file": "USER.md", "action": "append", "content": "- Plays chess"})], "Noted.")
    session = session_on(home, clock, backend)
    agent = session.agent
    out = io.StringIO()
    repl(session, io.StringIO("hi\nI play chess\n/undo\n/undo\n/quit\n"), out, interactive=False)
    text = out.getvalue()
    assert "Not applied." in text and "rhyme" not in agent.store.read("SOUL.md").body
    assert "Changed USER.md (append): - Plays chess" in text and "[memory] Undid the change to USER.md." in text
    assert "Nothing to undo." in text and "chess" not in agent.store.read("USER.md").body


def test_control_characters_in_replies_are_shown_not_obeyed(home, clock):
    hostile = "ok\x1b]52;c;cm0gLXJmIH4=\x07\x1b[2J\x9b31m done"
    agent = Agent(home, ScriptedBackend([hostile]), clock=clock)
    out = io.StringIO()
    _one_turn(agent, "hi", out)
    printed = out.getvalue()
    assert not any(ch in printed for ch in "\x1b\x07\x9b")
    assert "^[]52;c;cm0gLXJmIH4=^G^[[2J" in printed
    assert safe("tab\tand\nnewline") == "tab\tand\nnewline"


def test_help_lists_the_commands_and_no_command_reaches_the_model(home, clock, scripted) -> None:
    session = session_on(home, clock, scripted)
    out = io.StringIO()
    assert repl(session, io.StringIO("/help\n/nonsense\n/quit\n"), out, interactive=False) == 0
    text = out.getvalue()
    for command in ("/help", "/undo", "/private", "/quit"):
        assert command in text
    assert "Unknown command /nonsense" in text
    assert not [r for r in DayLog(home.days).read_day(clock().date()).records if r.role == "user"]
