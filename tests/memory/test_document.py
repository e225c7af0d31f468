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
