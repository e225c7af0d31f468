"""Time in questions ("in May 2023", "last week", "上周", "三月三号") and relative dates spelled out in memories."""

from __future__ import annotations

from datetime import date

import pytest

from companion.curate.when import around_day, query_time, spell_out, spoken
from companion.memory.lang import zh_number

WEDNESDAY = date(2024, 5, 15)


@pytest.mark.parametrize(
    ("question", "first", "last"),
    [
        ("What did I do on 3 March?", date(2024, 3, 3), date(2024, 3, 3)),
        ("what happened on March 3rd", date(2024, 3, 3), date(2024, 3, 3)),
        ("What did I cook on 20 May?", date(2023, 5, 20), date(2023, 5, 20)),  # not yet this year: last year's
        ("Where was I in May 2023?", date(2023, 5, 1), date(2023, 5, 31)),
        ("what did we plan in June", date(2023, 6, 1), date(2023, 6, 30)),
        ("Which books did I read in 2022?", date(2022, 1, 1), date(2022, 12, 31)),
        ("What did I do last week?", date(2024, 5, 6), date(2024, 5, 12)),
        ("What did I say yesterday?", date(2024, 5, 14), date(2024, 5, 14)),
        ("what did I eat last Friday", date(2024, 5, 10), date(2024, 5, 10)),
        ("who did I meet last weekend", date(2024, 5, 11), date(2024, 5, 12)),
        ("What did I buy last month?", date(2024, 4, 1), date(2024, 4, 30)),
        ("Notes from 2024-02-29?", date(2024, 2, 29), date(2024, 2, 29)),
        ("我上周做了什么？", date(2024, 5, 6), date(2024, 5, 12)),
        ("三月三号我去哪儿了", date(2024, 3, 3), date(2024, 3, 3)),
        ("3月3日的会议", date(2024, 3, 3), date(2024, 3, 3)),
        ("十二月二十五号吃了什么", date(2023, 12, 25), date(2023, 12, 25)),
        ("我昨天说了什么", date(2024, 5, 14), date(2024, 5, 14)),
        ("去年的旅行", date(2023, 1, 1), date(2023, 12, 31)),
        ("五月份的计划", date(2024, 5, 1), date(2024, 5, 31)),
        ("from 3 March to 9 March", date(2024, 3, 3), date(2024, 3, 9)),  # several: the span over all
    ],
)
def test_questions_name_days_resolved_against_the_day_they_are_asked(question, first, last):
    found = query_time(question, WEDNESDAY)
    assert found is not None and (found.first, found.last) == (first, last)
    assert found.words and all(w in question for w in found.words)


@pytest.mark.parametrize("question", ["What is my sister's name?", "How many cats do I have", "我喜欢什么茶", "May I ask?"])
def test_questions_without_a_time_have_none(question):
    assert query_time(question, WEDNESDAY) is None


def test_the_day_before_an_event_is_found_through_the_event():
    found = query_time("What did I pack the day before my trip to Oslo?", WEDNESDAY)
    assert found is not None and found.anchor == "my trip to Oslo" and found.offset == -1
    assert around_day(date(2024, 4, 2), found.offset) == (date(2024, 4, 1), date(2024, 4, 1))
    zh = query_time("旅行的前一天我做了什么", WEDNESDAY)
    assert zh is not None and zh.anchor == "旅行" and zh.offset == -1
    week = query_time("what happened the week after the wedding", WEDNESDAY)
    assert week is not None and around_day(date(2024, 4, 2), week.offset) == (date(2024, 4, 2), date(2024, 4, 9))


def test_relative_dates_in_a_remembered_turn_are_spelled_out():
    said = date(2023, 8, 14)  # a Monday
    assert spell_out("I went to a parade yesterday!", said) == "I went to a parade yesterday [13 August 2023]!"
    assert spell_out("We met last week and again last Friday.", said) == (
        "We met last week [the week before 14 August 2023] and again last Friday [the Friday before 14 August 2023]."
    )
    assert spell_out("Moved here two years ago, started last month", said) == (
        "Moved here two years ago [2021], started last month [July 2023]"
    )
    assert spell_out("我昨天去了公园", said) == "我昨天 [13 August 2023]去了公园"
    assert spell_out("Nothing relative here, 2023-08-14.", said) == "Nothing relative here, 2023-08-14."


def test_numbers_and_spoken_dates():
    assert [zh_number(t) for t in ("3", "三", "十", "十二", "二十", "三十一", "x")] == [3, 3, 10, 12, 20, 31, None]
    assert spoken(date(2023, 5, 7)) == "7 May 2023"
