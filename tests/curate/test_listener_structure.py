"""The listener hears by structure and attributes to the right person; one slot per fact in both
languages; pasted or quoted material is no source of facts; "Never ..." speaks to the companion only
when it is an instruction."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from companion.curate.apply import Context
from companion.curate.extract import extract
from companion.curate.gate import MemoryWriter
from companion.memory import entries as E
from companion.memory.history import Actor
from companion.memory.longterm import LongTermStore
from companion.memory.records import Record
from companion.paths import Home


def _texts(text: str, file: str | None = None) -> list[str]:
    ops = extract([Record("2026-11-30#1", "2026-11-30T10:00:00+00:00", "user", text)])
    return [op.text for op in ops if file is None or op.file == file]


@pytest.fixture
def store(home: Home) -> LongTermStore:
    return LongTermStore(home)


@pytest.mark.parametrize(("said", "heard"), [
    ("I'm Ana, nice to meet you!", "Name: Ana"),
    ("Call me Jo, everyone does.", "Name: Jo"),
    ("Marco here, back again with a question.", "Name: Marco"),
    ("I teach maths at a sixth-form college.", "Teaches maths at a sixth-form college"),
    ("I started as a lab technician in May.", "Works as a lab technician"),
    ("I'm a nurse at St Mary's.", "Is a nurse at St Mary's"),
    ("We're in Leeds now.", "Lives in Leeds"),
    ("Just moved to Leeds for work.", "Lives in Leeds"),
    ("Home is Leeds these days.", "Lives in Leeds"),
    ("My dog Biscuit and I walk along the canal every morning.", "Walks along the canal every morning"),
    ("I sing in a choir on Monday evenings.", "Sings in a choir on Monday evenings"),
    ("我周末爱去钓鱼。", "周末爱去钓鱼"),
    ("我平时喜欢下围棋。", "喜欢下围棋"),
    ("我属马。", "属马"),
    ("我是A型血。", "是A型血"),
    ("我养了两只猫。", "养了两只猫"),
    ("我养了一只狗，叫旺财。", "狗叫旺财"),
])
def test_self_disclosures_are_heard_by_structure(said: str, heard: str) -> None:
    assert any(text.startswith(heard) or text.endswith(heard) for text in _texts(said)), _texts(said)


@pytest.mark.parametrize("said", [
    "我爸爸退休了，住在西安。",  # the father's home, not the user's
    "My brother lives in Oslo and works as a dentist.",
    "I'm so tired today.",
    "I have a meeting tomorrow at ten.",
    "I think I need a holiday.",
    "I'm in Paris this week for work.",
    "Never been to Japan, sadly.",  # no instruction to the companion
    "我今天好累。",
    "我想吃火锅。",
    "Translate into French: I live in Madrid and I'm a doctor.",
    "this tweet >> I'm vegan and I run marathons",
    "Can you fix this?\n```\n# I live in Boston\nprint('I am a doctor')\n```",
    "Here's a copy of the email below:\nHi team, I'm allergic to gluten. Best, Jen",
    "> I'm a pilot and I love flying\nIs this a good opening line?",
    "帮我翻译成英文：我住在北京，是一名工程师。",
    "这条微博>> 我是素食者，每天跑十公里",
])
def test_what_is_not_the_users_own_fact_is_not_heard(said: str) -> None:
    assert _texts(said, "USER.md") == []  # (a dated plan may still go to Upcoming)


def test_never_speaking_to_the_companion_is_an_instruction() -> None:
    ops = extract([Record("2026-11-30#1", "2026-11-30T10:00:00+00:00", "user", "Never use emoji in your answers.")])
    assert [(op.section, op.text) for op in ops] == [("Instructions", "Never use emoji in your answers")]


def test_entries_are_whole_words_in_the_third_person() -> None:
    texts = _texts("I live in Llanfairpwllgwyngyll in the north of the island with my girlfriend Lea and our two dogs Biscuit and Pepper.")
    assert texts and all(len(t) <= 100 for t in texts)
    assert texts[0].startswith("Lives in Llanfairpwllgwyngyll") and " my " not in f" {texts[0]} "
    assert not texts[0].endswith(("Pep", "Bis"))


def _store_with(store: LongTermStore, entry: str) -> None:
    MemoryWriter(store).append("USER.md", E.format_entry(entry, ["2026-11-01#1"]), "## Profile", actor=Actor.EDITOR)


def _night(store: LongTermStore, said: str) -> list[str]:
    record = Record("2026-11-30#1", "2026-11-30T10:00:00+00:00", "user", said)
    ops = extract([record])
    ctx = Context({record.id: record}, datetime(2026, 11, 30, tzinfo=timezone.utc).date(), actor=Actor.SLEEP)
    MemoryWriter(store).apply_ops("USER.md", [op for op in ops if op.file == "USER.md"], ctx)
    return [E.entry_text(l) for l in E.active_entries(store.read("USER.md").body)]


@pytest.mark.parametrize(("old", "said", "new"), [
    ("Lives in Leeds", "我搬到杭州了。", "住在杭州"),
    ("住在上海", "I moved to York last month.", "Lives in York"),
    ("Works as an accountant", "我现在是自由职业者了。", "是自由职业者"),
    ("是学生", "I'm a teacher now.", "Is a teacher"),
    ("Name: Maria", "我叫小林。", "Name: 小林"),
])
def test_a_change_in_either_language_supersedes_the_other(store: LongTermStore, old: str, said: str, new: str) -> None:
    _store_with(store, old)
    active = _night(store, said)
    assert new in active and old not in active
    assert f"~~{old}~~" in store.read("USER.md").body  # kept, marked superseded


@pytest.mark.parametrize(("old", "said"), [
    ("Lives in Leeds", "Leeds is over, we're somewhere by the sea now."),
    ("Goes to the gym three times a week", "I'm done with the gym."),
    ("每周去健身房", "健身房的卡我退了。"),
    ("Works at a bank", "I quit my job last week."),
    ("在银行工作", "我辞职了。"),
])
def test_over_and_done_retire_the_old_value_even_when_the_new_one_is_vague(store: LongTermStore, old: str, said: str) -> None:
    _store_with(store, old)
    assert old not in _night(store, said)
