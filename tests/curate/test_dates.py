"""Relative dates in a message resolve against the message's own day."""

from __future__ import annotations

from datetime import date

import pytest

from companion.curate.dates import absolutize, find_dates, has_relative_date

MONDAY = date(2024, 5, 13)


@pytest.mark.parametrize(
    "text, expected",
    [
        ("dentist tomorrow", date(2024, 5, 14)),
        ("party the day after tomorrow", date(2024, 5, 15)),
        ("call on Sunday", date(2024, 5, 19)),
        ("trip in 3 days", date(2024, 5, 16)),
        ("exam on May 20th", date(2024, 5, 20)),
        ("exam on 3 June", date(2024, 6, 3)),
        ("due 2024-07-01", date(2024, 7, 1)),
        ("明天去看牙医", date(2024, 5, 14)),
        ("后天开会", date(2024, 5, 15)),
        ("下周三开会", date(2024, 5, 22)),
        ("我5月20日生日", date(2024, 5, 20)),
    ],
)
def test_resolves(text: str, expected: date) -> None:
    assert find_dates(text, MONDAY)[0].when == expected


def test_month_day_in_december_means_next_year() -> None:
    assert find_dates("concert on Jan 3", date(2024, 12, 20))[0].when == date(2025, 1, 3)


def test_absolutize_leaves_no_relative_word() -> None:
    out = absolutize("I have a dentist appointment tomorrow", MONDAY)
    assert out == "I have a dentist appointment on 2024-05-14"
    assert not has_relative_date(out)
    assert has_relative_date("saw her recently")
    assert has_relative_date("昨天很累")
