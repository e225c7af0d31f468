"""Which reminders are due: timed Upcoming entries, each shown once, missed ones caught up."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from companion.curate.requests import ReminderState, due, next_time, timed_reminders

TZ = timezone(timedelta(hours=1))
BODY = """# Memory

## Upcoming
- 2026-12-01 08:00: Call my mother (2026-11-30#3)
- 2026-12-04: The dentist (2026-11-30#5)
- 2026-11-30 18:30: Pick up the parcel (2026-11-30#7)
- ~~2026-12-01 09:00: Old plan~~ (superseded 2026-11-30)
- 2026-12-02 7:05 Stretch

## Timeline
- 2026-11-20 10:00: Not upcoming any more (2026-11-20#1)
"""


def test_only_timed_active_upcoming_entries_count() -> None:
    found = timed_reminders(BODY)
    assert [(r.when, r.text) for r in found] == [
        (datetime(2026, 11, 30, 18, 30), "Pick up the parcel"),
        (datetime(2026, 12, 1, 8, 0), "Call my mother"),
        (datetime(2026, 12, 2, 7, 5), "Stretch"),
    ]
    assert timed_reminders("## Facts\n- nothing\n") == []


def test_a_chinese_upcoming_section_is_read_too() -> None:
    found = timed_reminders("## 即将到来\n- 2026-12-01 08:00: 给妈妈打电话 (2026-11-30#1)\n")
    assert [r.text for r in found] == ["给妈妈打电话"]


def test_each_reminder_is_due_once_and_the_state_survives_a_restart(tmp_path) -> None:
    path = tmp_path / "reminders.json"
    reminders = timed_reminders(BODY)
    state = ReminderState(path)
    morning = datetime(2026, 12, 1, 9, 0, tzinfo=TZ)  # the app was closed last evening: two were missed
    missed = due(reminders, state, morning)
    assert [r.text for r in missed] == ["Pick up the parcel", "Call my mother"]
    state.mark(missed, reminders)
    again = ReminderState(path)
    assert due(reminders, again, morning) == []
    assert next_time(reminders, again, morning) == datetime(2026, 12, 2, 7, 5)  # local wall-clock time
    assert next_time(reminders, again, datetime(2026, 12, 3, tzinfo=TZ)) is None


def test_a_broken_state_file_shows_reminders_again_rather_than_never(tmp_path) -> None:
    path = tmp_path / "reminders.json"
    path.write_text("{not json", encoding="utf-8")
    state = ReminderState(path)
    assert len(due(timed_reminders(BODY), state, datetime(2026, 12, 5, tzinfo=TZ))) == 3


def test_a_reminder_keeps_its_wall_clock_time_across_a_change_to_summer_time(tmp_path) -> None:
    reminders = timed_reminders("## Upcoming\n- 2027-07-01 08:00: Call the plumber (2027-01-10#2)\n")  # set in winter
    state = ReminderState(tmp_path / "reminders.json")
    summer = timezone(timedelta(hours=2))
    assert due(reminders, state, datetime(2027, 7, 1, 7, 59, tzinfo=summer)) == []
    assert [r.text for r in due(reminders, state, datetime(2027, 7, 1, 8, 0, tzinfo=summer))] == ["Call the plumber"]
