"""Conflict copies merged back: USER.md three-way from History (a true conflict waits for the user,
with Undo), a day log's copy recovered under fresh ids, nothing lost, a rerun changes nothing."""

from __future__ import annotations

import json
import shutil
from datetime import date

from companion.curate.gate import MemoryWriter
from companion.curate.proposals import ProposalQueue
from companion.memory.history import Actor
from companion.curate.reconcile import reconcile
from companion.memory.daylog import DayLog
from companion.memory.longterm import LongTermStore
from tests.syncsim import conflict_name, sync, two_computers


def _writer(computer) -> MemoryWriter:
    return MemoryWriter(LongTermStore(computer.home))


def test_user_md_edited_on_both_computers_merges_three_way_and_a_true_conflict_becomes_a_proposal(tmp_path):
    laptop, desktop = two_computers(tmp_path, "Dropbox")
    seen: dict[str, bytes] = {}
    for computer in (laptop, desktop):  # the common version, on both computers
        _writer(computer).append("USER.md", "- Lives in Paris (2026-11-01#3)", "Profile", actor=Actor.EDITOR)
    sync(laptop, desktop, "Dropbox", seen)
    lap, desk = _writer(laptop), _writer(desktop)
    lap.edit("USER.md", "Lives in Paris (2026-11-01#3)", "Lives in Berlin (2026-12-01#2.k3fq)", actor=Actor.EDITOR)
    lap.append("USER.md", "- Plays chess (2026-12-01#4.k3fq)", "Preferences", actor=Actor.EDITOR)
    desk.edit("USER.md", "Lives in Paris (2026-11-01#3)", "Lives in Rome (2026-12-01#1.q2zb)", actor=Actor.EDITOR)
    desk.append("USER.md", "- 喜欢喝乌龙茶 (2026-12-01#3.q2zb)", "Preferences", actor=Actor.EDITOR)
    made = sync(laptop, desktop, "Dropbox", seen)
    assert made == ["USER (Lea's conflicted copy 2026-12-01).md"]

    queue = ProposalQueue(laptop.home)
    result = reconcile(laptop.home, lap, queue)
    assert result.copies == made and result.merged == ["USER.md"] and result.proposals == 1
    body = lap.store.read("USER.md").body
    assert "Plays chess" in body and "喜欢喝乌龙茶" in body  # both computers' additions
    assert "Lives in Berlin" in body and "Lives in Rome" not in body  # no silent winner: this side kept, ...
    [waiting] = queue.items()
    assert waiting.kind == "conflict" and waiting.theirs == ["- Lives in Rome (2026-12-01#1.q2zb)\n"]  # ... the other asked
    assert not (laptop.home.memory / made[0]).exists()
    assert (laptop.home.state / "sync-conflicts" / laptop.home.memory.name / made[0]).exists()  # kept as a backup

    queue.approve(waiting.id, lap)
    assert "Lives in Rome" in lap.store.read("USER.md").body and "Lives in Berlin" not in lap.store.read("USER.md").body
    queue.undo(waiting.id, lap)
    assert "Lives in Berlin" in lap.store.read("USER.md").body
    assert [p.status for p in queue.items(None)] == ["undone"]

    again = reconcile(laptop.home, lap, queue)  # nothing left to merge
    assert again.copies == [] and len(queue.items(None)) == 1


def test_a_day_log_copy_is_recovered_under_fresh_ids_and_a_rerun_changes_nothing(tmp_path):
    laptop, desktop = two_computers(tmp_path, "Syncthing", synced=False)  # two old-style homes in one folder
    DayLog(laptop.home.days, laptop.clock).append("user", "I moved to Lisbon in May")
    DayLog(desktop.home.days, desktop.clock).append("user", "I play the cello on Sundays")
    [copy] = sync(laptop, desktop)
    writer = _writer(laptop)
    result = reconcile(laptop.home, writer, ProposalQueue(laptop.home))
    assert result.recovered == 1 and result.copies == [copy.rsplit("/", 1)[1]]
    records = DayLog(laptop.home.days).read_day(date(2026, 12, 1)).records
    assert [r.text for r in records] == ["I moved to Lisbon in May", "I play the cello on Sundays"]
    assert records[0].id == "2026-12-01#1"  # existing ids stay valid
    recovered = records[1]
    assert recovered.id != "2026-12-01#1" and recovered.device and recovered.extra["ref"] == "2026-12-01#1"
    assert len({r.id for r in records}) == 2
    before = sorted(p.name for p in (laptop.home.days / "2026-12").iterdir())
    shutil.copy2(laptop.home.state / "sync-conflicts" / "2026-12" / result.copies[0], laptop.home.days / "2026-12")
    assert reconcile(laptop.home, writer, ProposalQueue(laptop.home)).recovered == 1  # the same copy once more ...
    assert sorted(p.name for p in (laptop.home.days / "2026-12").iterdir()) == before  # ... the same file, same ids
    assert [r.id for r in DayLog(laptop.home.days).read_day(date(2026, 12, 1)).records] == [r.id for r in records]


