"""Section operations on Markdown bodies."""

from __future__ import annotations

from companion.memory import sections

BODY = """# Memory

## Facts
- a
- b

## Timeline
### 2026
- x
```
## not a heading
```

## Upcoming
"""


def test_find_section_ends_at_same_or_higher_level():
    start, first, end = sections.find_section(BODY, "## Timeline")
    lines = BODY.splitlines()
    assert lines[start] == "## Timeline"
    assert lines[end] == "## Upcoming"
    assert "### 2026" in lines[first:end]


def test_headings_inside_code_fences_are_ignored():
    assert [h.title for h in sections.headings(BODY)] == ["Memory", "Facts", "Timeline", "2026", "Upcoming"]


def test_replace_section_keeps_everything_else():
    out = sections.replace_section(BODY, "## facts", "- c")
    assert out == BODY.replace("- a\n- b\n\n", "- c\n\n")


def test_append_to_section_goes_before_trailing_blank_lines():
    out = sections.append_to_section(BODY, "Facts", "- c")
    assert "- a\n- b\n- c\n\n## Timeline" in out


def test_append_to_last_section_without_final_newline():
    out = sections.append_to_section("## A\n- x", "## A", "- y")
    assert out == "## A\n- x\n- y\n"


def test_missing_section_returns_none_and_add_section_creates_it():
    assert sections.replace_section(BODY, "## Nope", "x") is None
    assert sections.append_to_section(BODY, "## Nope", "x") is None
    out = sections.add_section("# T\n", "## New", "- y")
    assert out == "# T\n\n## New\n- y\n"


def test_append_text_adds_a_line():
    assert sections.append_text("a", "b") == "a\nb\n"
    assert sections.append_text("", "b") == "b\n"
