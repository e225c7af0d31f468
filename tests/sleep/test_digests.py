"""Digests copy no flagged line, and the extractive month and year keep the important changes."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from companion.memory.records import Record
from companion.sleep.distill import render_record
from companion.sleep.digests import MONTH_CHANGES, extractive_events, importance, key_changes, most_important

TZ = timezone(timedelta(hours=1))


def _records(*texts: str, day: int = 13) -> list[Record]:
    start = datetime(2024, 5, day, 9, tzinfo=TZ)
    return [Record(f"2024-05-{day:02d}#{i + 1}", (start + timedelta(minutes=i)).isoformat(), "user", t) for i, t in enumerate(texts)]


def test_no_secret_or_contact_line_is_copied() -> None:
    records = _records(
        "My new number is +33 6 12 34 56 78, call me tomorrow about the flat in Lyon",
        "the wifi password for home is bluebird, I keep forgetting it since we moved",
        "I decided to take the job in Lyon and we move there in June",
        "Email me at anna@example.org when the contract for my new job arrives",
    )
    chosen = [r.text for r in extractive_events(records, 10)]
    assert chosen == ["I decided to take the job in Lyon and we move there in June"]


def test_month_keeps_life_changes_and_decisions_over_small_dated_events() -> None:
    small = [f"I have a dentist appointment on May {d}." for d in range(14, 30)]
    records = _records(*small, "I moved to York.", "I decided to learn the cello.", "I live in Lyon and I work as a baker")
    lines = key_changes(records)
    assert len(lines) == MONTH_CHANGES
    text = "\n".join(lines)
    assert "Lives in York" in text and "Decided to learn the cello" in text and "Works as a baker" in text
    assert "and I work" not in text  # compound statements were split before they reached the digest
    ids = [int(l.rsplit("#", 1)[1].rstrip(")")) for l in lines]
    assert ids == sorted(ids)  # kept in the order they were said


def test_importance_orders_kinds_of_change() -> None:
    assert importance("- 2024-05-13: Lives in York (2024-05-13#1)") > importance("- 2024-05-13: Decided to learn the cello (2024-05-13#2)")
    assert importance("- 2024-05-13: Decided to learn the cello (x)") > importance("- 2024-05-20: Dentist appointment (x)")
    assert most_important(["- a", "- Decided to go", "- b"], 2) == ["- a", "- Decided to go"]


def test_the_distiller_prompt_never_shows_a_secret() -> None:
    line = render_record(Record("2026-11-30#1", "2026-11-30T10:00:00+00:00", "user", "my PIN: 4821 and mail anna@example.org"))
    assert "4821" not in line and "anna@" not in line and "[secret]" in line and "[email]" in line
