"""Paused memory end to end: private turns are logged, but never learned, recalled, distilled or exported."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest

from companion.agent.learn import worth_learning
from companion.agent.turn import Agent
from companion.memory.daylog import DayLog
from companion.portability.skill_export import ExportOptions, export_memory
from companion.sleep.job import SleepJob

SECRET = "I love sushi and my sister Anna lives in Lisbon"


@pytest.fixture
def agent(home, clock, scripted) -> Agent:
    return Agent(home, scripted, clock=clock)


def talk(agent: Agent, clock, *texts: str) -> list:
    events = []
    for text in texts:
        events.extend(agent.run_turn(text))
        agent.learn_after_turn()  # what the app does when a reply has finished
        if agent.learner is not None:
            agent.learner.wait(5)
        clock.advance(minutes=1)
    return events


def private_chat(agent: Agent, clock) -> list:
    talk(agent, clock, "Hello there, how are you today?")
    agent.privacy.start(clock())
    events = talk(agent, clock, SECRET, "remember that I play the cello")
    turns = agent.privacy.stop()
    assert turns == 2
    return events


def test_private_turns_are_logged_with_the_flag_and_not_learned(agent, clock, home) -> None:
    user_before = agent.store.read_raw("USER.md")
    memory_before = agent.store.read_raw("MEMORY.md")
    events = private_chat(agent, clock)
    records = DayLog(home.days).read_day(clock().date()).records
    private = [r for r in records if r.private]
    assert [(r.role, r.text) for r in private if r.role == "user"] == [
        ("user", SECRET), ("user", "remember that I play the cello")]
    assert {r.role for r in private} == {"user", "assistant"}
    assert not any(r.private for r in records if r.text == "Hello there, how are you today?")
    assert not worth_learning(private[0], used_memory_tool=True)
    assert agent.store.read_raw("USER.md") == user_before and agent.store.read_raw("MEMORY.md") == memory_before
    assert any(e.kind == "memory" and "paused" in e.text for e in events)


def test_private_turns_are_not_recalled_and_leave_the_history_when_the_pause_ends(agent, clock, scripted) -> None:
    private_chat(agent, clock)
    hits = agent.recall.hits_for("sushi sister Anna Lisbon cello", agent.memory_context(), history=False)
    assert not [h for h in hits if "sushi" in h.item.text or "cello" in h.item.text]
    talk(agent, clock, "What did we just talk about?")
    prompt = json.dumps(scripted.prompts[-1], ensure_ascii=False)
    assert "sushi" not in prompt and "cello" not in prompt and "Hello there" in prompt


def test_the_conversation_keeps_its_private_turns_while_the_pause_lasts(agent, clock, scripted) -> None:
    agent.privacy.start(clock())
    talk(agent, clock, SECRET, "And what do I love?")
    assert SECRET in json.dumps(scripted.prompts[-1], ensure_ascii=False)
    assert scripted.options[-1].tools is None  # no memory tools while paused


def test_private_turns_are_never_distilled(agent, clock, home) -> None:
    private_chat(agent, clock)
    talk(agent, clock, "I love green tea in the morning")
    clock.advance(days=1)
    report = SleepJob(home, None, clock=clock).run()
    assert not report.cancelled
    everything = "".join(p.read_text(encoding="utf-8") for p in home.memory.rglob("*.md"))
    assert "green tea" in everything  # the job did run and learn from the public turn
    assert "sushi" not in everything and "Lisbon" not in everything and "cello" not in everything


def test_private_turns_stay_out_of_an_export_unless_asked(agent, clock, home, tmp_path) -> None:
    private_chat(agent, clock)
    plain = export_memory(home, tmp_path / "plain")
    logs = "".join(p.read_text(encoding="utf-8") for p in (plain.path / "days").rglob("*.jsonl"))
    assert "Hello there" in logs and "sushi" not in logs and "cello" not in logs
    assert plain.private_left_out == 4  # two messages and their two replies
    full = export_memory(home, tmp_path / "full", ExportOptions(include_private=True))
    logs = "".join(p.read_text(encoding="utf-8") for p in (full.path / "days").rglob("*.jsonl"))
    assert "sushi" in logs and full.private_left_out == 0


def test_resuming_without_a_pause_reports_nothing(agent, clock) -> None:
    assert agent.privacy.stop() == 0
    agent.privacy.start(clock())
    agent.privacy.start(clock() + timedelta(minutes=5))  # a second start keeps the first pause
    talk(agent, clock, "just between us")
    assert agent.privacy.stop() == 1
