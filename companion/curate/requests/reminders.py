"""Which reminders are due: timed entries of MEMORY.md `## Upcoming`, and which of them were already shown."""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from companion.atomic import atomic_write
from companion.memory import entries as E
from companion.memory import sections

log = logging.getLogger(__name__)

STATE_VERSION = 1


@dataclass(frozen=True)
class Reminder:
    when: datetime  # local wall-clock time, naive: 08:00 stays 08:00 across a change to summer time
    text: str  # the entry without its date, time and citation

    @property
    def key(self) -> str:
        return f"{self.when:%Y-%m-%d %H:%M} {self.text}"

    def label(self) -> str:
        return f"{self.when:%Y-%m-%d %H:%M} {self.text}"


def timed_reminders(memory_body: str) -> list[Reminder]:
    """Entries under Upcoming that carry a date and a time, soonest first (superseded ones skipped)."""
    span = sections.find_section(memory_body, "## Upcoming")
    if span is None:
        return []
    found: list[Reminder] = []
    for line in memory_body.splitlines()[span[1] : span[2]]:
        entry = E.Entry.parse(line)
        if entry is None or entry.superseded or entry.day is None or entry.at is None:
            continue
        found.append(Reminder(datetime.combine(entry.day, entry.at), entry.what))
    return sorted(found, key=lambda r: r.when)


class ReminderState:
    """state/reminders.json: the reminders already shown, so each pops up once (also across restarts)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.shown: set[str] = set()
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            if isinstance(data, dict) and isinstance(data.get("shown"), list):
                self.shown = {k for k in data["shown"] if isinstance(k, str)}
        except FileNotFoundError:
            pass
        except (OSError, ValueError) as exc:  # a broken state file means reminders may show twice, never lost
            log.warning("Reminder state %s unreadable (%s); starting afresh", path, exc)

    def mark(self, reminders: list[Reminder], current: list[Reminder]) -> None:
        """Remember `reminders` as shown; forget keys no longer in MEMORY.md (the file stays small)."""
        live = {r.key for r in current}
        self.shown = {k for k in self.shown if k in live} | {r.key for r in reminders}
        atomic_write(self.path, json.dumps({"schema_version": STATE_VERSION, "shown": sorted(self.shown)}, ensure_ascii=False))


def wall_clock(now: datetime) -> datetime:
    """`now` as naive local wall-clock time (the clock gives local time, with or without its offset)."""
    return now.replace(tzinfo=None)


def due(reminders: list[Reminder], state: ReminderState, now: datetime) -> list[Reminder]:
    """Reminders whose time has come (or passed while the app was closed) and that were not shown yet."""
    return [r for r in reminders if r.when <= wall_clock(now) and r.key not in state.shown]


def next_time(reminders: list[Reminder], state: ReminderState, now: datetime) -> datetime | None:
    """When the next reminder is due (naive local time), or None."""
    return next((r.when for r in reminders if r.when > wall_clock(now) and r.key not in state.shown), None)
