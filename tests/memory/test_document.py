"""Frontmatter: safe YAML only, no aliases, a size cap."""

from __future__ import annotations

import pytest

from companion.errors import FrontmatterError
from companion.memory.document import MAX_FRONTMATTER_CHARS, parse_meta


def test_yaml_aliases_and_huge_frontmatter_are_refused_quickly() -> None:
    bomb = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join(['*' + chr(97 + i)] * 9)}]\n" for i in range(8))
    with pytest.raises(FrontmatterError, match="aliases"):
        parse_meta(bomb, "SOUL.md")
    with pytest.raises(FrontmatterError, match="kB"):
        parse_meta("k: " + "v" * MAX_FRONTMATTER_CHARS, "SOUL.md")
    assert parse_meta("name: x\ntriggers: [a, b]\n", "SOUL.md") == {"name": "x", "triggers": ["a", "b"]}


@pytest.mark.parametrize("yaml_text", [
    "triggers: " + "[" * 3000 + "]" * 3000,  # deep flow nesting, under the size cap
    "triggers:\n" + "".join("  " * i + "- \n" for i in range(1, 60)),
    "a: " + "{b: " * 2000 + "1" + "}" * 2000,
])
def test_finding_deeply_nested_frontmatter_is_a_clear_error_not_a_crash(yaml_text: str) -> None:
    assert len(yaml_text) < MAX_FRONTMATTER_CHARS
    with pytest.raises(FrontmatterError, match="SOUL.md"):
        parse_meta(yaml_text, "SOUL.md")


def test_finding_an_integer_of_thousands_of_digits_is_a_clear_error() -> None:
    with pytest.raises(FrontmatterError, match="SOUL.md.*Open the file"):
        parse_meta("count: " + "9" * 5000, "SOUL.md")


def test_ordinary_nesting_still_reads() -> None:
    meta = parse_meta("triggers:\n  - on: app_start\n    action: greet\n    when: {days: [mon, tue]}\n", "SOUL.md")
    assert meta["triggers"][0]["when"] == {"days": ["mon", "tue"]}
