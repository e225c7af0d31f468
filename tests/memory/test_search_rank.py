"""Ranking: relevance first, recency as a tie-breaker (strong for 'lately'), diversity across days."""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone

from companion.memory.daylog import DayLog
from companion.memory.longterm import LongTermStore
from companion.memory.search import RankSettings, SearchQuery, open_index, search
from companion.memory.search.rank import is_recency_query
from companion.curate.gate import MemoryWriter
from companion.memory.history import Actor

TZ = timezone.utc


def write_days(home, days: dict[date, list[str]]) -> None:
    moment = {"now": datetime(2024, 1, 1, tzinfo=TZ)}
    log = DayLog(home.days, lambda: moment["now"])
    for day, texts in sorted(days.items()):
        moment["now"] = datetime(day.year, day.month, day.day, 10, tzinfo=TZ)
        for text in texts:
            log.append("user", text)


def test_equal_matches_prefer_the_newer_day(home):
    write_days(home, {date(2024, 1, 5): ["I went swimming in the sea"], date(2024, 3, 5): ["I went swimming in the lake"]})
    hits = search(open_index(home), SearchQuery("swimming", today=date(2024, 3, 10)))
    assert [h.item.day for h in hits] == ["2024-03-05", "2024-01-05"]


def test_blend_keeps_an_old_strong_match_above_a_new_weak_one_but_multiply_does_not(home):
    write_days(
        home,
        {
            date(2023, 6, 1): ["My passport number expires in 2031 and the passport office is in Leeds"],
            date(2024, 3, 9): ["I mentioned the office again, nothing about documents"],
        },
    )
    index = open_index(home)
    query = SearchQuery("passport office", today=date(2024, 3, 10))
    blended = search(index, query, RankSettings(decay="blend"))
    assert blended[0].item.day == "2023-06-01"
    multiplied = search(index, query, RankSettings(decay="multiply", half_life_days=30))
    assert multiplied[0].item.day == "2024-03-09"


def test_lately_queries_lean_on_recency(home):
    write_days(
        home,
        {
            date(2023, 1, 1): ["Reading a book about the history of tea and the tea trade"],
            date(2024, 3, 8): ["Reading a novel now"],
        },
    )
    index = open_index(home)
    assert is_recency_query("what have I been reading lately?")
    assert not is_recency_query("what book about tea did I read")
    hits = search(index, SearchQuery("what have I been reading lately", today=date(2024, 3, 10)))
    assert hits[0].item.day == "2024-03-08"


def test_long_term_entries_never_decay(home):
    store = LongTermStore(home)
    MemoryWriter(store).append("MEMORY.md", "- Favourite dish: mushroom risotto (2020-01-01#1)", "## Facts", actor=Actor.EDITOR)
    write_days(home, {date(2024, 3, 9): ["We had risotto, the mushroom one was fine"]})
    hits = search(open_index(home), SearchQuery("favourite mushroom risotto", today=date(2024, 3, 10)),
                  RankSettings(decay="multiply", half_life_days=30))
    assert hits[0].item.kind == "entry"


def test_a_day_penalty_keeps_one_long_day_from_filling_every_slot(home):
    # off by default (evidence in real talk clusters in one day's conversation), there to turn on
    write_days(
        home,
        {
            date(2024, 2, 1): [f"Garden talk {i}: tomatoes and garden beds" for i in range(12)],
            date(2024, 1, 3): ["The garden needs new beds"],
            date(2023, 12, 3): ["Planted garlic in the garden"],
        },
    )
    query = SearchQuery("garden beds", k=5, today=date(2024, 2, 2))
    assert {h.item.day for h in search(open_index(home), query)} == {"2024-02-01"}
    hits = search(open_index(home), query, RankSettings(same_day_penalty=0.7))
    assert {"2024-01-03", "2023-12-03"} <= {h.item.day for h in hits}


def test_recalled_often_is_a_small_boost(home):
    write_days(home, {date(2024, 1, 1): ["Dentist appointment booked"], date(2024, 1, 2): ["Dentist appointment moved"]})
    index = open_index(home)
    first = search(index, SearchQuery("dentist", today=date(2024, 1, 2)))
    assert first[0].item.day == "2024-01-02"
    older = first[1].item
    index.record_hits([older] * 5)
    again = search(index, SearchQuery("dentist", today=date(2024, 1, 2)))
    assert again[0].item.key == older.key


