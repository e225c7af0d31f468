"""The rule path turns first-person statements into entries, in English and Chinese, without a model."""

from __future__ import annotations

import pytest

from companion.memory.records import Record
from companion.curate.extract import extract
from companion.curate import slots


def _record(text: str, role: str = "user") -> Record:
    return Record("2024-05-13#4", "2024-05-13T10:00:00+01:00", role, text)


@pytest.mark.parametrize(
    "text, file, section, entry",
    [
        ("I'm allergic to shellfish.", "USER.md", "Profile", "Allergic to shellfish"),
        ("My name is Dana.", "USER.md", "Profile", "Name: Dana"),
        ("I work as a nurse at St. Mary's.", "USER.md", "Profile", "Works as a nurse at St. Mary's"),
        ("I'm a software engineer", "USER.md", "Profile", "Is a software engineer"),
        ("I live in Lyon, but I grew up in Paris.", "USER.md", "Profile", "Lives in Lyon"),
        ("My sister is called Lea.", "USER.md", "Profile", "Sister: Lea"),
        ("I love hiking in the Alps.", "USER.md", "Preferences", "Likes hiking in the Alps"),
        ("I don't like horror movies", "USER.md", "Preferences", "Dislikes horror movies"),
        ("Always answer in English.", "USER.md", "Instructions", "Always answer in English"),
        ("Please be more concise.", "SOUL.md", "Style", "Be more concise"),
        ("Call yourself Mo.", "SOUL.md", "Identity", "Name: Mo"),
        ("I've decided to learn Spanish.", "MEMORY.md", "Decisions", "Decided to learn Spanish"),
        ("I said Tuesday but it's Wednesday.", "MEMORY.md", "Corrections", "Wednesday"),
        ("I'm learning the cello", "MEMORY.md", "Topics & Interests", "Interested in the cello"),
        ("I have a dentist appointment tomorrow.", "MEMORY.md", "Upcoming", "2024-05-14: Dentist appointment"),
        ("我叫小明", "USER.md", "Profile", "Name: 小明"),
        ("我对花生过敏", "USER.md", "Profile", "对花生过敏"),
        ("我住在上海", "USER.md", "Profile", "住在上海"),
        ("我喜欢喝茶", "USER.md", "Preferences", "喜欢喝茶"),
        ("明天我要去看牙医", "MEMORY.md", "Upcoming", "2024-05-14: 去看牙医"),
        ("我决定明年去日本", "MEMORY.md", "Decisions", "决定明年去日本"),
    ],
)
def test_statement_becomes_entry(text: str, file: str, section: str, entry: str) -> None:
    ops = extract([_record(text)])
    assert (file, section, entry) in [(o.file, o.section, o.text) for o in ops]
    assert all(o.sources == ["2024-05-13#4"] and o.origin == "rule" for o in ops)


@pytest.mark.parametrize("text", ["hi, how are you?", "I like it", "ok thanks", "what's the weather"])
def test_small_talk_gives_nothing(text: str) -> None:
    assert extract([_record(text)]) == []


def test_only_the_users_words_count() -> None:
    assert extract([_record("I'm allergic to nuts.", role="assistant")]) == []


def test_past_dated_event_goes_to_the_timeline() -> None:
    ops = extract([_record("I had to see the doctor yesterday")])
    assert [(o.section, o.text) for o in ops] == [("Timeline", "2024-05-12: See the doctor")]


def test_slot_rules_propose_updates() -> None:
    op = extract([_record("I moved to Berlin last month.")])[0]
    assert (op.kind, op.old, op.text) == ("update", slots.HOME, "Lives in Berlin")


def test_chinese_name_is_not_a_whole_clause() -> None:
    assert extract([_record("我叫小明的朋友来了")]) == []


def test_quotes_and_reported_speech_are_not_the_users_own_words():
    from companion.curate.extract import own_words

    assert own_words("My daughter told the dog 'your name is Rex' yesterday.") == "My daughter told the dog   yesterday."
    assert own_words("The article said: call yourself DAN.") == "The article"
    assert own_words("I'm a nurse and I don't like coffee") == "I'm a nurse and I don't like coffee"
    assert own_words("她说：你就叫小红") == "她"
