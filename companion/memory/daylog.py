"""Short-term memory: append-only JSONL day logs, days/YYYY-MM/YYYY-MM-DD.jsonl.

In a memory folder synced between computers each computer appends to its own file
(`YYYY-MM-DD.<device>.jsonl`, `memory/device.py`); every reader gets all of a day's files as one
log in time order. Conflict copies a sync tool made are not day files (`memory/conflicts.py`):
they are merged back by the reconciliation, never read as a second log.
"""

from __future__ import annotations

import json
import logging
import os
import re
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path
from typing import Any, Callable, Iterator

from companion.errors import StorageError
from companion.atomic import describe_os_error
from companion.filelock import locked
from companion.memory.device import local_device
from companion.memory.records import DEVICE_TAG, Record, make_id, valid_text

log = logging.getLogger(__name__)

_DAY_FILE = re.compile(rf"^(\d{{4}}-\d{{2}}-\d{{2}})(?:\.({DEVICE_TAG}))?\.jsonl$")
_RECHECK_S = 30.0  # an unsynced folder is looked at again after this long (the user may add it to a sync tool)
AUTO = "auto"  # DayLog(device=AUTO): this computer's tag when the folder is synced, else none
_TAIL_CHUNK = 64 * 1024
_SETTLED_NS = 3_000_000_000  # a folder unchanged this long is listed for good (FAT keeps times to 2 s)
PARSED_KEPT = 64  # day files whose parsed records one DayLog keeps (a past day's file seldom changes)


@dataclass
class ReadProblem:
    """A line that could not be read; reported, never fatal."""

    path: Path
    line: int
    reason: str

    def __str__(self) -> str:
        return f"{self.path.name}, line {self.line}: {self.reason}"


@dataclass
class DayRead:
    records: list[Record] = field(default_factory=list)
    problems: list[ReadProblem] = field(default_factory=list)


def now_local() -> datetime:
    return datetime.now().astimezone()