def test_the_same_text_said_twice_takes_one_slot(home):
    write_days(home, {date(2024, 1, 1): ["Call the plumber"], date(2024, 1, 2): ["call the  plumber"]})
    hits = search(open_index(home), SearchQuery("plumber", today=date(2024, 1, 3)))
    assert [h.item.day for h in hits] == ["2024-01-02"]


def test_word_families_match(home):
    write_days(home, {date(2024, 1, 1): ["I am allergic to shellfish"]})
    assert search(open_index(home), SearchQuery("what allergy do I have"))


def test_hits_carry_file_locator_date_and_score(home):
    write_days(home, {date(2024, 1, 1): ["猫的名字叫小白"]})
    (hit,) = search(open_index(home), SearchQuery("小白"))
    data = hit.to_dict()
    assert data["file"] == "days/2024-01/2024-01-01.jsonl" and data["id"] == "2024-01-01#1"
    assert data["date"] == "2024-01-01" and data["score"] > 0


def test_the_name_that_leads_a_question_names_its_speaker():
    from companion.memory.search.rank import named_speaker
    from companion.memory.search.tokenize import query_terms

    names = {"user": "Priya Nair", "assistant": "Tomás"}

    def speaker(question: str) -> str:
        return named_speaker(query_terms(question), names)

    assert speaker("What did Priya Nair tell Tomás about the bike?") == "user"
    assert speaker("How does Tomás describe Priya's new job?") == "assistant"
    assert speaker("Did Priya Nair and Tomás both go hiking?") == ""
    assert speaker("What did Priya say?") == "user"  # the given name is enough
    assert speaker("What did Nair say?") == ""
    assert speaker("Where is the bakery?") == ""


def test_names_and_times_are_searched_when_nothing_else_matches(home):
    write_days(home, {date(2024, 1, 1): ["Hey Anna, lovely to see you again!", "The garden is full of snowdrops"]})
    index = open_index(home)
    names = {"user": "Anna"}
    found = search(index, SearchQuery("What does Anna have in common?", names=names, today=date(2024, 1, 2)))
    assert [h.item.text for h in found] == ["Hey Anna, lovely to see you again!"]
    # with a word that matches, the name only picks the speaker
    found = search(index, SearchQuery("What did Anna say about the garden?", names=names, today=date(2024, 1, 2)))
    assert [h.item.text for h in found] == ["The garden is full of snowdrops"]


def test_a_chinese_name_is_cut_out_before_its_neighbours_are_paired(home):
    # "梅兰妮六月…" read as pairs gives 妮六, which is no word: it must not find "妮六岁了"
    write_days(home, {date(2024, 6, 20): ["六月我们去海边露营了，很开心"], date(2024, 6, 21): ["安妮六岁了，今天生日"]})
    index = open_index(home)
    names = {"assistant": "梅兰妮"}
    hits = search(index, SearchQuery("梅兰妮六月做了什么", k=2, names=names, today=date(2024, 6, 22)))
    assert hits and hits[0].item.text == "六月我们去海边露营了，很开心"
    assert all(h.item.text != "安妮六岁了，今天生日" for h in hits)


def test_a_chinese_match_for_a_chinese_question_is_read_on_its_own_scale():
    from companion.memory.search.index import Candidate
    from companion.memory.search.items import Item
    from companion.memory.search.rank import on_one_scale

    def near(text: str, cosine: float) -> Candidate:
        return Candidate(Item("turn", "days/x.jsonl", text[:4], "2024-05-01", text), cosine)

    found = on_one_scale([near("我每个周末都去游泳", 0.65), near("明天要开会讨论预算", 0.28),
                          near("I go swimming every weekend", 0.28)], "我周末一般做什么运动？", 0.2, 0.3)
    scores = {c.item.text: round(c.relevance, 3) for c in found}
    # 0.28 between two Chinese texts is under their floor; across languages it is a match
    assert scores == {"我每个周末都去游泳": 0.6, "I go swimming every weekend": 0.28}
    assert [c.item.text for c in found][0] == "我每个周末都去游泳"
    # an English question keeps every similarity as it is
    pairs = [near("I go swimming every weekend", 0.28), near("明天要开会讨论预算", 0.28)]
    assert on_one_scale(pairs, "What sport do I do at weekends?", 0.2, 0.3) == pairs
