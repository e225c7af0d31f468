"""When the nightly run is due: the configured local time (cron with misfire grace), and a missed
night caught up once at start."""

from __future__ import annotations

from datetime import datetime, time, timedelta
from typing import Callable

from apscheduler.schedulers.background import BackgroundScheduler
from apscheduler.triggers.cron import CronTrigger

from companion.errors import SettingsError
from companion.memory.daylog import DayLog
from companion.paths import Home
from companion.sleep.cursor import Cursor, cursor_path

MISFIRE_GRACE_S = 3600  # a 03:00 run delayed by a busy or suspended machine still happens until 04:00


def parse_time(text: str) -> time:
    """'03:00' -> time(3, 0); a clear error for anything else."""
    try:
        hour, minute = (int(part) for part in text.strip().split(":"))
        return time(hour, minute)
    except ValueError as exc:
        raise SettingsError(f"The sleep time {text!r} is not a time like 03:00; fix [sleep] time in settings.") from exc


def last_slot(now: datetime, at: time) -> datetime:
    """The most recent scheduled moment at or before `now`."""
    slot = now.replace(hour=at.hour, minute=at.minute, second=0, microsecond=0)
    return slot if slot <= now else slot - timedelta(days=1)


def is_due(last_run: str | None, now: datetime, at: time) -> bool:
    """True when no run happened since the last scheduled moment (however many nights were missed)."""
    if not last_run:
        return True
    try:
        previous = datetime.fromisoformat(last_run)
    except ValueError:
        return True
    if previous.tzinfo is None and now.tzinfo is not None:
        previous = previous.replace(tzinfo=now.tzinfo)
    elif previous.tzinfo is not None and now.tzinfo is None:
        previous = previous.replace(tzinfo=None)
    return previous < last_slot(now, at)


def _aligned(moment: datetime, reference: datetime) -> datetime:
    """`moment` comparable with `reference` (one may lack a time zone)."""
    if moment.tzinfo is None and reference.tzinfo is not None:
        return moment.replace(tzinfo=reference.tzinfo)
    if moment.tzinfo is not None and reference.tzinfo is None:
        return moment.replace(tzinfo=None)
    return moment


def missed_night(cursor: Cursor, daylog: DayLog, now: datetime, at: time) -> bool:
    """True when a scheduled time passed since the last run while something the user said waited
    to be distilled. A first start is not a missed night: a brand-new home has nothing waiting from
    before the last scheduled time, so it never runs a catch-up."""
    if not is_due(cursor.last_run, now, at):
        return False
    slot = last_slot(now, at)
    for day in daylog.days():  # oldest first; days after the slot cannot hold a waiting record
        if day > slot.date():
            break
        mark = cursor.mark(day)
        try:
            if daylog.size(day) == mark.size:
                continue  # append-only: nothing new since it was distilled
        except OSError:
            continue
        for record in daylog.read_day(day).records:
            if mark.covers(record) or record.role != "user":
                continue
            try:
                said = _aligned(record.timestamp, slot)
            except ValueError:
                continue
            if said < slot:
                return True
    return False


def catch_up_due(home: Home, now: datetime, at: time) -> bool:
    """Whether the start of the app should run a missed night (reads the cursor and the waiting logs)."""
    return missed_night(Cursor.load(cursor_path(home)), DayLog(home.days), now, at)


class NightlySchedule:
    """The nightly run at the configured local time (APScheduler cron). A run delayed by a busy or
    suspended machine still happens within the grace time, once (coalesced); a longer gap is a
    missed night, caught up at the next start (`catch_up_due`)."""

    def __init__(self, at: time, on_due: Callable[[], None], *, misfire_grace_s: int = MISFIRE_GRACE_S) -> None:
        self.at = at
        self._scheduler = BackgroundScheduler(daemon=True)
        self._scheduler.add_job(on_due, CronTrigger(hour=at.hour, minute=at.minute), id="sleep",
                                misfire_grace_time=misfire_grace_s, coalesce=True, max_instances=1)

    def start(self) -> None:
        self._scheduler.start()

    def stop(self) -> None:
        if self._scheduler.running:
            self._scheduler.shutdown(wait=False)

    def next_run_time(self) -> datetime | None:
        job = self._scheduler.get_job("sleep") if self._scheduler.running else None
        return job.next_run_time if job is not None else None
