"""A 'remind me' message in a turn lands in MEMORY.md ## Upcoming through the curation policy, and the reply says when."""

from __future__ import annotations

from companion.agent.turn import Agent
from companion.memory.setup import ensure_home
from companion.paths import Home


def upcoming(agent: Agent) -> str:
    body = agent.store.read("MEMORY.md").body
    return body.split("## Upcoming")[1] if "## Upcoming" in body else body.split("## 即将到来")[1]


def test_remind_me_writes_a_timed_upcoming_entry_and_says_when(home, clock, scripted) -> None:
    agent = Agent(home, scripted, clock=clock)  # Sunday 2026-11-29 14:03
    events = list(agent.run_turn("Remind me tomorrow at 8 to call my mother."))
    notes = [e.text for e in events if e.kind == "memory"]
    assert notes == ["Reminder set for Monday 2026-11-30 at 08:00: call my mother."]
    assert "- 2026-11-30 08:00: Call my mother (2026-11-29#1)" in upcoming(agent)
    assert notes[0] in scripted.prompts[-1][-1]["content"]  # the model is told, so its reply can confirm
    assert agent.store.history.versions("MEMORY.md")[0].actor == "reminder"


def test_the_same_reminder_twice_is_kept_once(home, clock, scripted) -> None:
    agent = Agent(home, scripted, clock=clock)
    list(agent.run_turn("Remind me tomorrow at 8 to call my mother"))
    events = list(agent.run_turn("remind me tomorrow at 8 to call my mother"))
    assert [e.text for e in events if e.kind == "memory"][0].startswith("Reminder not saved: already in MEMORY.md")
    assert upcoming(agent).count("Call my mother") == 1


def test_a_chinese_reminder_in_a_chinese_home(tmp_path, clock, scripted) -> None:
    home = Home(tmp_path / "zh")
    ensure_home(home, "zh_CN")
    agent = Agent(home, scripted, clock=clock)
    events = list(agent.run_turn("提醒我明天八点给妈妈打电话"))
    assert [e.text for e in events if e.kind == "memory"] == ["已设提醒：2026-11-30（星期一）08:00，给妈妈打电话。"]
    assert "- 2026-11-30 08:00: 给妈妈打电话 (2026-11-29#1)" in upcoming(agent)


def test_remember_with_a_day_and_a_time_becomes_a_reminder_that_fires_at_that_minute(home, clock, scripted) -> None:
    from datetime import datetime

    from companion.curate.requests import timed_reminders

    agent = Agent(home, scripted, clock=clock)  # Sunday 2026-11-29 14:03
    list(agent.run_turn("Remember: Dentist on December 10 at 9am"))
    list(agent.run_turn("I have a call with Sam tomorrow at 9:30."))
    agent.learn_after_turn()
    agent.stop_background()
    body = agent.store.read("MEMORY.md").body
    assert "- 2026-12-10 09:00: Dentist (2026-11-29#1)" in upcoming(agent)
    due = {r.text: r.when for r in timed_reminders(body)}
    assert due["Dentist"] == datetime(2026, 12, 10, 9, 0)
    assert due.get("Call with Sam") == datetime(2026, 11, 30, 9, 30)
