"""The index's table of terms: item counts kept exact as items come and go, typos found from it, and
BM25 scored outside FTS5 for all-terms queries giving FTS5's own scores."""

from __future__ import annotations

import sqlite3
import unicodedata
from datetime import date, datetime, timedelta, timezone

import pytest

from companion.memory.daylog import DayLog
from companion.memory.longterm import LongTermStore
from companion.memory.search import SearchIndex, bm25, open_index
from companion.memory.search.tokenize import index_terms
from companion.curate.gate import MemoryWriter
from companion.memory.history import Actor

TZ = timezone(timedelta(hours=1))
WORDS = "coffee garden sister cello lisbon piano train plan recipe soup walk dog".split()


class Clock:
    def __init__(self, day: date) -> None:
        self.now = datetime(day.year, day.month, day.day, 9, 0, tzinfo=TZ)

    def __call__(self) -> datetime:
        return self.now


def fts5_counts(index: SearchIndex) -> dict[str, int]:
    """FTS5's own count of items per term: the oracle the table of terms must agree with."""
    db = sqlite3.connect(index.path)
    try:
        db.execute("CREATE VIRTUAL TABLE temp.oracle USING fts5vocab(main, fts, 'row')")
        return {term: int(doc) for term, doc in db.execute("SELECT term, doc FROM temp.oracle")}
    finally:
        db.close()


def table_counts(index: SearchIndex) -> dict[str, int]:
    db = sqlite3.connect(index.path)
    try:
        return {term: int(n) for term, n in db.execute("SELECT term, items FROM terms")}
    finally:
        db.close()


@pytest.fixture
def log(home):
    clock = Clock(date(2024, 3, 1))
    daylog = DayLog(home.days, clock)
    for n in range(60):
        words = [WORDS[(n * 7 + i * 3) % len(WORDS)] for i in range(2 + n % 5)]
        daylog.append("user" if n % 2 else "assistant", " ".join(words) + (" 咖啡很好喝" if n % 9 == 0 else ""))
        if n % 20 == 19:
            clock.now += timedelta(days=1)
    daylog.clock = clock  # type: ignore[attr-defined]
    return daylog


def test_term_counts_match_fts5_through_appends_deletions_edits_and_forgetting(home, log):
    index = open_index(home)
    assert table_counts(index) == fts5_counts(index)
    assert index.term_counts(["cello", "unheard"]) == {"cello": fts5_counts(index)["cello"], "unheard": 0}

    cello = log.append("user", "a cello concert with a violinist")
    index.refresh()
    assert index.term_counts(["violinist"]) == {"violinist": 1}
    log.append("event", "Deleted a message.", deletes=cello.id)  # the user takes a message back
    index.refresh()
    assert table_counts(index) == fts5_counts(index)
    assert index.term_counts(["violinist"]) == {"violinist": 0}

    store = LongTermStore(home)
    writer = MemoryWriter(store)
    writer.append("MEMORY.md", "- Plays the bassoon on Fridays", "## Facts", actor=Actor.EDITOR)
    index.mark_dirty(store.path("MEMORY.md"))
    index.refresh()
    assert index.term_counts(["bassoon"]) == {"bassoon": 1}
    writer.edit("MEMORY.md", "bassoon", "oboe", actor=Actor.EDITOR)  # the file is indexed again whole
    index.mark_dirty(store.path("MEMORY.md"))
    index.refresh()
    assert index.term_counts(["bassoon", "oboe"]) == {"bassoon": 0, "oboe": 1}
    assert table_counts(index) == fts5_counts(index)

    for path in sorted(home.days.rglob("*.jsonl"))[:1]:  # a day log gone from the folder
        path.unlink()
    index.sync()
    assert table_counts(index) == fts5_counts(index)
    index.rebuild()  # what forgetting everywhere does
    assert table_counts(index) == fts5_counts(index)


def test_typos_come_from_the_table_and_a_deleted_word_is_no_longer_offered(home, log):
    index = open_index(home)
    record = log.append("user", "my grandmother's harpsichord needs tuning")
    index.refresh()
    assert index.near_terms("harpsicord") == ["harpsichord"]
    assert index.near_terms("lisbno") == ["lisbon"]
    log.append("event", "Deleted a message.", deletes=record.id)
    index.refresh()
    assert index.near_terms("harpsicord") == []


