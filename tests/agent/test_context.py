"""The turn context: one day-log read, one read per long-term file and one prompt build per turn."""

from __future__ import annotations

from collections import Counter
from datetime import timedelta

import pytest

from companion.agent import prompt as P
from companion.agent.turn import Agent
from companion.llm.scripted import ScriptedBackend
from companion.memory.daylog import DayLog
from companion.memory.longterm import LongTermStore
from companion.curate.gate import MemoryWriter
from companion.memory.history import Actor


@pytest.fixture
def counted(monkeypatch):
    """Counts day-log reads, long-term file reads (by name) and prompt builds."""
    counts: Counter[str] = Counter()

    def counting(owner, name, key=None):
        original = getattr(owner, name)

        def wrapper(*args, **kwargs):
            counts[key(*args) if key else name] += 1
            return original(*args, **kwargs)

        monkeypatch.setattr(owner, name, wrapper)

    counting(DayLog, "tail")
    counting(DayLog, "read_range")
    counting(LongTermStore, "read_raw", key=lambda _store, file: file)
    counting(P, "build_system_prompt")
    counting(P, "history_messages")
    return counts


def test_a_turn_reads_each_file_once_and_builds_one_prompt(home, clock, counted):
    log = DayLog(home.days, clock)
    log.append("user", "My sister Anna moved to Lisbon to open a bakery")
    log.append("assistant", "How exciting for her!")
    clock.advance(days=3)
    backend = ScriptedBackend(n_ctx=2048)
    agent = Agent(home, backend, clock=clock)
    MemoryWriter(agent.store).replace_section("SOUL.md", "## Identity", "- Name: Mo", actor=Actor.EDITOR)  # past the first conversation
    MemoryWriter(agent.store).append("MEMORY.md", "- Keeps bees (2026-11-01#1)", "## Facts", actor=Actor.EDITOR)
    agent.recall.ready.wait(5)
    counted.clear()
    events = list(agent.run_turn("Where does my sister live now?"))
    assert events[-1].kind == "done"
    assert counted == Counter(
        {"tail": 1, "SOUL.md": 1, "USER.md": 1, "MEMORY.md": 1, "build_system_prompt": 1, "history_messages": 1}
    )
    prompt = backend.prompts[-1]
    assert "Lisbon" in prompt[1]["content"] and "Keeps bees" in prompt[0]["content"]


def test_recall_leaves_out_exactly_what_the_history_window_holds(home, clock):
    """Records at the window's edge are either in the prompt or recallable, never neither."""
    log = DayLog(home.days, clock)
    for n in range(60):
        log.append("user", f"note {n}: the parcel number {n} went to the harbour office")
        log.append("assistant", "Noted.")
    clock.advance(days=1)
    backend = ScriptedBackend(n_ctx=1200)
    agent = Agent(home, backend, clock=clock)
    agent.settings.model.max_reply_tokens = 100
    agent.recall.ready.wait(5)
    ctx = agent.turn_context(reserve=20)
    assert ctx.history and ctx.window_start == ctx.history[0].id
    hits = agent.recall.hits_for("parcel harbour office", ctx, k=200)
    recalled = {h.item.locator for h in hits if h.item.kind == "turn"}
    assert not recalled & ctx.in_prompt
    user_ids = {r.id for r in ctx.records if r.role == "user"}
    assert user_ids <= recalled | ctx.in_prompt


def test_the_context_is_built_from_what_it_is_handed(home, clock, counted):
    agent = Agent(home, ScriptedBackend(), clock=clock)
    documents = agent.context.documents()
    counted.clear()
    ctx = agent.turn_context(records=[], documents=documents)
    assert ctx.history == [] and ctx.documents is documents
    assert counted["tail"] == 0 and counted["SOUL.md"] == 0
    assert ctx.messages(None) == [{"role": "system", "content": ctx.system}]
    assert ctx.today == clock().date() and ctx.now - clock() == timedelta(0)


def test_regenerating_does_not_recall_the_reply_it_replaces(home, clock):
    backend = ScriptedBackend(["The Lisbon bakery of your sister opens at nine every morning.", "Again."], n_ctx=2048)
    agent = Agent(home, backend, clock=clock)
    agent.recall.ready.wait(5)
    list(agent.run_turn("When does the Lisbon bakery of my sister open?"))
    list(agent.regenerate())
    assert "opens at nine" not in backend.prompts[-1][-1]["content"]
