"""When the nightly run is due: the configured local time, and a missed night caught up once at start."""

from __future__ import annotations

from datetime import datetime, time, timedelta

from companion.errors import SettingsError


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
