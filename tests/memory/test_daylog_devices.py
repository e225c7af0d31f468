"""Day files per computer in a synced folder: naming, ids, reading all of a day as one log; an unsynced home as before."""

from __future__ import annotations

import json
from datetime import date, datetime, timedelta, timezone

from companion.memory.daylog import DayLog, day_files, newest_day_files
from companion.memory.device import local_device, stored_tag
from companion.memory.records import Record
from companion.sleep.cursor import Cursor, cursor_path
from companion.sleep.job import SleepJob

TZ = timezone(timedelta(hours=1))


def test_an_unsynced_home_keeps_its_file_names_ids_and_cursor(home, clock):
    log = DayLog(home.days, clock)
    ids = [log.append("user", "I'm allergic to peanuts").id, log.append("assistant", "Noted.").id]
    assert ids == ["2026-11-29#1", "2026-11-29#2"]
    assert [p.name for p in day_files(home.days)] == ["2026-11-29.jsonl"]
    assert log.device is None and local_device(home.memory, home.state) is None
    SleepJob(home, None, clock=clock).run()
    assert cursor_path(home) == home.state / "sleep_cursor.json"
    data = json.loads(cursor_path(home).read_text())
    assert all(set(mark) == {"seq", "size"} for mark in data["days"].values())  # the format as it always was
    assert not (home.state / "device.json").exists()


def test_a_synced_folder_gives_this_computer_its_own_day_file_and_tagged_ids(home, clock):
    log = DayLog(home.days, clock)
    old = log.append("user", "before the folder was synced").id
    (home.memory / ".stfolder").mkdir()
    log = DayLog(home.days, clock)
    clock.advance(minutes=1)
    record = log.append("user", "after")
    tag = stored_tag(home.state)
    assert tag and record.id == f"2026-11-29#1.{tag}" and record.device == tag and record.seq == 1
    assert old == "2026-11-29#1"  # the existing id stays valid beside the new one
    assert [p.name for p in log.files(date(2026, 11, 29))] == ["2026-11-29.jsonl", f"2026-11-29.{tag}.jsonl"]
    assert [r.id for r in log.read_day(date(2026, 11, 29)).records] == ["2026-11-29#1", record.id]
    assert Record.from_dict(record.to_dict()) == record
    (home.memory / ".stfolder").rmdir()
    assert DayLog(home.days, clock).append("user", "still mine").device == tag  # once tagged, always tagged


def test_records_of_several_computers_read_as_one_log_in_time_order(home):
    month = home.days / "2026-12"
    month.mkdir(parents=True)
    def write(name, rows):
        (month / name).write_text("".join(json.dumps({"id": i, "ts": ts, "role": "user", "text": t}) + "\n" for i, ts, t in rows))
    write("2026-12-01.k3fq.jsonl", [("2026-12-01#1.k3fq", "2026-12-01T09:00:00.000+01:00", "a"),
                                    ("2026-12-01#2.k3fq", "2026-12-01T11:00:00.000+01:00", "c")])
    write("2026-12-01.q2zb.jsonl", [("2026-12-01#1.q2zb", "2026-12-01T02:00:00.000-08:00", "b"),  # the same moment as c
                                    ("2026-12-01#2.q2zb", "2026-12-01T09:30:00.000+01:00", "a2")])
    write("2026-12-01.sync-conflict-20261201-101530-ABCDEF7.jsonl", [("2026-12-01#1", "2026-12-01T08:00:00.000+01:00", "x")])
    log = DayLog(home.days, device=None)
    assert [r.text for r in log.read_day(date(2026, 12, 1)).records] == ["a", "a2", "c", "b"]
    assert log.days() == [date(2026, 12, 1)]
    assert [p.name for p in newest_day_files(home.days)] == ["2026-12-01.q2zb.jsonl", "2026-12-01.k3fq.jsonl"]
    assert log.size(date(2026, 12, 1)) == sum(p.stat().st_size for p in log.files(date(2026, 12, 1)))
    assert [r.text for r in log.tail(2)] == ["c", "b"]


