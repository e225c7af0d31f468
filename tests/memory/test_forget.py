"""Forget everywhere: day logs (tombstone, atomic rewrite), digests, earlier versions, backups, reports, the index."""

from __future__ import annotations

import json

from companion.curate.gate import forget_matcher
from companion.curate.requests import MemoryRequests, forget_everywhere
from companion.memory.daylog import DayLog, read_file
from companion.memory.forget import FORGOTTEN, scrub_text
from companion.memory.longterm import LongTermStore
from companion.memory.search import SearchIndex, SearchQuery, search
from companion.paths import Home
from companion.portability.backup import backup_memory
from companion.curate.gate import MemoryWriter
from companion.memory.history import Actor


def test_only_the_matching_sentence_goes() -> None:
    matches = forget_matcher("my old address")
    assert matches is not None
    text = "Hi! My old address was Elm Street 5. Anyway, how are you?"
    assert scrub_text(text, matches) == f"Hi! {FORGOTTEN} Anyway, how are you?"
    assert scrub_text("Nothing to see", matches) == "Nothing to see"


def test_forget_everywhere_reaches_every_copy(home: Home, clock) -> None:
    log = DayLog(home.days, clock)
    log.append("user", "I'm allergic to shellfish. Also I like jazz.")
    log.append("assistant", "Noted: shellfish allergy.")
    log.append("user", "What's the weather?")
    store = LongTermStore(home)
    MemoryWriter(store).append("USER.md", "- Allergic to shellfish (2026-11-29#1)", "## Profile", actor=Actor.EDITOR)
    MemoryWriter(store).append("USER.md", "- Likes jazz (2026-11-29#1)", "## Profile", actor=Actor.EDITOR)  # a version with the entry is kept
    digest = home.digests / "day" / "2026-11-29.md"
    digest.parent.mkdir(parents=True, exist_ok=True)
    digest.write_text("# 2026-11-29\n- The user is allergic to shellfish\n- Talked about jazz\n", encoding="utf-8")
    backup = backup_memory(home, "test")
    reports = home.state / "sleep_reports"
    reports.mkdir(parents=True)
    (reports / "r1.json").write_text(json.dumps({"outcomes": [{"text": "Allergic to shellfish"}]}), encoding="utf-8")
    index = SearchIndex(home)
    index.sync()
    assert search(index, SearchQuery("shellfish", k=5))
    assert index.near_terms("shelfish") == ["shellfish"]

    MemoryRequests(store).forget("shellfish")
    counted = forget_everywhere(store, "shellfish", log, index, dry_run=True)
    assert counted is not None and counted.records == 2 and counted.days == {"2026-11-29"}
    assert "shellfish" in read_file(log.path_for(clock().date())).records[0].text  # a dry run changes nothing
    erased = forget_everywhere(store, "shellfish", log, index)
    assert erased is not None and erased.records == 2 and len(erased.files) >= 4

    leftovers = [p for p in home.root.rglob("*") if p.is_file() and p.suffix in (".jsonl", ".md", ".json")
                 and "shellfish" in p.read_text(encoding="utf-8", errors="replace").lower()]
    assert leftovers == []
    records = read_file(log.path_for(clock().date())).records
    assert records[0].text == f"{FORGOTTEN} Also I like jazz." and records[0].extra["forgotten"] is True
    assert records[2].text == "What's the weather?" and "forgotten" not in records[2].extra
    assert records[-1].role == "event" and records[-1].extra.get("tombstone") and "shellfish" not in records[-1].text
    assert [r.id for r in records[:3]] == ["2026-11-29#1", "2026-11-29#2", "2026-11-29#3"]  # ids and order kept
    assert not search(index, SearchQuery("shellfish", k=5))
    # nor counted, nor offered as the close spelling of a typo
    assert index.term_counts(["shellfish", "jazz"]) == {"shellfish": 0, "jazz": 3}
    assert index.near_terms("shelfish") == [] and not search(index, SearchQuery("shelfish", k=5))
    assert "Talked about jazz" in digest.read_text(encoding="utf-8")
    assert (backup / "USER.md").exists()


def test_vague_requests_erase_nothing(home: Home, clock) -> None:
    log = DayLog(home.days, clock)
    log.append("user", "forget it")
    assert forget_everywhere(LongTermStore(home), "it", log) is None
    assert read_file(log.path_for(clock().date())).records[0].text == "forget it"
