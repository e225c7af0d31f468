"""The night's lock that travels with a synced folder: another computer's fresh lock blocks, a stale one is
taken over, a conflict copy of the lock counts, and an unsynced home never sees a lock file."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import pytest

from companion.errors import SleepBusyError
from companion.memory.daylog import DayLog
from companion.sleep.job import SleepJob
from companion.sleep.travel_lock import LOCK_NAME, STALE_AFTER, TravellingLock, sync_folder
from tests.syncsim import conflict_name, sync, two_computers

TZ = timezone(timedelta(hours=1))


def _claim(memory, device, beat, name=LOCK_NAME):
    folder = sync_folder(memory)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(json.dumps({"device": device, "node": "desktop", "pid": 4242,
                                           "since": beat.isoformat(), "beat": beat.isoformat()}))


def test_a_fresh_lock_of_another_computer_blocks_and_a_stale_one_is_taken_over(tmp_path):
    now = datetime(2026, 12, 2, 3, 0, tzinfo=TZ)
    memory = tmp_path / "companion-memory"
    _claim(memory, "q2zb", now - timedelta(minutes=2))
    lock = TravellingLock(memory, "k3fq", clock=lambda: now)
    assert not lock.acquire()
    assert lock.blocked_by is not None and lock.blocked_by.device == "q2zb"
    _claim(memory, "q2zb", now - STALE_AFTER - timedelta(minutes=1))  # crashed, or closed mid-run
    assert lock.acquire()
    held = json.loads((sync_folder(memory) / LOCK_NAME).read_text())
    assert held["device"] == "k3fq" and held["beat"] == now.isoformat(timespec="seconds")
    other = TravellingLock(memory, "q2zb", clock=lambda: now + timedelta(minutes=1))
    assert not other.acquire()  # the lock travelled: the other computer now sees it held
    lock.release()
    assert not (sync_folder(memory) / LOCK_NAME).exists()
    assert other.acquire()
    other.release()


def test_a_conflict_copy_of_the_lock_is_a_claim_too(tmp_path):
    now = datetime(2026, 12, 2, 3, 0, tzinfo=TZ)
    memory = tmp_path / "companion-memory"
    _claim(memory, "k3fq", now - timedelta(hours=5))  # our own old lock
    _claim(memory, "q2zb", now, conflict_name(LOCK_NAME, "Syncthing"))  # both started before hearing of each other
    lock = TravellingLock(memory, "k3fq", clock=lambda: now)
    assert not lock.acquire() and lock.blocked_by.device == "q2zb"


def test_the_lock_is_refreshed_while_held(tmp_path):
    times = [datetime(2026, 12, 2, 3, 0, tzinfo=TZ)]
    lock = TravellingLock(tmp_path / "m", "k3fq", clock=lambda: times[0], beat_s=0.05)
    assert lock.acquire()
    times[0] += timedelta(minutes=30)
    import time

    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        beat = json.loads((sync_folder(tmp_path / "m") / LOCK_NAME).read_text())["beat"]
        if beat == times[0].isoformat(timespec="seconds"):
            break
        time.sleep(0.02)
    lock.release()
    assert beat == times[0].isoformat(timespec="seconds")


def test_the_night_skips_while_the_other_computer_sleeps_and_runs_after(tmp_path):
    laptop, desktop = two_computers(tmp_path)
    DayLog(laptop.home.days, laptop.clock).append("user", "I'm allergic to peanuts")
    now = datetime.now().astimezone()
    job = SleepJob(laptop.home, None, clock=laptop.clock)
    device = job.daylog.device
    assert device  # the Syncthing marker made this computer a device of the folder
    _claim(laptop.home.memory, "q2zb", now)
    with pytest.raises(SleepBusyError, match="other computer is sleeping"):
        job.run()
    assert "peanuts" not in job.store.read("USER.md").body
    (sync_folder(laptop.home.memory) / LOCK_NAME).unlink()
    report = job.run()
    assert report.records >= 1 and "peanuts" in job.store.read("USER.md").body.casefold()
    assert not (sync_folder(laptop.home.memory) / LOCK_NAME).exists()


def test_an_unsynced_home_never_writes_a_lock_or_sync_folder(home, clock):
    DayLog(home.days, clock).append("user", "I'm allergic to peanuts")
    SleepJob(home, None, clock=clock).run()
    assert not sync_folder(home.memory).exists()
    assert not (home.state / "device.json").exists()
