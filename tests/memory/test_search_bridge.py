"""Words said in one language are found from the other: Chinese questions over English memory and back."""

from __future__ import annotations

from datetime import date, datetime, timezone

from companion.cli import main
from companion.curate.gate import MemoryWriter
from companion.memory.daylog import DayLog
from companion.memory.history import Actor
from companion.memory.longterm import LongTermStore
from companion.memory.search import RankSettings, SearchQuery, open_index, search
from companion.memory.search.rank import _match_bridged, bridged_terms, search_terms

TZ = timezone.utc


def say(home, day: date, *texts: str) -> None:
    log = DayLog(home.days, lambda: datetime(day.year, day.month, day.day, 10, tzinfo=TZ))
    for text in texts:
        log.append("user", text)


def found(home, question: str, **settings: object) -> list[str]:
    return [h.item.text for h in search(open_index(home), SearchQuery(question, k=3), RankSettings(**settings))]


def test_a_chinese_question_finds_what_was_said_in_english(home):
    say(home, date(2024, 5, 1), "I joined a support group for new parents last week",
        "The weather was grey all day", "Bought a new phone case")
    assert found(home, "我参加了什么支持小组？")[0] == "I joined a support group for new parents last week"
    assert found(home, "我参加了什么支持小组？", bridge_weight=0.0) == []  # without the dictionary: nothing


def test_an_english_question_finds_what_was_said_in_chinese(home):
    say(home, date(2024, 5, 1), "我对贝类过敏，吃虾会起疹子", "今天下雨了", "周末去爬山")
    assert found(home, "Which food allergy do I have?")[0] == "我对贝类过敏，吃虾会起疹子"
    assert "我对贝类过敏，吃虾会起疹子" not in found(home, "Which food allergy do I have?", bridge_weight=0.0)


def test_a_place_named_in_english_is_found_in_chinese(home):
    say(home, date(2024, 5, 1), "我昨天去了巴黎，太酷了", "周末在家看书", "上周去罗马短途旅行了一趟")
    assert found(home, "When was I in Paris?")[0] == "我昨天去了巴黎，太酷了"
    assert found(home, "Did I ever visit Rome?")[0] == "上周去罗马短途旅行了一趟"


def test_the_same_language_still_ranks_first(home):
    say(home, date(2024, 5, 1), "My shellfish allergy flared up at the restaurant", "我对贝类过敏")
    hits = found(home, "shellfish allergy")
    assert hits[0] == "My shellfish allergy flared up at the restaurant" and "我对贝类过敏" in hits


def test_only_renderings_the_memory_holds_are_searched(home):
    say(home, date(2024, 5, 1), "I lost my job at the bank")
    offered = [t for group in bridged_terms("我丢了工作") for t in group]
    assert {"lose", "work", "job"} <= set(offered)
    index = open_index(home)
    searched, _ = _match_bridged(index, SearchQuery("我丢了工作", k=3), RankSettings(), set())
    held = index.term_counts(offered)
    assert searched and set(searched) < set(offered)  # the dictionary offers more than the memory holds...
    assert all(held.get(t, 0) > 0 for t in searched)  # ...and only what it holds is searched
    hits = search(index, SearchQuery("我丢了工作", k=3))
    assert [h.item.text for h in hits] == ["I lost my job at the bank"]


def test_a_long_term_entry_is_found_across_languages_by_companion_search(home, capsys):
    MemoryWriter(LongTermStore(home)).append("MEMORY.md", "- Allergic to shellfish", actor=Actor.EDITOR)
    assert main(["search", "贝类"]) == 0
    assert "Allergic to shellfish" in capsys.readouterr().out


def test_a_chinese_questions_grammar_is_not_searched_for(home):
    say(home, date(2024, 5, 1), "你什么时候有空？什么时候都行，是什么时候的事？", "上周我去罗马短途旅行了一趟")
    assert search_terms("我是什么时候去的罗马？") == ["去", "罗马"]
    assert found(home, "我是什么时候去的罗马？")[0] == "上周我去罗马短途旅行了一趟"
    assert search_terms("乔恩为什么丢了银行职员的工作") == ["乔恩", "丢", "银行", "行职", "职员", "工作"]


def test_a_rendering_found_everywhere_is_ranked_among_its_newest_matches_only(home):
    # the older turns match better (short), the newer ones worse (long): only a cap puts the newer first
    for number in range(1, 16):
        say(home, date(2024, 5, number), f"第{number}个生日")
    newer = {f"第{n}天，朋友来家里吃饭聊天，还提到下个月要过生日的事情" for n in range(16, 21)}
    for number in range(16, 21):
        say(home, date(2024, 5, number), f"第{number}天，朋友来家里吃饭聊天，还提到下个月要过生日的事情")
    everything = found(home, "birthday", bridge_score_cap=0)  # 0: every match is ranked
    assert everything and not set(everything) & newer
    capped = found(home, "birthday", bridge_score_cap=5)
    assert set(capped) & newer and set(capped) <= newer | {"第15个生日"}  # only about the newest five were ranked
