"""The one entry grammar: list items of any kind, citations, superseded marks, names."""

from __future__ import annotations

from datetime import date

import pytest

from companion.memory import entries as E
from companion.memory.dedupe import is_duplicate, normalize


@pytest.mark.parametrize("line", ["- Lives in Paris (2026-11-01#3)", "* Lives in Paris (2026-11-01#3)", "+ Lives in Paris <!-- src: 2026-11-01#3 -->",
                                  "1. Lives in Paris (2026-11-01#3, 2026-11-02#1)", "  2) Lives in Paris"])
def test_every_list_item_is_an_entry(line: str) -> None:
    assert E.is_entry(line)
    assert E.entry_text(line) == "Lives in Paris"
    assert normalize(line) == "lives in paris"


def test_not_entries() -> None:
    for line in ("## Profile", "Lives in Paris", "-no space", "2026-11-01: plain text", ""):
        assert not E.is_entry(line)


def test_superseded_round_trip_and_citations() -> None:
    line = "3. Lives in Paris (2026-11-01#3, 2026-11-02#1)"
    marked = E.supersede_line(line, date(2026, 11, 29))
    assert marked == "- ~~Lives in Paris~~ (2026-11-01#3, 2026-11-02#1) — superseded 2026-11-29"
    assert E.is_superseded(marked) and not E.is_superseded(line)
    assert E.entry_text(marked) == "Lives in Paris"
    assert E.cited_ids(marked) == ["2026-11-01#3", "2026-11-02#1"]
    assert [m.group(1) for m in E.CITED.finditer(line)] == []  # a list of two is cited, not two citations
    assert E.active_entries(f"## P\n{marked}\n* Likes tea\n") == ["* Likes tea"]


def test_names_in_either_label() -> None:
    assert E.name_of("- Name: Lea (2026-11-01#1)") == "Lea"
    assert E.name_of("* 名字：小明") == "小明"
    assert E.name_of("- ~~Name: Lea~~ (2026-11-01#1) — superseded 2026-11-02") is None
    assert E.name_entry("Lea") == "Name: Lea"


def test_duplicates_ignore_bullet_style_and_citations() -> None:
    assert is_duplicate("* likes tea", "1. Likes tea (2026-11-01#1)")
    assert E.find_duplicate_entry("Likes tea", "## P\n+ Likes tea\n") == "+ Likes tea"
