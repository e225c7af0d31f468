"""One memory folder on two computers through a sync tool: nothing lost, no id used twice.

The first test is the divergence a synced folder suffered when both computers appended to the one
`YYYY-MM-DD.jsonl`: the tool kept one file and a conflict copy that no reader saw."""

from __future__ import annotations

import json
from datetime import date

import pytest

from companion.memory.daylog import DayLog, day_files
from companion.memory.search import SearchIndex, SearchQuery, search
from tests.syncsim import two_computers, sync

DAY = date(2026, 12, 1)


def _chat(computer, texts):
    log = DayLog(computer.home.days, computer.clock)
    ids = []
    for text in texts:
        ids.append(log.append("user", text).id)
        computer.tick(1)
        log.append("assistant", "Noted.")
        computer.tick(2)
    return ids


@pytest.mark.parametrize("tool", ["Syncthing", "Dropbox", "Nextcloud"])
def test_both_computers_chat_the_same_day_and_every_reader_sees_all_of_it_once(tmp_path, tool):
    laptop, desktop = two_computers(tmp_path, tool)
    said_laptop = _chat(laptop, ["I moved to Lisbon in May", "My sister is called Ana"])
    said_desktop = _chat(desktop, ["I play the cello on Sundays", "我喜欢喝乌龙茶"])
    seen: dict[str, bytes] = {}
    assert sync(laptop, desktop, tool, seen) == []  # one file per computer: nothing for the tool to fight over
    for computer in (laptop, desktop):
        log = DayLog(computer.home.days, computer.clock)
        records = log.read_day(DAY).records
        ids = [r.id for r in records]
        assert len(ids) == len(set(ids)) == 8
        texts = [r.text for r in records if r.role == "user"]
        assert set(texts) == {"I moved to Lisbon in May", "My sister is called Ana", "I play the cello on Sundays", "我喜欢喝乌龙茶"}
        assert [r.timestamp for r in records] == sorted(r.timestamp for r in records)  # one log in time order
        assert log.days() == [DAY]
        assert {r.id for r in records} >= set(said_laptop) | set(said_desktop)
        index = SearchIndex(computer.home)
        try:
            index.sync()
            hits = search(index, SearchQuery("cello", k=5))
            assert [h.item.locator for h in hits if h.item.kind == "turn"][:1] == [said_desktop[0]]
            hits = search(index, SearchQuery("乌龙茶", k=5))
            assert hits and hits[0].item.locator == said_desktop[1]
        finally:
            index.close()
    names = sorted(p.name for p in day_files(laptop.home.days))
    assert len(names) == 2 and all(n.startswith("2026-12-01.") and n.count(".") == 2 for n in names)


def test_the_old_shared_day_file_diverged_under_a_sync_tool(tmp_path):
    """What an unsynced-style log does in a synced folder: both computers write 2026-12-01#1, the tool
    keeps a conflict copy, and the day's log on either side lacks the other computer's words."""
    laptop, desktop = two_computers(tmp_path, "Syncthing", synced=False)  # no marker: as every home used to be
    _chat(laptop, ["I moved to Lisbon in May"])
    _chat(desktop, ["I play the cello on Sundays"])
    made = sync(laptop, desktop)
    assert made == ["days/2026-12/2026-12-01.sync-conflict-20261201-210509-K3FQ2ZB.jsonl"]
    copy = laptop.home.memory / made[0]
    assert json.loads(copy.read_text().splitlines()[0])["id"] == "2026-12-01#1"  # the same id, other words
    texts = [r.text for r in DayLog(laptop.home.days).read_day(DAY).records]
    assert "I play the cello on Sundays" not in texts  # the divergence, until the copy is merged back


def test_icloud_folder_is_recognised_by_its_path(tmp_path):
    from companion.memory.device import sync_tool

    folder = tmp_path / "Library" / "Mobile Documents" / "com~apple~CloudDocs" / "companion-memory"
    folder.mkdir(parents=True)
    assert sync_tool(folder) == "iCloud"
    assert sync_tool(tmp_path) is None


def test_dropbox_settings_in_the_users_home_do_not_make_a_home_synced(tmp_path):
    from companion.memory.device import sync_tool

    (tmp_path / ".dropbox").mkdir()  # ~/.dropbox: the Dropbox app's own settings folder
    memory = tmp_path / ".local" / "share" / "companion" / "companion-memory"
    memory.mkdir(parents=True)
    assert sync_tool(memory) is None
    (tmp_path / "Dropbox").mkdir()
    (tmp_path / "Dropbox" / ".dropbox").write_text('{"tag": "dropbox"}')  # the file in the synced folder
    (tmp_path / "Dropbox" / "companion-memory").mkdir()
    assert sync_tool(tmp_path / "Dropbox" / "companion-memory") == "Dropbox"
