"""What the sleep job already distilled: per day, the last record id and log size (state/sleep_cursor.json)."""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

from companion.errors import SchemaVersionError
from companion.atomic import atomic_write
from companion.paths import Home

log = logging.getLogger(__name__)

CURSOR_VERSION = 1


def cursor_path(home: Home) -> Path:
    return home.state / "sleep_cursor.json"


@dataclass
class DayMark:
    seq: int = 0  # highest record sequence number distilled
    size: int = 0  # log size in bytes when it was distilled (append-only: same size = nothing new)


@dataclass
class Cursor:
    path: Path
    days: dict[str, DayMark] = field(default_factory=dict)
    last_run: str | None = None  # local date of the last completed run (for the missed-night catch-up)

    @classmethod
    def load(cls, path: Path) -> "Cursor":
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return cls(path)
        except (OSError, ValueError) as exc:
            # A damaged cursor means "distill again": dedupe keeps that from duplicating entries.
            log.warning("Sleep cursor %s is unreadable (%s); starting over", path, exc)
            return cls(path)
        version = data.get("schema_version", CURSOR_VERSION) if isinstance(data, dict) else CURSOR_VERSION
        if isinstance(version, int) and version > CURSOR_VERSION:
            raise SchemaVersionError(f"{path.name} was written by a newer Companion; update Companion.")
        days: dict[str, DayMark] = {}
        raw_days = data.get("days", {}) if isinstance(data, dict) else {}
        for key, mark in raw_days.items() if isinstance(raw_days, dict) else ():
            if isinstance(mark, dict) and isinstance(mark.get("seq"), int) and isinstance(mark.get("size"), int):
                days[key] = DayMark(mark["seq"], mark["size"])
        last_run = data.get("last_run") if isinstance(data, dict) else None
        return cls(path, days, last_run if isinstance(last_run, str) else None)

    def mark(self, day: date) -> DayMark:
        return self.days.get(day.isoformat(), DayMark())

    def advance(self, day: date, seq: int, size: int) -> None:
        current = self.mark(day)
        self.days[day.isoformat()] = DayMark(max(seq, current.seq), size)

    def save(self) -> None:
        data = {
            "schema_version": CURSOR_VERSION,
            "last_run": self.last_run,
            "days": {k: {"seq": v.seq, "size": v.size} for k, v in sorted(self.days.items())},
        }
        atomic_write(self.path, json.dumps(data, indent=1))