def test_a_copy_holding_only_what_the_original_has_adds_nothing(tmp_path):
    laptop, _desktop = two_computers(tmp_path, "Nextcloud")
    log = DayLog(laptop.home.days, laptop.clock)
    log.append("user", "hello")
    path = log.path_for(date(2026, 12, 1))
    (path.parent / conflict_name(path.name, "Nextcloud")).write_bytes(path.read_bytes())
    result = reconcile(laptop.home, _writer(laptop), ProposalQueue(laptop.home))
    assert result.recovered == 0 and len(result.copies) == 1
    assert [r.text for r in log.read_day(date(2026, 12, 1)).records] == ["hello"]


def test_an_agent_proposal_is_applied_only_on_approval_through_the_policy(tmp_path):
    laptop, _ = two_computers(tmp_path)
    writer, queue = _writer(laptop), ProposalQueue(laptop.home)
    store = writer.store
    before = store.read("MEMORY.md").raw
    item = queue.propose_remember("Has a dentist appointment on 2026-12-09", "MEMORY.md", "Facts", "claude-desktop", ["2026-12-01#4"])
    assert store.read("MEMORY.md").raw == before  # nothing written yet
    queue.approve(item.id, writer)
    assert "- Has a dentist appointment on 2026-12-09 (2026-12-01#4)" in store.read("MEMORY.md").body
    assert store.history.versions("MEMORY.md")[0].actor == "agent"
    import pytest
    from companion.errors import ProposalError

    with pytest.raises(ProposalError, match="secret|never stored"):
        queue.propose_remember("My password is hunter2-Xq9!zz", "USER.md", "Profile", "claude-desktop", [])
    data = json.loads(queue.path.read_text())
    assert [i["status"] for i in data["items"]] == ["approved"]


def test_a_choice_left_by_one_computers_night_waits_on_both_and_is_made_once(tmp_path):
    laptop, desktop = two_computers(tmp_path, "Syncthing")
    seen: dict[str, bytes] = {}
    for computer in (laptop, desktop):
        DayLog(computer.home.days, computer.clock).append("user", "hello")  # both computers get their tag
        _writer(computer).append("USER.md", "- Lives in Paris", "Profile", actor=Actor.EDITOR)
    sync(laptop, desktop, "Syncthing", seen)
    _writer(laptop).edit("USER.md", "Lives in Paris", "Lives in Berlin", actor=Actor.EDITOR)
    _writer(desktop).edit("USER.md", "Lives in Paris", "Lives in Rome", actor=Actor.EDITOR)
    sync(laptop, desktop, "Syncthing", seen)
    assert reconcile(laptop.home, _writer(laptop), ProposalQueue(laptop.home)).proposals == 1
    assert ProposalQueue(laptop.home).path == laptop.home.memory / "sync" / "proposals.json"
    sync(laptop, desktop, "Syncthing", seen)
    [waiting] = ProposalQueue(desktop.home).items()  # the choice travelled to the other computer
    ProposalQueue(desktop.home).approve(waiting.id, _writer(desktop))
    assert "Lives in Rome" in _writer(desktop).store.read("USER.md").body
    # meanwhile the laptop declined it, before hearing of the desktop's choice: the tool keeps both
    ProposalQueue(laptop.home).decline(waiting.id)
    made = sync(laptop, desktop, "Syncthing", seen)
    assert made == ["sync/proposals.sync-conflict-20261201-210509-K3FQ2ZB.json"]
    [folded] = ProposalQueue(laptop.home).items(None)
    assert folded.status in ("approved", "declined") and ProposalQueue(laptop.home).items() == []


def test_a_proposal_round_trips_and_a_damaged_one_is_skipped(tmp_path):
    from companion.curate.proposals import Pending

    item = Pending("20261201T090000-abc123", "conflict", "USER.md", "2026-12-01T09:00:00+01:00", "USER 2.md",
                   ours=["- Lives in Berlin\n"], theirs=["- Lives in Rome\n"])
    assert Pending.from_dict(item.to_dict()) == item
    laptop, _ = two_computers(tmp_path)
    queue = ProposalQueue(laptop.home)
    queue.path.parent.mkdir(parents=True, exist_ok=True)
    queue.path.write_text(json.dumps({"schema_version": 1, "items": [item.to_dict(), {"id": "x", "kind": "rm -rf"}]}))
    assert queue.items() == [item]
