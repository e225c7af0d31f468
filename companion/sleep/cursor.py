"""What the sleep job already distilled: per day, the last record id and log size (state/sleep_cursor.json).

A day of a synced folder has one file per computer, each numbered on its own: the mark keeps the
last sequence number per device tag beside the shared file's, and the size of all the day's files."""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Iterable

from companion.errors import SchemaVersionError
from companion.atomic import atomic_write
from companion.memory.conflicts import copies_in
from companion.memory.device import stored_tag
from companion.memory.records import Record
from companion.paths import Home

log = logging.getLogger(__name__)

CURSOR_VERSION = 1


TRAVELLING_NAME = "sleep-cursor.json"


def cursor_path(home: Home) -> Path:
    """state/sleep_cursor.json; in a synced folder the cursor travels with the night's lock
    (`sync/sleep-cursor.json`), so the computer that sleeps next knows what was distilled."""
    local = home.state / "sleep_cursor.json"
    if stored_tag(home.state) is None:
        return local
    travelling = home.memory / "sync" / TRAVELLING_NAME
    if not travelling.exists() and local.exists():  # the folder was just synced: carry the marks over
        atomic_write(travelling, local.read_bytes())
    return travelling


@dataclass
class DayMark:
    seq: int = 0  # highest record sequence number distilled (the shared file's)
    size: int = 0  # log size in bytes when it was distilled (append-only: same size = nothing new)
    devices: dict[str, int] = field(default_factory=dict)  # device tag -> highest sequence number distilled

    def last(self, device: str | None) -> int:
        return self.devices.get(device, 0) if device else self.seq

    def covers(self, record: Record) -> bool:
        """Whether `record` was already distilled."""
        return record.seq <= self.last(record.device)

    def to_dict(self) -> dict[str, object]:
        data: dict[str, object] = {"seq": self.seq, "size": self.size}
        if self.devices:  # an unsynced home's cursor stays exactly as it was
            data["devices"] = dict(sorted(self.devices.items()))
        return data


@dataclass
class Cursor:
    path: Path
    days: dict[str, DayMark] = field(default_factory=dict)
    last_run: str | None = None  # local date of the last completed run (for the missed-night catch-up)

    @classmethod
    def load(cls, path: Path) -> "Cursor":
        """The cursor; a sync tool's conflict copies of it are folded in (the furthest mark wins)."""
        cursor = cls._load_one(path)
        for copy in copies_in(path.parent, {path.name}):
            cursor.fold(cls._load_one(copy.path))
        return cursor

    def fold(self, other: "Cursor") -> None:
        """Take every mark `other` has further along (records distilled on the other computer)."""
        for key, mark in other.days.items():
            mine = self.days.get(key, DayMark())
            devices = dict(mine.devices)
            for tag, seq in mark.devices.items():
                devices[tag] = max(devices.get(tag, 0), seq)
            self.days[key] = DayMark(max(mine.seq, mark.seq), max(mine.size, mark.size), devices)
        if other.last_run and (self.last_run is None or other.last_run > self.last_run):
            self.last_run = other.last_run

    @classmethod
    def _load_one(cls, path: Path) -> "Cursor":
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
                raw = mark.get("devices")
                devices = {k: v for k, v in raw.items() if isinstance(k, str) and isinstance(v, int)} if isinstance(raw, dict) else {}
                days[key] = DayMark(mark["seq"], mark["size"], devices)
        last_run = data.get("last_run") if isinstance(data, dict) else None
        return cls(path, days, last_run if isinstance(last_run, str) else None)

    def mark(self, day: date) -> DayMark:
        return self.days.get(day.isoformat(), DayMark())

    def advance(self, day: date, seq: int, size: int) -> None:
        current = self.mark(day)
        self.days[day.isoformat()] = DayMark(max(seq, current.seq), size, dict(current.devices))

    def advance_records(self, day: date, records: Iterable[Record], size: int) -> None:
        """Mark `records` of `day` distilled (each device's numbering on its own) and the day's size."""
        current = self.mark(day)
        seq, devices = current.seq, dict(current.devices)
        for record in records:
            if record.device:
                devices[record.device] = max(devices.get(record.device, 0), record.seq)
            else:
                seq = max(seq, record.seq)
        self.days[day.isoformat()] = DayMark(seq, size, devices)

    def save(self) -> None:
        data = {
            "schema_version": CURSOR_VERSION,
            "last_run": self.last_run,
            "days": {k: v.to_dict() for k, v in sorted(self.days.items())},
        }
        atomic_write(self.path, json.dumps(data, indent=1))
