"""A missed night runs once at the next start; a run after the slot satisfies it."""

from __future__ import annotations

from datetime import datetime, time, timedelta, timezone

import pytest

from companion.errors import SettingsError
from companion.memory.daylog import DayLog
from companion.sleep.cursor import Cursor, cursor_path
from companion.sleep.schedule import NightlySchedule, catch_up_due, is_due, last_slot, missed_night, parse_time

TZ = timezone(timedelta(hours=1))
AT = time(3, 0)


def test_last_slot() -> None:
    assert last_slot(datetime(2024, 5, 14, 9, 0, tzinfo=TZ), AT) == datetime(2024, 5, 14, 3, 0, tzinfo=TZ)
    assert last_slot(datetime(2024, 5, 14, 2, 0, tzinfo=TZ), AT) == datetime(2024, 5, 13, 3, 0, tzinfo=TZ)


def test_missed_nights_are_due_once() -> None:
    now = datetime(2024, 5, 20, 9, 0, tzinfo=TZ)  # the computer was off for a week
    assert is_due("2024-05-13T03:00:05+01:00", now, AT)
    assert not is_due(now.isoformat(), now + timedelta(hours=1), AT)  # after the catch-up run: not again
    assert is_due(now.isoformat(), now + timedelta(days=1), AT)
    assert is_due(None, now, AT)


def test_a_manual_run_before_the_slot_does_not_count_for_it() -> None:
    assert is_due("2024-05-14T01:00:00+01:00", datetime(2024, 5, 14, 9, 0, tzinfo=TZ), AT)


@pytest.mark.parametrize("text", ["3am", "25:00", ""])
def test_bad_time_setting(text: str) -> None:
    with pytest.raises(SettingsError, match="03:00"):
        parse_time(text)


def _log(home, when: datetime, role: str, text: str) -> None:
    DayLog(home.days, lambda: when).append(role, text)


def test_a_first_start_is_not_a_missed_night(home) -> None:
    now = datetime(2024, 5, 14, 9, 0, tzinfo=TZ)
    assert not catch_up_due(home, now, AT)  # a brand-new home: nothing waits
    _log(home, now - timedelta(minutes=5), "assistant", "Hi! I'm your new companion.")
    _log(home, now - timedelta(minutes=1), "user", "I'm Ana.")
    assert not catch_up_due(home, now, AT)  # said after the last scheduled time: tonight's run takes it
    assert catch_up_due(home, now + timedelta(days=1), AT)  # 03:00 passed while it waited: a missed night


def test_only_what_the_user_said_makes_a_night_missed(home) -> None:
    _log(home, datetime(2024, 5, 13, 10, 0, tzinfo=TZ), "assistant", "Hi! I'm your new companion.")
    assert not catch_up_due(home, datetime(2024, 5, 15, 9, 0, tzinfo=TZ), AT)


def test_a_run_after_the_slot_clears_the_missed_night(home) -> None:
    _log(home, datetime(2024, 5, 13, 10, 0, tzinfo=TZ), "user", "I live in Lyon.")
    cursor = Cursor.load(cursor_path(home))
    now = datetime(2024, 5, 15, 9, 0, tzinfo=TZ)
    assert missed_night(cursor, DayLog(home.days), now, AT)
    cursor.last_run = now.isoformat()
    assert not missed_night(cursor, DayLog(home.days), now, AT)


def test_the_nightly_schedule_runs_at_the_configured_time() -> None:
    schedule = NightlySchedule(time(4, 15), lambda: None)
    assert schedule.next_run_time() is None  # not started
    schedule.start()
    try:
        when = schedule.next_run_time()
        assert when is not None and (when.hour, when.minute) == (4, 15)
    finally:
        schedule.stop()
