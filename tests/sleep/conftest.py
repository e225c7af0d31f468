"""Helpers for sleep tests: a day log written at chosen times."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Callable

import pytest

from companion.memory.daylog import DayLog
from companion.paths import Home

TZ = timezone(timedelta(hours=1))


class Writer:
    """Appends records to a home's day logs at a settable time."""

    def __init__(self, home: Home) -> None:
        self.now = datetime(2024, 5, 13, 9, 0, tzinfo=TZ)
        self.log = DayLog(home.days, lambda: self.now)

    def clock(self) -> datetime:
        return self.now

    def at(self, year: int, month: int, day: int, hour: int = 9, minute: int = 0) -> "Writer":
        self.now = datetime(year, month, day, hour, minute, tzinfo=TZ)
        return self

    def chat(self, *user_messages: str, reply: str = "Noted.") -> list[str]:
        """Each message gets a short assistant reply; returns the user record ids."""
        ids = []
        for text in user_messages:
            ids.append(self.log.append("user", text).id)
            self.now += timedelta(minutes=1)
            self.log.append("assistant", reply)
            self.now += timedelta(minutes=2)
        return ids


@pytest.fixture
def writer(home: Home) -> Writer:
    return Writer(home)


ClockFn = Callable[[], datetime]