class DayLog:
    """All day logs under one `days/` folder."""

    def __init__(self, days_dir: Path, clock: Callable[[], datetime] = now_local, device: str | None = AUTO) -> None:
        self.root = days_dir
        self.clock = clock
        self._device = device
        self._checked = -_RECHECK_S  # when an unsynced folder was last checked for a sync tool
        # what the last reads found, kept while the file or folder is unchanged: a turn reads the tail again
        self._parsed: OrderedDict[Path, tuple[tuple[int, int, int], DayRead]] = OrderedDict()
        self._months: dict[str, tuple[int, list[date]]] = {}  # month -> (folder mtime, or -1: list again; days)
        self._cache_lock = threading.Lock()

    # -- paths ---------------------------------------------------------------

    @property
    def device(self) -> str | None:
        """This computer's tag when the folder is synced (looked up until it has one), else None."""
        if self._device == AUTO:
            if time.monotonic() - self._checked < _RECHECK_S:
                return None
            tag = local_device(self.root.parent, self.root.parent.parent / "state")
            if tag is None:
                self._checked = time.monotonic()
                return None
            self._device = tag
        return self._device

    def path_for(self, day: date) -> Path:
        """The file this computer appends to for `day` (the shared name in an unsynced home)."""
        tag = self.device
        return self.root / f"{day:%Y-%m}" / (f"{day.isoformat()}.{tag}.jsonl" if tag else f"{day.isoformat()}.jsonl")

    def files(self, day: date) -> list[Path]:
        """All of `day`'s files: the shared one first, then one per device (no conflict copies)."""
        month = self.root / f"{day:%Y-%m}"
        try:
            names = [e.name for e in os.scandir(month)]
        except (FileNotFoundError, NotADirectoryError):
            return []
        wanted = day.isoformat()
        found = [n for n in names if (m := _DAY_FILE.match(n)) and m.group(1) == wanted]
        return [month / n for n in sorted(found, key=lambda n: (n.count("."), n))]

    def size(self, day: date) -> int:
        """Bytes in all of `day`'s files (append-only: the same size means nothing new)."""
        total = 0
        for path in self.files(day):
            try:
                total += path.stat().st_size
            except FileNotFoundError:
                continue
        return total

    def days(self) -> list[date]:
        """Every day that has a log, oldest first (lists folders, parses nothing).

        A month's list is kept while its folder's modification time stays the same, once that time was
        a few seconds old when it was listed (a file added within the file system's clock tick would
        not move it)."""
        try:
            months = sorted(e.name for e in os.scandir(self.root) if e.is_dir())
        except (FileNotFoundError, NotADirectoryError):
            return []
        found: list[date] = []
        for month in months:
            folder = os.path.join(self.root, month)
            try:
                mtime = os.stat(folder).st_mtime_ns
            except OSError:
                continue
            with self._cache_lock:
                kept = self._months.get(month)
            if kept is None or kept[0] != mtime:
                listed_at = time.time_ns()
                try:
                    days = _days_in(folder)
                except OSError:
                    continue
                settled = listed_at - mtime > _SETTLED_NS
                kept = (mtime if settled else -1, days)
                with self._cache_lock:
                    self._months[month] = kept
            found.extend(kept[1])
        return found

    # -- writing -------------------------------------------------------------

    def append(self, role: str, text: str, **extra: Any) -> Record:
        """Append one record to today's log, flushed and fsynced; returns it with its id."""
        stamp = self.clock()
        day = stamp.date()
        path = self.path_for(day)
        path.parent.mkdir(parents=True, exist_ok=True)
        with locked(path.with_name("." + path.name + ".lock")):
            seq, ends_clean = self._last_seq(path)
            record = Record(
                id=make_id(day, seq + 1, self.device),
                ts=stamp.isoformat(timespec="milliseconds"),
                role=role,
                text=valid_text(text),
                extra=dict(extra),
            )
            payload = record.to_line()
            if not ends_clean:
                payload = b"\n" + payload  # seal a torn last line so it stays a single bad line
            self._write_all(path, payload)
        return record

    @staticmethod
    def _write_all(path: Path, payload: bytes) -> None:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            start = os.fstat(fd).st_size
            try:
                written = 0
                while written < len(payload):
                    written += os.write(fd, payload[written:])
                os.fsync(fd)
            except OSError as exc:
                try:  # never leave a partial line behind
                    os.ftruncate(fd, start)
                except OSError:
                    pass
                raise StorageError(describe_os_error(exc, path)) from exc
        finally:
            os.close(fd)

    def _last_seq(self, path: Path) -> tuple[int, bool]:
        """Highest sequence number in the file and whether it ends with a newline."""
        if not path.exists():
            return 0, True
        with open(path, "rb") as handle:
            handle.seek(0, os.SEEK_END)
            size = handle.tell()
            if size == 0:
                return 0, True
            handle.seek(size - 1)
            ends_clean = handle.read(1) == b"\n"
            pos = size
            tail = b""
            while pos > 0:
                step = min(_TAIL_CHUNK, pos)
                pos -= step
                handle.seek(pos)
                tail = handle.read(step) + tail
                lines = tail.split(b"\n")
                complete = lines if pos == 0 else lines[1:]
                for raw in reversed(complete):
                    seq = _seq_of(raw)
                    if seq is not None:
                        return seq, ends_clean
                tail = lines[0] if pos > 0 else b""
        # every line is damaged: count lines so ids still never repeat
        with open(path, "rb") as handle:
            return sum(1 for _ in handle), ends_clean

    # -- reading -------------------------------------------------------------

    def read_day(self, day: date) -> DayRead:
        """The day's records; from several computers' files, one log in time order. The records may be
        shared with other reads: treat them as read-only."""
        files = self.files(day)
        if len(files) == 1:
            return self._read(files[0])
        result = DayRead()
        for path in files:
            part = self._read(path)
            result.records.extend(part.records)
            result.problems.extend(part.problems)
        result.records.sort(key=_moment)  # stable: records of one moment keep their file order
        return result

    def _read(self, path: Path) -> DayRead:
        """read_file, from what was parsed before while the file keeps its inode, size and modification
        time (appends grow it; a rewrite is a new file put in its place)."""
        try:
            info = path.stat()
        except FileNotFoundError:
            return DayRead()
        except OSError:
            return read_file(path)  # it raises the error the user sees
        key = (info.st_ino, info.st_size, info.st_mtime_ns)
        with self._cache_lock:
            kept = self._parsed.get(path)
            if kept is not None and kept[0] == key:
                self._parsed.move_to_end(path)
                return DayRead(list(kept[1].records), list(kept[1].problems))
        read = read_file(path)  # stat first: what is read is at least as new as the key
        with self._cache_lock:
            self._parsed[path] = (key, read)
            self._parsed.move_to_end(path)
            while len(self._parsed) > PARSED_KEPT:
                self._parsed.popitem(last=False)
        return DayRead(list(read.records), list(read.problems))

    def read_range(self, start: date, end: date) -> DayRead:
        """Every record from `start` to `end` inclusive."""
        result = DayRead()
        for day in self.days():
            if start <= day <= end:
                part = self.read_day(day)
                result.records.extend(part.records)
                result.problems.extend(part.problems)
        return result

    def tail(self, count: int) -> list[Record]:
        """The last `count` records across days, oldest first; reads only the newest files."""
        collected: list[Record] = []
        for day in reversed(self.days()):
            records = self.read_day(day).records
            collected[:0] = records
            if len(collected) >= count:
                break
        return collected[-count:] if count > 0 else []

    def iter_backwards(self) -> Iterator[Record]:
        """Records newest first, one day file at a time (for lazy loading)."""
        for day in reversed(self.days()):
            yield from reversed(self.read_day(day).records)