def _candidates(index: SearchIndex, terms: list[str]) -> list[tuple[str, float]]:
    found = index.match(dict.fromkeys(terms, 1.0), require_all=True, limit=40)
    return sorted((c.item.locator, round(c.relevance, 9)) for c in found)


@pytest.mark.parametrize("terms", [["cello", "coffee"], ["dog", "sister", "piano"], ["咖啡", "coffee"], ["walk", "unheard"]])
def test_all_terms_scored_outside_fts5_get_fts5s_scores(home, log, monkeypatch, terms):
    index = open_index(home)
    scored: list[int] = []
    scores = bm25.scores
    monkeypatch.setattr(bm25, "scores", lambda rows, *a: scored.append(len(rows)) or scores(rows, *a))
    monkeypatch.setattr(bm25, "most_rows", lambda counts: 10_000)
    here = _candidates(index, terms)
    monkeypatch.setattr(bm25, "most_rows", lambda counts: 0)
    assert here == _candidates(index, terms)
    if terms[-1] == "unheard":
        assert here == [] and scored == []  # a word in no item: FTS5 answers at once
    else:
        assert here and scored == [len(here)]


def test_all_terms_matching_more_rows_than_worth_scoring_are_left_to_fts5(home, log, monkeypatch):
    index = open_index(home)
    scored: list[int] = []
    monkeypatch.setattr(bm25, "scores", lambda rows, *a: scored.append(len(rows)))
    monkeypatch.setattr(bm25, "most_rows", lambda counts: 3)
    assert len(_candidates(index, ["cello", "coffee"])) == 15 and scored == []


def test_the_averages_record_reads_as_rows_and_tokens(home, log):
    index = open_index(home)
    db = sqlite3.connect(index.path)
    try:
        blob = db.execute("SELECT block FROM fts_data WHERE id=?", (bm25.AVERAGES_ROWID,)).fetchone()[0]
        texts = [t for (t,) in db.execute("SELECT terms FROM fts")]
    finally:
        db.close()
    assert bm25.averages(blob) == (len(texts), sum(len(t.split()) for t in texts))
    assert bm25.averages(b"") is None and bm25.averages(b"\x85") is None


def test_stored_terms_read_as_fts5_reads_them():
    # FTS5 sees the stored terms one for one (a row's length in BM25 is its number of stored terms), only
    # with accents taken off; rows where that matters are left to FTS5 (see the next test)
    text = "Zoë's café: 18岁生日, don't re-do it — naïve Ærø ﬁne straße x²"
    db = sqlite3.connect(":memory:")
    db.execute("CREATE VIRTUAL TABLE f USING fts5(terms, tokenize='unicode61 remove_diacritics 2')")
    db.execute("CREATE VIRTUAL TABLE v USING fts5vocab(f, 'instance')")
    stored = " ".join(index_terms(text))
    db.execute("INSERT INTO f VALUES(?)", (stored,))
    unaccented = ["".join(c for c in unicodedata.normalize("NFD", t) if not unicodedata.combining(c)) for t in stored.split()]
    assert [t for (t,) in db.execute("SELECT term FROM v ORDER BY offset")] == unaccented


def test_rows_fts5_reads_differently_are_scored_by_fts5(home, monkeypatch):
    log = DayLog(home.days, Clock(date(2024, 3, 1)))
    for text in ("a café noir at noon", "a cafe noir again", "noir cafe and more cafe", "just noir"):
        log.append("user", text)
    index = open_index(home)
    scored: list[int] = []
    scores = bm25.scores
    monkeypatch.setattr(bm25, "scores", lambda rows, *a: scored.append(len(rows)) or scores(rows, *a))
    monkeypatch.setattr(bm25, "most_rows", lambda counts: 10_000)
    here = _candidates(index, ["cafe", "noir"])
    monkeypatch.setattr(bm25, "most_rows", lambda counts: 0)
    assert here == _candidates(index, ["cafe", "noir"])
    assert len(here) == 3 and scored == [3]  # FTS5 also matched the accented café: it scored them all
