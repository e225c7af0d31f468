"""The night's lock that travels with a synced memory folder: one computer sleeps at a time.

Why a travelling lock and not a cursor per computer: the night writes shared files (USER.md,
MEMORY.md, the digests). With a cursor per computer both would distill and write every night, and
every night would end in conflict copies; a computer that stays off would leave its records
undistilled. With the lock, whichever computer is awake at night does the work for all of them,
and the cursor travels with the lock (`sync/sleep-cursor.json`), so nothing is distilled twice.

The lock is a small file (`sync/sleep-lock.json`) naming the computer that holds it; the holder
refreshes it every minute while the night runs. A lock not refreshed for STALE_AFTER (a crash, a
laptop closed mid-run) is taken over. A sync tool is not a lock server: two computers that start
before hearing of each other both run, their writes meet as conflict copies, and the next
reconciliation merges them (`curate/reconcile.py`).
"""

from __future__ import annotations

import json
import logging
import os
import platform
import threading
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Callable

from companion.atomic import atomic_write
from companion.memory.conflicts import copies_in

log = logging.getLogger(__name__)

LOCK_NAME = "sleep-lock.json"
STALE_AFTER = timedelta(minutes=15)  # several sync rounds; a run refreshes the lock every BEAT_S
BEAT_S = 60.0


def sync_folder(memory: Path) -> Path:
    """Where the files that coordinate computers live (synced, never exported or indexed)."""
    return memory / "sync"


@dataclass(frozen=True)
class Holder:
    device: str
    node: str
    pid: int
    since: str
    beat: str

    @classmethod
    def read(cls, path: Path) -> "Holder | None":
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            return cls(str(data["device"]), str(data.get("node", "")), int(data.get("pid", 0)),
                       str(data["since"]), str(data["beat"]))
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def age(self, now: datetime) -> timedelta:
        try:
            beat = datetime.fromisoformat(self.beat)
        except ValueError:
            return STALE_AFTER * 2
        if beat.tzinfo is None or now.tzinfo is None:
            beat, now = beat.replace(tzinfo=None), now.replace(tzinfo=None)
        return now - beat


class TravellingLock:
    """Held by one computer (device tag) of a synced folder at a time."""

    def __init__(self, memory: Path, device: str, *, stale_after: timedelta = STALE_AFTER,
                 clock: Callable[[], datetime] = lambda: datetime.now().astimezone(), beat_s: float = BEAT_S) -> None:
        self.folder = sync_folder(memory)
        self.path = self.folder / LOCK_NAME
        self.device = device
        self.stale_after = stale_after
        self.clock = clock
        self.beat_s = beat_s
        self.blocked_by: Holder | None = None
        self._since = ""
        self._stop = threading.Event()
        self._beater: threading.Thread | None = None

    def holders(self) -> list[Holder]:
        """The lock file and its conflict copies: every computer that claims the night."""
        paths = [self.path] + [c.path for c in copies_in(self.folder, {LOCK_NAME})]
        return [h for h in map(Holder.read, paths) if h is not None]

    def _fresh_other(self) -> Holder | None:
        now = self.clock()
        others = [h for h in self.holders() if h.device != self.device and h.age(now) < self.stale_after]
        if not others:
            return None
        for holder in others:
            log.info("Another computer (%s, %s) holds the night since %s", holder.device, holder.node, holder.since)
        return min(others, key=lambda h: h.device)

    def acquire(self) -> bool:
        """Take the lock unless another computer holds a fresh one (then `blocked_by` says which)."""
        self.blocked_by = self._fresh_other()
        if self.blocked_by is not None:
            return False
        self._since = self.clock().isoformat(timespec="seconds")
        self._write()
        self._stop.clear()
        self._beater = threading.Thread(target=self._beat_loop, name="sleep-lock-beat", daemon=True)
        self._beater.start()
        return True

    def _write(self) -> None:
        now = self.clock().isoformat(timespec="seconds")
        data = {"device": self.device, "node": platform.node(), "pid": os.getpid(), "since": self._since or now, "beat": now}
        atomic_write(self.path, json.dumps(data, indent=1))

    def beat(self) -> None:
        """Refresh the lock (the night is still running here)."""
        mine = Holder.read(self.path)
        if mine is None or mine.device == self.device:
            self._write()

    def _beat_loop(self) -> None:
        while not self._stop.wait(self.beat_s):
            try:
                self.beat()
            except Exception:  # a full disk must not kill the night; the lock goes stale instead
                log.exception("Could not refresh the night's lock")

    def release(self) -> None:
        self._stop.set()
        if self._beater is not None:
            self._beater.join(timeout=5)
            self._beater = None
        for path in [self.path] + [c.path for c in copies_in(self.folder, {LOCK_NAME})]:
            holder = Holder.read(path)
            if holder is None or holder.device == self.device or holder.age(self.clock()) >= self.stale_after:
                try:
                    path.unlink()
                except FileNotFoundError:
                    pass
