"""The search index: built from the memory folder, kept in step incrementally, rebuilt when broken."""

from __future__ import annotations

import os
from datetime import date, datetime, timedelta, timezone

import pytest

from companion.memory.daylog import DayLog
from companion.memory.longterm import LongTermStore
from companion.memory.search import SearchIndex, SearchQuery, open_index, search
from companion.memory.search.index import edit_distance
from companion.curate.gate import MemoryWriter
from companion.memory.history import Actor

TZ = timezone(timedelta(hours=1))


class Clock:
    def __init__(self, day: date) -> None:
        self.now = datetime(day.year, day.month, day.day, 9, 0, tzinfo=TZ)

    def __call__(self) -> datetime:
        return self.now


def texts(index, query, **kw):
    return [h.item.text for h in search(index, SearchQuery(query, **kw))]


@pytest.fixture
def log(home):
    clock = Clock(date(2024, 3, 1))
    daylog = DayLog(home.days, clock)
    daylog.append("user", "I started learning the cello last month")
    daylog.append("assistant", "That is wonderful. How is practice going?")
    daylog.append("event", "Trigger fired: cello")  # events are not indexed
    clock.now += timedelta(days=4)
    daylog.append("user", "我今天喝了一杯咖啡，很好喝")
    daylog.append("user", "My sister Anna lives in Lisbon")
    daylog.clock_ref = clock  # type: ignore[attr-defined]
    return daylog


def test_builds_from_day_logs_and_finds_english_and_chinese(home, log):
    index = open_index(home)
    assert index.path.parent == home.state  # never inside the exported memory folder
    assert texts(index, "cello") == ["I started learning the cello last month"]
    assert texts(index, "咖啡") == ["我今天喝了一杯咖啡，很好喝"]
    assert texts(index, "Trigger fired") == []
    assert texts(index, "where does my sister live") == ["My sister Anna lives in Lisbon"]


def test_typos_still_match(home, log):
    index = open_index(home)
    assert texts(index, "sistr") == ["My sister Anna lives in Lisbon"]
    assert texts(index, "Lisobn") == ["My sister Anna lives in Lisbon"]  # a swap is one edit
    assert edit_distance("lisbon", "lisobn", 2) == 1


def test_appended_records_are_found_after_refresh_without_a_full_scan(home, log):
    index = open_index(home)
    before = index.count()
    log.append("user", "Bought new cello strings today")
    index.refresh()
    assert index.count() == before + 1
    assert "Bought new cello strings today" in texts(index, "cello strings")


def test_a_torn_last_line_waits_until_complete(home, log):
    index = open_index(home)
    path = log.path_for(date(2024, 3, 5))
    with open(path, "ab") as handle:
        handle.write(b'{"id":"2024-03-05#3","ts":"2024-03-05T09:00:00+01:00","role":"user","text":"half a pian')
    index.refresh()
    assert texts(index, "piano") == []
    with open(path, "ab") as handle:
        handle.write(b'o lesson"}\n')
    index.refresh()
    assert texts(index, "piano") == ["half a piano lesson"]


def test_outside_edit_of_a_day_log_is_found_at_start(home, log):
    index = open_index(home)
    index.close()
    path = log.path_for(date(2024, 3, 1))
    content = path.read_text(encoding="utf-8").replace("cello", "violin")
    path.write_text(content, encoding="utf-8")
    os.utime(path, ns=(1, 1))
    index = open_index(home)
    assert texts(index, "cello") == []
    assert texts(index, "violin") == ["I started learning the violin last month"]


def test_long_term_entries_and_digests_are_indexed_with_lines_and_citations(home, log):
    store = LongTermStore(home)
    MemoryWriter(store).append("MEMORY.md", "- Allergic to peanuts (2024-03-01#1)", "## Facts", actor=Actor.EDITOR)
    digest = home.digests / "week" / "2024-W09.md"
    digest.parent.mkdir(parents=True)
    digest.write_text("# Week 9\n\n- Talked about the cello and practice plans\n", encoding="utf-8")
    index = open_index(home)
    hits = search(index, SearchQuery("peanut allergy"))
    assert hits and hits[0].item.kind == "entry" and hits[0].item.context == "Facts"
    assert hits[0].item.cites == ["2024-03-01#1"]
    line = int(hits[0].item.locator)
    assert "peanuts" in store.path("MEMORY.md").read_text(encoding="utf-8").splitlines()[line - 1]
    digests = search(index, SearchQuery("cello", kinds=("digest",)))
    assert [h.item.day for h in digests] == ["2024-02-26"]  # an ISO week starts on its Monday


def test_long_term_edit_is_seen_after_mark_dirty(home, log):
    store = LongTermStore(home)
    index = open_index(home)
    store.subscribe(lambda name, doc: index.mark_dirty(store.path(name)))
    MemoryWriter(store).append("USER.md", "- Works as a nurse in Porto", actor=Actor.EDITOR)
    index.refresh()
    assert texts(index, "nurse") == ["Works as a nurse in Porto"]
    MemoryWriter(store).edit("USER.md", "nurse in Porto", "doctor in Porto", actor=Actor.EDITOR)
    index.refresh()
    assert texts(index, "nurse") == [] and texts(index, "doctor") == ["Works as a doctor in Porto"]


def test_filters_by_kind_and_date(home, log):
    MemoryWriter(LongTermStore(home)).append("MEMORY.md", "- Cello teacher is Mrs Park (2024-03-05#2)", "## Facts", actor=Actor.EDITOR)
    index = open_index(home)
    assert {h.item.kind for h in search(index, SearchQuery("cello"))} == {"turn", "entry"}
    assert texts(index, "cello", kinds=("turn",)) == ["I started learning the cello last month"]
    assert texts(index, "cello", kinds=("turn",), since=date(2024, 3, 2)) == []
    assert texts(index, "咖啡", until=date(2024, 3, 4)) == []


@pytest.mark.parametrize("damage", ["garbage", "missing", "truncated"])
def test_a_corrupt_or_missing_index_is_rebuilt(home, log, damage):
    index = open_index(home)
    index.close()
    if damage == "garbage":
        index.path.write_bytes(b"this is not a database" * 100)
    elif damage == "truncated":
        index.path.write_bytes(index.path.read_bytes()[:2048])
    else:
        index.path.unlink()
    for suffix in ("-wal", "-shm"):
        if os.path.exists(str(index.path) + suffix):
            os.remove(str(index.path) + suffix)
    fresh = SearchIndex(home)
    assert texts(fresh, "cello") == ["I started learning the cello last month"]
    assert fresh.rebuilt


def test_recall_counts_survive_a_rebuild_of_a_file(home, log):
    store = LongTermStore(home)
    MemoryWriter(store).append("MEMORY.md", "- Plays tennis on Fridays", "## Facts", actor=Actor.EDITOR)
    index = open_index(home)
    hit = search(index, SearchQuery("tennis"))[0]
    index.record_hits([hit.item, hit.item])
    MemoryWriter(store).append("MEMORY.md", "- Another fact", "## Facts", actor=Actor.EDITOR)
    index.mark_dirty(store.path("MEMORY.md"))
    index.refresh()
    candidates = index.match({"tennis": 1.0})
    assert candidates and candidates[0].hits == 2
