"""SKILL.md rendering: Agent Skills name/description limits, metadata, body size."""

from __future__ import annotations

from datetime import date, datetime, timezone

import pytest
from skills_ref.validator import validate_metadata
from skills_ref.parser import parse_frontmatter

from companion.errors import PortabilityError
from companion.portability.skill_doc import (
    MemorySummary,
    check_description,
    check_name,
    count_entries,
    describe,
    render_front,
    render_skill_md,
)

STAMP = datetime(2026, 11, 30, tzinfo=timezone.utc)


@pytest.mark.parametrize("name", ["companion-memory", "a", "x" * 64, "mem-2026"])
def test_valid_names(name: str) -> None:
    assert check_name(name) == name


@pytest.mark.parametrize("name", ["", "x" * 65, "Companion", "-mem", "mem-", "a--b", "mem_ory", "记忆"])
def test_invalid_names(name: str) -> None:
    with pytest.raises(PortabilityError):
        check_name(name)


def test_description_limit() -> None:
    assert check_description("x" * 1024) == "x" * 1024
    with pytest.raises(PortabilityError, match="1025"):
        check_description("x" * 1025)
    with pytest.raises(PortabilityError):
        check_description("   ")


def test_description_of_a_large_memory_stays_within_limit() -> None:
    summary = MemorySummary(
        days=[date(2020, 1, 1), date(2026, 11, 29)] * 5000,
        digests={"day": ["x"] * 99999, "week": ["w"] * 999},
    )
    assert len(describe(summary)) <= 1024


def test_quotes_and_colons_survive_strict_yaml() -> None:
    front = render_front("companion-memory", 'Holds "quoted": text\\ and 中文', {"app_version": "1.0: beta"})
    meta, _ = parse_frontmatter(front)
    assert meta["description"] == 'Holds "quoted": text\\ and 中文'
    assert meta["metadata"]["app_version"] == "1.0: beta"


def test_rendered_skill_passes_the_reference_validator() -> None:
    summary = MemorySummary(entries={"USER.md": 3}, days=[date(2026, 11, 28)], records=4, redacted=True)
    meta, body = parse_frontmatter(render_skill_md(summary, STAMP, "9.9.9"))
    assert validate_metadata(meta) == []
    assert meta["metadata"]["app_version"] == "9.9.9"
    assert "[secret]" in body


def test_count_entries() -> None:
    assert count_entries("# T\n\n## A\n- one\n* two\n1. three\ntext\n-\n  - nested\n") == 4
