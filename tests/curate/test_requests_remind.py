"""'Remind me ...' / '提醒我……' by rule: the day and time resolved against the message's own time."""

from __future__ import annotations

from datetime import date, datetime, time, timedelta, timezone

import pytest

from companion.curate.dates import find_time, resolve_moment
from companion.memory.lang import zh_number
from companion.curate.requests import ReminderRequest, memory_request, reminder_request

TZ = timezone(timedelta(hours=8))
MONDAY_2PM = datetime(2026, 11, 30, 14, 0, tzinfo=TZ)  # a Monday


@pytest.mark.parametrize("message, day, at, text", [
    ("Remind me tomorrow at 8 to call my mother.", date(2026, 12, 1), time(8, 0), "call my mother"),
    ("remind me to call my mother tomorrow at 8am", date(2026, 12, 1), time(8, 0), "call my mother"),
    ("Please remind me at 9pm to take my pills", date(2026, 11, 30), time(21, 0), "take my pills"),
    ("remind me at 8 to water the plants", date(2026, 11, 30), time(20, 0), "water the plants"),  # 08:00 has passed
    ("remind me at 11:30 to stretch", date(2026, 12, 1), time(11, 30), "stretch"),
    ("Can you remind me in 20 minutes to check the oven?", date(2026, 11, 30), time(14, 20), "check the oven"),
    ("remind me on Friday about the dentist", date(2026, 12, 4), None, "the dentist"),
    ("remind me next Monday at 10:15 to renew my passport", date(2026, 12, 7), time(10, 15), "renew my passport"),
    ("remind me tonight at 7 to call Lea", date(2026, 11, 30), time(19, 0), "call Lea"),
    ("remind me at noon tomorrow that lunch is with Sam", date(2026, 12, 1), time(12, 0), "lunch is with Sam"),
    ("提醒我明天八点给妈妈打电话", date(2026, 12, 1), time(8, 0), "给妈妈打电话"),
    ("请提醒我下午三点半开会", date(2026, 11, 30), time(15, 30), "开会"),
    ("提醒我明晚七点看球赛", date(2026, 12, 1), time(19, 0), "看球赛"),
    ("麻烦你提醒我周五去取快递", date(2026, 12, 4), None, "取快递"),
    ("提醒我12月3日上午十点十五分交报告", date(2026, 12, 3), time(10, 15), "交报告"),
    ("提醒我半小时后关火", date(2026, 11, 30), time(14, 30), "关火"),
])
def test_reminders_are_understood_in_both_languages(message: str, day: date, at: time | None, text: str) -> None:
    assert reminder_request(message, MONDAY_2PM) == ReminderRequest(day, at, text)


@pytest.mark.parametrize("message", ["remind me to buy milk", "提醒我买牛奶", "Can you remind me what we said?",
                                     "I reminded my sister tomorrow", "remember that I like tea"])
def test_without_a_day_or_time_or_a_request_it_is_no_reminder(message: str) -> None:
    assert reminder_request(message, MONDAY_2PM) is None


def test_the_entry_carries_an_absolute_date_and_time() -> None:
    request = reminder_request("Remind me tomorrow at 8 to call my mother", MONDAY_2PM)
    assert request is not None and request.entry() == "2026-12-01 08:00: Call my mother"
    dated = reminder_request("remind me on Friday about the dentist", MONDAY_2PM)
    assert dated is not None and dated.entry() == "2026-12-04: The dentist"


def test_remember_requests_are_untouched() -> None:
    request = memory_request("remember that I like green tea")
    assert request is not None and request.kind == "remember"
    assert memory_request("remind me tomorrow at 8 to call mum") is None


@pytest.mark.parametrize("text, hour, minute", [("at 8:45pm", 20, 45), ("8 a.m.", 8, 0), ("19:05", 19, 5),
                                                ("晚上十点", 22, 0), ("中午一点", 13, 0), ("凌晨两点", 2, 0),
                                                ("七点三刻", 7, 45), ("at midnight", 0, 0)])
