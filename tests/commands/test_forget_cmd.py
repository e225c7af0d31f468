"""`companion forget` and "forget ..." in `companion chat`: erased everywhere only after a yes."""

from __future__ import annotations

import io

import pytest

from companion.agent.turn import Agent
from companion.cli import main
from companion.commands.chat import _one_turn
from companion.llm.scripted import ScriptedBackend
from companion.memory.daylog import DayLog
from companion.memory.longterm import LongTermStore
from companion.paths import Home
from companion.curate.gate import MemoryWriter
from companion.memory.history import Actor


def _everywhere(home: Home, word: str) -> list[str]:
    return [p.name for p in home.root.rglob("*") if p.is_file() and p.suffix in (".jsonl", ".md", ".json")
            and word in p.read_text(encoding="utf-8", errors="replace").lower()]


def test_forget_command_asks_then_erases(home: Home, capsys: pytest.CaptureFixture[str]) -> None:
    DayLog(home.days).append("user", "My locker code is under the blue mat.")
    LongTermStore(home)._append("MEMORY.md", "- Locker code is under the blue mat", "## Facts", actor=Actor.EDITOR)  # the user typed it
    assert main(["--home", str(home.root), "forget", "locker", "code"]) == 0  # no terminal: no yes
    out = capsys.readouterr().out
    assert "Removed from memory" in out and "Also found in 1 message on 1 day" in out and "--yes" in out
    assert "locker" not in LongTermStore(home).read("MEMORY.md").body
    assert _everywhere(home, "locker")  # the day log and the earlier version still hold it
    assert main(["--home", str(home.root), "forget", "locker", "code", "--yes"]) == 0
    assert "Erased from 1 message on 1 day" in capsys.readouterr().out
    assert _everywhere(home, "locker") == []


def test_forget_in_chat_offers_to_erase_everywhere(home: Home, clock) -> None:
    agent = Agent(home, ScriptedBackend(["Sure.", "Done."]), clock=clock)
    list(agent.run_turn("My locker code is under the blue mat."))
    out = io.StringIO()
    questions: list[str] = []
    _one_turn(agent, "forget my locker code", out, ask=lambda q: questions.append(q) or True)
    assert len(questions) == 1 and "cannot be undone" in questions[0]
    assert "Erased from" in out.getvalue()
    assert _everywhere(home, "locker") == []