def test_the_cursor_marks_each_computers_numbering_and_folds_in_a_conflict_copy(tmp_path):
    path = tmp_path / "sleep-cursor.json"
    cursor = Cursor(path)
    records = [Record("2026-12-01#3", "2026-12-01T09:00:00+01:00", "user", "x"),
               Record("2026-12-01#5.k3fq", "2026-12-01T09:00:00+01:00", "user", "y")]
    cursor.advance_records(date(2026, 12, 1), records, 100)
    cursor.save()
    other = Cursor(tmp_path / "sleep-cursor.sync-conflict-20261202-030000-ABCDEF7.json")
    other.advance_records(date(2026, 12, 1), [Record("2026-12-01#9.q2zb", "2026-12-01T10:00:00+01:00", "user", "z")], 180)
    other.last_run = "2026-12-02T03:00:00+01:00"
    other.save()
    loaded = Cursor.load(path)
    mark = loaded.mark(date(2026, 12, 1))
    assert (mark.seq, mark.devices, mark.size) == (3, {"k3fq": 5, "q2zb": 9}, 180)
    assert mark.covers(records[1]) and not mark.covers(Record("2026-12-01#6.k3fq", "2026-12-01T11:00:00+01:00", "user", "n"))
    assert loaded.last_run == "2026-12-02T03:00:00+01:00"


def test_forget_everywhere_reaches_every_computers_day_file_and_the_kept_conflict_copies(tmp_path):
    from companion.memory.forget import erase_everywhere
    from tests.syncsim import conflict_name, sync, two_computers

    laptop, desktop = two_computers(tmp_path)
    DayLog(laptop.home.days, laptop.clock).append("user", "I play the cello badly")
    DayLog(desktop.home.days, desktop.clock).append("user", "The cello teacher is strict")
    sync(laptop, desktop)
    kept = laptop.home.state / "sync-conflicts" / "2026-12" / conflict_name("2026-12-01.jsonl", "Syncthing")
    kept.parent.mkdir(parents=True)
    kept.write_text(json.dumps({"id": "2026-12-01#1", "ts": "2026-12-01T08:00:00+01:00", "role": "user",
                                "text": "cello lessons on Friday"}) + "\n")
    log = DayLog(laptop.home.days, laptop.clock)
    erased = erase_everywhere(laptop.home, lambda text: "cello" in text, log)
    assert erased.records == 2 and kept in erased.files
    texts = [r.text for r in log.read_day(date(2026, 12, 1)).records if r.role == "user"]
    assert texts and not any("cello" in t for t in texts)
    assert "cello" not in kept.read_text()


def test_a_state_folder_copied_from_another_computer_does_not_lend_it_its_tag(home):
    (home.memory / ".stfolder").mkdir()
    tag = local_device(home.memory, home.state)
    data = json.loads((home.state / "device.json").read_text())
    assert data["tag"] == tag and data["sync_tool"] == "Syncthing"
    data["machine"] = "0" * 16  # as if the whole home, state/ too, came from the other computer
    (home.state / "device.json").write_text(json.dumps(data))
    assert stored_tag(home.state) is None
    (home.days / "2026-11").mkdir(parents=True)
    (home.days / "2026-11" / f"2026-11-29.{tag}.jsonl").write_text("")  # that computer's day file, synced here
    again = local_device(home.memory, home.state)
    assert again is not None and again != tag  # this computer writes its own file, never the other's
    assert stored_tag(home.state) == again


def test_entries_cite_device_tagged_ids_like_any_other():
    from companion.memory import entries as E

    line = "- Plays the cello (2026-12-01#4.k3fq, 2026-11-02#1)"
    entry = E.Entry.parse(line)
    assert entry.text == "Plays the cello" and entry.sources == ("2026-12-01#4.k3fq", "2026-11-02#1")
    assert E.cited_days(line) == [date(2026, 12, 1), date(2026, 11, 2)]
    assert E.CITED.findall(line.replace(", 2026-11-02#1", "")) == [("2026-12-01", "4.k3fq")]
    assert E.ID.findall("see 2026-12-01#4.") == ["2026-12-01#4"]  # a full stop is no device tag