def test_times_of_day(text: str, hour: int, minute: int) -> None:
    found = find_time(text)
    assert found is not None and (found.hour, found.minute) == (hour, minute)


@pytest.mark.parametrize("text", ["I am 8 years old", "at 8%", "version 3.11", "it costs 12.50"])
def test_numbers_that_are_not_times(text: str) -> None:
    assert find_time(text) is None


def test_a_time_already_past_today_means_tomorrow() -> None:
    late = MONDAY_2PM.replace(hour=22)
    resolved = resolve_moment("at 21:00", late)
    assert resolved is not None and resolved[0] == date(2026, 12, 1)


@pytest.mark.parametrize("text, value", [("八", 8), ("十", 10), ("十二", 12), ("二十三", 23), ("四十五", 45), ("08", 8), ("十十", None)])
def test_chinese_numbers(text: str, value: int | None) -> None:
    assert zh_number(text) == value


# -- the time is kept, in any common form, and a reminder is never early --------------------------------

from companion.curate.extract import extract  # noqa: E402
from companion.memory.entries import Entry  # noqa: E402
from companion.memory.records import Record  # noqa: E402
from companion.curate.requests import timed_reminders  # noqa: E402


def _due_at(entry_text: str) -> datetime | None:
    """When the reminders reader sees the Upcoming entry `entry_text` due."""
    found = timed_reminders(f"## Upcoming\n{Entry(entry_text, ('2026-11-30#3',)).line()}\n")
    return found[0].when if found else None


@pytest.mark.parametrize("message, due", [
    ("remind me at 9am to call Lea", datetime(2026, 12, 1, 9, 0)),
    ("remind me at 9:30 to call Lea", datetime(2026, 12, 1, 9, 30)),
    ("remind me at 9 o'clock tomorrow to call Lea", datetime(2026, 12, 1, 9, 0)),
    ("Remind me: Dentist on December 10 at 9am", datetime(2026, 12, 10, 9, 0)),
    ("提醒我明天早上九点吃药", datetime(2026, 12, 1, 9, 0)),
    ("提醒我下午三点半开会", datetime(2026, 11, 30, 15, 30)),
])
def test_a_reminder_keeps_its_time_in_every_common_form(message: str, due: datetime) -> None:
    request = reminder_request(message, MONDAY_2PM)
    assert request is not None and _due_at(request.entry()) == due


@pytest.mark.parametrize("sentence, due", [
    ("I have the dentist on December 10 at 9am.", datetime(2026, 12, 10, 9, 0)),
    ("I have a meeting tomorrow at 9:30.", datetime(2026, 12, 1, 9, 30)),
    ("我12月10日早上九点要看牙医", datetime(2026, 12, 10, 9, 0)),
    ("我明天下午三点半要开会", datetime(2026, 12, 1, 15, 30)),
])
def test_a_plan_said_in_passing_keeps_its_time(sentence: str, due: datetime) -> None:
    record = Record("2026-11-30#3", MONDAY_2PM.isoformat(), "user", sentence)
    ops = [op for op in extract([record]) if op.section == "Upcoming"]
    assert len(ops) == 1 and _due_at(ops[0].text) == due
    assert Entry(ops[0].text).what and ":" not in Entry(ops[0].text).what  # the time left the words


def test_a_plan_without_a_time_stays_a_dated_entry() -> None:
    record = Record("2026-11-30#3", MONDAY_2PM.isoformat(), "user", "I have a dentist appointment tomorrow.")
    (op,) = extract([record])
    assert op.text == "2026-12-01: Dentist appointment" and _due_at(op.text) is None


@pytest.mark.parametrize("second", [0, 1, 30, 59])
def test_in_n_minutes_is_never_early(second: int) -> None:
    said = MONDAY_2PM.replace(second=second, microsecond=250_000 if second else 0)
    request = reminder_request("remind me in 1 minute to check the oven", said)
    assert request is not None and request.at is not None
    due = datetime.combine(request.day, request.at)
    asked = said.replace(tzinfo=None) + timedelta(minutes=1)
    assert asked <= due < asked + timedelta(minutes=1)