def day_files(days: Path) -> Iterator[Path]:
    """Every day file under `days/` (shared and per device), oldest day first; no conflict copies."""
    if not days.is_dir():
        return
    for month in sorted(e.name for e in os.scandir(days) if e.is_dir()):
        names = [e.name for e in os.scandir(days / month) if _DAY_FILE.match(e.name)]
        for name in sorted(names, key=lambda n: (n[:10], n.count("."), n)):
            yield days / month / name


def _days_in(folder: str) -> list[date]:
    """The days that have a file in one month folder, in order."""
    days = set()
    for entry in os.scandir(folder):
        match = _DAY_FILE.match(entry.name)
        if match:
            try:
                days.add(date.fromisoformat(match.group(1)))
            except ValueError:
                continue
    return sorted(days)


def day_of(path: Path) -> date | None:
    """The day a day file's name gives ('2026-11-29.k3fq.jsonl' -> 2026-11-29), None for other names."""
    match = _DAY_FILE.match(path.name)
    if not match:
        return None
    try:
        return date.fromisoformat(match.group(1))
    except ValueError:
        return None


def newest_day_files(days: Path) -> list[Path]:
    """All files of the newest day that has a log (names sort by date)."""
    try:
        months = sorted((e.name for e in os.scandir(days) if e.is_dir()), reverse=True)
    except FileNotFoundError:
        return []
    for month in months:
        names = sorted((e.name for e in os.scandir(days / month) if _DAY_FILE.match(e.name)), reverse=True)
        if names:
            newest = names[0][:10]
            return [days / month / n for n in names if n.startswith(newest)]
    return []


def _moment(record: Record) -> float:
    try:
        return record.timestamp.timestamp()  # a naive stamp counts as local time
    except (ValueError, OverflowError, OSError):
        return 0.0


def _seq_of(raw: bytes) -> int | None:
    try:
        data = json.loads(raw)
        rid = data["id"]
        return int(rid.split("#", 1)[1].split(".", 1)[0])
    except (ValueError, KeyError, TypeError, IndexError, AttributeError, RecursionError):
        return None


def read_file(path: Path) -> DayRead:
    """Parse a day log; bad lines are skipped, logged with file and line, and returned as problems."""
    result = DayRead()
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return result
    except OSError as exc:
        raise StorageError(f"Could not read {path}: {exc.strerror or exc}") from exc
    lines = raw.split(b"\n")
    last = len(lines) - 1
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            record = Record.from_dict(json.loads(line.decode("utf-8")))
        except (ValueError, RecursionError) as exc:  # deeply nested JSON raises RecursionError
            torn = number - 1 == last  # no newline after it: a write was cut short
            reason = "incomplete last line (interrupted write)" if torn else f"unreadable record ({exc})"
            problem = ReadProblem(path, number, reason)
            log.warning("Skipped %s", problem)
            result.problems.append(problem)
            continue
        result.records.append(record)
    return result
