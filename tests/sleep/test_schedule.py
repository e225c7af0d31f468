"""A missed night runs once at the next start; a run after the slot satisfies it."""

from __future__ import annotations

from datetime import datetime, time, timedelta, timezone

import pytest

from companion.errors import SettingsError
from companion.sleep.schedule import is_due, last_slot, parse_time

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
