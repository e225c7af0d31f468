"""Both computers chat on the same day and edit USER.md, the folder syncs, the night runs on one of
them: nothing lost, no id twice, one merged USER.md on both computers, the other one skips the night."""

from __future__ import annotations

from datetime import date, timedelta

import pytest

from companion.curate.proposals import ProposalQueue
from companion.errors import SleepBusyError
from companion.memory.daylog import DayLog, day_files
from companion.curate.gate import MemoryWriter
from companion.memory.history import Actor
from companion.memory.longterm import LongTermStore
from companion.sleep.job import SleepJob
from companion.sleep.travel_lock import TravellingLock
from tests.syncsim import sync, two_computers

DAY = date(2026, 12, 1)


def _chat(computer, *texts):
    log = DayLog(computer.home.days, computer.clock)
    for text in texts:
        log.append("user", text)
        computer.tick(1)
        log.append("assistant", "Noted.")
        computer.tick(3)


@pytest.mark.parametrize("tool", ["Syncthing", "Dropbox", "Nextcloud"])
def test_two_computers_one_day_one_night_one_merged_profile(tmp_path, tool):
    laptop, desktop = two_computers(tmp_path, tool)
    seen: dict[str, bytes] = {}
    _chat(laptop, "I'm allergic to shellfish.", "I live in Paris.")
    _chat(desktop, "I prefer tea over coffee.", "My sister is called Lea.")
    # the user edits the profile by hand on both computers before they sync
    MemoryWriter(LongTermStore(laptop.home)).append("USER.md", "- Works as a nurse", "Profile", actor=Actor.EDITOR)
    MemoryWriter(LongTermStore(desktop.home)).append("USER.md", "- Plays the cello", "Profile", actor=Actor.EDITOR)
    made = sync(laptop, desktop, tool, seen)
    assert [m.rsplit("/", 1)[-1].split(" ")[0].split(".")[0] for m in made] == ["USER"]  # only the profile clashed

    laptop.now = laptop.now.replace(hour=23)
    report = SleepJob(laptop.home, None, clock=laptop.clock).run()
    assert any("Merged 1 conflict copy" in n for n in report.notes)
    sync(laptop, desktop, tool, seen)
    # while a night runs on the laptop, the desktop (in step through the folder) skips its own
    running = TravellingLock(laptop.home.memory, DayLog(laptop.home.days).device)
    assert running.acquire()
    sync(laptop, desktop, tool, seen)
    try:
        with pytest.raises(SleepBusyError, match="other computer is sleeping"):
            SleepJob(desktop.home, None, clock=desktop.clock).run()
    finally:
        running.release()
    sync(laptop, desktop, tool, seen)

    for computer in (laptop, desktop):
        records = DayLog(computer.home.days).read_day(DAY).records
        ids = [r.id for r in records]
        assert len(ids) == len(set(ids))  # no id twice
        said = [r.text for r in records if r.role == "user"]
        assert set(said) >= {"I'm allergic to shellfish.", "I live in Paris.", "I prefer tea over coffee.", "My sister is called Lea."}
        user = LongTermStore(computer.home).read("USER.md").body
        for fact in ("Works as a nurse", "Plays the cello", "shellfish", "Paris", "tea"):
            assert fact.casefold() in user.casefold(), fact
        assert not [p for p in computer.home.memory.iterdir() if p.name.startswith("USER") and p.name != "USER.md"]
    assert (laptop.home.memory / "USER.md").read_bytes() == (desktop.home.memory / "USER.md").read_bytes()
    assert ProposalQueue(laptop.home).items() == []  # additions on both sides are no conflict
    assert len(list(day_files(laptop.home.days))) == 2  # one per computer; the night's report went into the laptop's

    # the next night, on the other computer, distills nothing twice: the cursor travelled with the folder
    desktop.now += timedelta(days=1)
    again = SleepJob(desktop.home, None, clock=desktop.clock).run()
    assert again.records == 0 and not again.applied()
