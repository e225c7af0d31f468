"""The one entry grammar: list items of any kind, citations, superseded marks, names."""

from __future__ import annotations

from datetime import date

import pytest

from companion.memory import entries as E
from companion.memory.dedupe import find_duplicate_entry, is_duplicate, normalize


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
    assert find_duplicate_entry("Likes tea", "## P\n+ Likes tea\n") == "+ Likes tea"


# -- the Entry type -----------------------------------------------------------------------------------

from datetime import time  # noqa: E402

from hypothesis import given, strategies as st  # noqa: E402

_WORDS = st.text(st.characters(blacklist_categories=("Cs", "Cc", "Zl", "Zp")), min_size=1, max_size=40).map(
    lambda t: " ".join(t.split())).filter(
    lambda t: bool(t) and "~~" not in t and "-->" not in t and E.entry_text("- " + t) == t)
_SOURCE = st.builds(lambda d, n: f"{d.isoformat()}#{n}", st.dates(date(2000, 1, 1), date(2099, 12, 31)), st.integers(1, 999))


@st.composite
def entries(draw: st.DrawFn) -> E.Entry:
    superseded = draw(st.booleans())
    return E.Entry(
        text=draw(_WORDS),
        sources=tuple(dict.fromkeys(draw(st.lists(_SOURCE, max_size=3)))),
        superseded=superseded,
        superseded_on=draw(st.dates(date(2000, 1, 1), date(2099, 12, 31))) if superseded else None,
        bullet="-" if superseded else draw(st.sampled_from(["-", "*", "+", "1.", "12)"])),
        cite=draw(st.sampled_from([E.PAREN, E.COMMENT])),
    )


@given(entries())
def test_an_entry_round_trips_through_its_line(entry: E.Entry) -> None:
    line = entry.line()
    parsed = E.Entry.parse(line)
    expected = entry if entry.sources else E.Entry(entry.text, (), entry.superseded, entry.superseded_on, entry.bullet)
    assert parsed == expected
    assert parsed.line() == line
    assert E.entry_text(line) == entry.text
    assert E.is_superseded(line) == entry.superseded
    assert E.cited_ids(line) == list(entry.sources)


@given(st.text(max_size=80))
def test_any_line_parses_or_is_no_entry(line: str) -> None:
    entry = E.Entry.parse(line)
    assert (entry is None) == (not E.is_entry(line.split("\n", 1)[0]))
    if entry is not None:
        again = E.Entry.parse(entry.line())
        assert again is not None and again.sources == entry.sources and again.superseded == entry.superseded


@given(st.dates(date(2000, 1, 1), date(2099, 12, 31)), st.none() | st.times().map(lambda t: t.replace(second=0, microsecond=0)),
       _WORDS.filter(lambda t: E.Entry("2026-01-01: " + t).what == t and t[:1].upper() + t[1:] == t))
def test_a_timed_entry_round_trips(day: date, at: time | None, what: str) -> None:
    entry = E.Entry.timed(day, at, what, ["2026-11-30#4"])
    parsed = E.Entry.parse(entry.line())
    assert parsed is not None and (parsed.day, parsed.at, parsed.what, parsed.sources) == (day, at, what, ("2026-11-30#4",))


@pytest.mark.parametrize("line, day, at, what", [
    ("- 2026-12-01 09:00: Call the dentist (2026-11-30#4)", date(2026, 12, 1), time(9, 0), "Call the dentist"),
    ("1. 2026-12-01 09:00: Call the dentist", date(2026, 12, 1), time(9, 0), "Call the dentist"),  # numbered bullets too
    ("* 2026-12-01T21:30 看牙医", date(2026, 12, 1), time(21, 30), "看牙医"),
    ("- 2026-12-01: Dentist", date(2026, 12, 1), None, "Dentist"),
    ("- 2026-12-01 25:00: Not a time", date(2026, 12, 1), None, "Not a time"),
    ("- Dentist at 9", None, None, "Dentist at 9"),
])
def test_dated_and_timed_entries(line: str, day: date | None, at: time | None, what: str) -> None:
    entry = E.Entry.parse(line)
    assert entry is not None and (entry.day, entry.at, entry.what) == (day, at, what)


def test_multi_line_blocks_and_sections() -> None:
    body = "intro\n## Profile\n- Likes tea (2026-11-01#3)\n  and green tea\n1. Lives in Paris\n\n```\n- not an entry\n```\n## Notes\nA paragraph\n"
    found = E.blocks(body)
    assert [(b.section, b.text, b.start) for b in found] == [
        (None, "intro", 0), ("Profile", "- Likes tea (2026-11-01#3)\n  and green tea", 2), ("Profile", "1. Lives in Paris", 4),
        ("Profile", "```\n- not an entry\n```", 6), ("Notes", "A paragraph", 10)]
    first = found[1].entry
    assert first is not None and first.more == ("  and green tea",) and first.render() == found[1].text


def test_citations_other_apps_write_are_stripped() -> None:
    assert E.entry_text("- Moved to Berlin (2025-03-02)") == "Moved to Berlin"
    entry = E.Entry.parse("- Moved to Berlin <!-- src: 2025-03-02 -->")
    assert entry is not None and entry.text == "Moved to Berlin" and entry.sources == ("2025-03-02",)
    assert E.Entry.parse("- Note <!-- private remark -->") == E.Entry("Note")


def test_unicode_forms_compare_equal() -> None:
    assert normalize("- Mu\u0308ller") == normalize("Müller") == normalize("MÜLLER")
    assert normalize("Ｌｉｋｅｓ　ｔｅａ") == "likes tea"
