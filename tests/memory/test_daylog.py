"""Day logs: append with stable ids, fsync'd whole lines, tolerant reads."""

from __future__ import annotations

import errno
import json
import logging
import os
import time
from datetime import date

import pytest

from companion.errors import StorageError
from companion.memory.daylog import DayLog, read_file
from companion.memory.records import Record


def test_append_assigns_sequential_ids_in_the_day_file(home, clock):
    log = DayLog(home.days, clock)
    first = log.append("user", "hello")
    second = log.append("assistant", "hi there", model="m", tokens=3)
    assert (first.id, second.id) == ("2026-11-29#1", "2026-11-29#2")
    path = home.days / "2026-11" / "2026-11-29.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines()
    assert [json.loads(l)["id"] for l in lines] == ["2026-11-29#1", "2026-11-29#2"]
    assert json.loads(lines[1])["model"] == "m"
    assert json.loads(lines[0])["ts"].startswith("2026-11-29T14:03:22.000+01:00")


def test_new_day_goes_to_a_new_file_and_restarts_numbering(home, clock):
    log = DayLog(home.days, clock)
    log.append("user", "late")
    clock.advance(hours=12)
    record = log.append("user", "早上好")
    assert record.id == "2026-11-30#1"
    assert log.days() == [date(2026, 11, 29), date(2026, 11, 30)]
    assert log.read_day(date(2026, 11, 30)).records[0].text == "早上好"


def test_numbering_continues_after_reopen(home, clock):
    DayLog(home.days, clock).append("user", "one")
    assert DayLog(home.days, clock).append("user", "two").id == "2026-11-29#2"


def test_corrupt_line_is_skipped_and_named(home, clock, caplog):
    log = DayLog(home.days, clock)
    log.append("user", "a")
    path = log.path_for(clock().date())
    with open(path, "ab") as handle:
        handle.write(b"{not json\n")
    log.append("user", "b")
    with caplog.at_level(logging.WARNING):
        result = log.read_day(clock().date())
    assert [r.text for r in result.records] == ["a", "b"]
    assert [p.line for p in result.problems] == [2]
    assert "2026-11-29.jsonl" in caplog.text and "line 2" in caplog.text
    assert result.records[1].id == "2026-11-29#2"  # the damaged line had no id to reserve


def test_torn_last_line_is_skipped_then_sealed_by_next_append(home, clock):
    log = DayLog(home.days, clock)
    log.append("user", "kept")
    path = log.path_for(clock().date())
    with open(path, "ab") as handle:
        handle.write(b'{"id": "2026-11-29#2", "ts": "2026-11-29T1')  # crash mid-write
    torn = read_file(path)
    assert [r.text for r in torn.records] == ["kept"]
    assert "interrupted" in torn.problems[0].reason
    after = log.append("user", "next")
    assert after.id == "2026-11-29#2"
    reread = read_file(path)
    assert [r.text for r in reread.records] == ["kept", "next"]
    assert len(reread.problems) == 1


def test_disk_full_leaves_no_partial_line(home, clock, monkeypatch):
    log = DayLog(home.days, clock)
    log.append("user", "before")
    path = log.path_for(clock().date())
    size = path.stat().st_size
    real_write = os.write

    def half_then_full(fd, data):
        real_write(fd, data[: len(data) // 2])
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "write", half_then_full)
    with pytest.raises(StorageError, match="disk is full"):
        log.append("user", "x" * 1000)
    monkeypatch.undo()
    assert path.stat().st_size == size
    assert [r.text for r in read_file(path).records] == ["before"]
    assert log.append("user", "after").id == "2026-11-29#2"


def test_tail_reads_only_the_newest_days(home, clock, monkeypatch):
    log = DayLog(home.days, clock)
    for day in range(30):
        log.append("user", f"day {day}")
        log.append("assistant", f"reply {day}")
        clock.advance(days=1)
    opened: list[date] = []
    original = log.read_day

    def spy(day):
        opened.append(day)
        return original(day)

    monkeypatch.setattr(log, "read_day", spy)
    tail = log.tail(3)
    assert [r.text for r in tail] == ["reply 28", "day 29", "reply 29"]
    assert len(opened) == 2


def test_read_range_and_iter_backwards(home, clock):
    log = DayLog(home.days, clock)
    for index in range(3):
        log.append("user", str(index))
        clock.advance(days=1)
    result = log.read_range(date(2026, 11, 30), date(2026, 12, 1))
    assert [r.text for r in result.records] == ["1", "2"]
    assert [r.text for r in log.iter_backwards()] == ["2", "1", "0"]


def test_record_round_trip_keeps_unknown_keys():
    data = {"id": "2026-11-29#17", "ts": "2026-11-29T14:03:22.123+01:00", "role": "tool", "text": "t",
            "tool": {"name": "read_memory"}, "ref": "x#1", "future": [1, 2]}
    record = Record.from_dict(data)
    assert record.to_dict() == data
    assert Record.from_dict(json.loads(record.to_line())) == record


@pytest.mark.parametrize("bad", [
    {"id": "nope", "ts": "2026-11-29T14:03:22", "role": "user", "text": ""},
    {"id": "2026-11-29#1", "ts": "2026-11-29T14:03:22", "role": "robot", "text": ""},
    {"id": "2026-11-29#1", "ts": "yesterday", "role": "user", "text": ""},
    {"id": "2026-11-29#1", "ts": "2026-11-29T14:03:22", "role": "user"},
    ["not", "an", "object"],
])
def test_malformed_records_are_rejected(bad):
    with pytest.raises(ValueError):
        Record.from_dict(bad)  # type: ignore[arg-type]


def _parses(monkeypatch) -> list[str]:
    """The day files actually parsed (a spy on the module's reader)."""
    import companion.memory.daylog as daylog

    parsed: list[str] = []
    original = daylog.read_file

    def spy(path):
        parsed.append(path.name)
        return original(path)

    monkeypatch.setattr(daylog, "read_file", spy)
    return parsed


def test_a_day_read_again_is_parsed_again_only_when_its_file_changed(home, clock, monkeypatch):
    log = DayLog(home.days, clock)
    log.append("user", "yesterday")
    clock.advance(days=1)
    log.append("user", "today")
    parsed = _parses(monkeypatch)
    assert [r.text for r in log.tail(10)] == ["yesterday", "today"]
    assert len(parsed) == 2
    log.tail(10)
    assert len(parsed) == 2  # nothing changed: nothing parsed
    log.append("assistant", "an answer")
    assert [r.text for r in log.tail(10)] == ["yesterday", "today", "an answer"]
    assert len(parsed) == 3  # only today's file, which grew


def test_a_day_file_rewritten_to_the_same_size_is_read_anew(home, clock):
    log = DayLog(home.days, clock)
    log.append("user", "my pin is 4321")
    path = log.path_for(clock().date())
    assert log.read_day(clock().date()).records[0].text == "my pin is 4321"
    data = path.read_bytes().replace(b"4321", b"----")
    swap = path.with_name("swap.tmp")
    swap.write_bytes(data)
    os.replace(swap, path)  # how every rewrite lands (forget, merge): a new file in its place
    assert path.stat().st_size == len(data)
    assert log.read_day(clock().date()).records[0].text == "my pin is ----"


def test_records_handed_out_are_the_callers_list(home, clock):
    log = DayLog(home.days, clock)
    log.append("user", "one")
    first = log.read_day(clock().date())
    first.records.clear()
    assert [r.text for r in log.read_day(clock().date()).records] == ["one"]


def test_days_sees_a_file_added_to_a_month_listed_before(home, clock):
    log = DayLog(home.days, clock)
    log.append("user", "november")
    clock.advance(days=40)
    log.append("user", "january")
    assert len(log.days()) == 2
    november = log.path_for(date(2026, 12, 1)).parent.with_name("2026-11")
    (november / "2026-11-30.jsonl").write_bytes((november / "2026-11-29.jsonl").read_bytes())  # a synced copy
    assert [d.isoformat() for d in log.days()] == ["2026-11-29", "2026-11-30", "2027-01-08"]
    old = time.time() - 60
    os.utime(november, (old, old))  # the month settles: its list is kept from now on
    log.days()
    (november / "2026-11-28.jsonl").write_bytes((november / "2026-11-29.jsonl").read_bytes())
    assert date(2026, 11, 28) in log.days()
