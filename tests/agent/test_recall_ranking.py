"""Recall ranking on a small real-shaped conversation: long multi-speaker turns, names, dates, paraphrased
questions; and packing that tokenizes each line once."""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone

import pytest

from companion.agent.recall import HEADER, pack
from companion.agent.turn import Agent
from companion.curate.gate import MemoryWriter
from companion.curate.names import set_name
from companion.memory.daylog import DayLog
from companion.memory.search.items import Item
from companion.memory.search.rank import Hit
from companion.llm.base import estimate_tokens

TZ = timezone(timedelta(hours=2))

# Priya (the user) and Tomás (the companion's name in SOUL.md) over a few weeks.
TALK: dict[date, list[tuple[str, str]]] = {
    date(2024, 3, 4): [
        ("user", "Morning Tomás! The weekend was packed. My bike got a flat on the canal path on Saturday, so I "
                 "walked it home for an hour in the drizzle. Still, the bakery on Elm Street had fresh cardamom buns."),
        ("assistant", "Oh no, a flat in the rain is the worst. I took my own bike in for new brakes last week, the "
                      "shop on Harbour Road was quick about it. Did you patch the tube yourself?"),
        ("user", "Not yet. Where did you go hiking after that?"),
        ("assistant", "Up the Pine Ridge trail with my cousin Inés, about fourteen kilometres with a lake at the top."),
    ],
    date(2024, 3, 19): [
        ("user", "Big news: I handed in my notice at the agency. I start at the museum archive in April, cataloguing "
                 "old maps. Scary but right."),
        ("assistant", "Congratulations, Priya! That suits you. What made you decide?"),
        ("user", "Mostly the commute. Ninety minutes each way was wearing me down, and the archive is a short walk."),
    ],
    date(2024, 4, 11): [
        ("user", "Packing for Oslo tonight, my flight is tomorrow at seven. I still need to find the adapter plugs."),
        ("assistant", "Safe travels! Bring a warm layer, April in Oslo can still be cold."),
    ],
    date(2024, 4, 12): [
        ("user", "Landed in Oslo for the trip. The fjord ferry is tomorrow if the weather holds."),
    ],
    date(2024, 4, 29): [
        ("user", "Back home. Yesterday I finally fixed the bike tube with the patch kit from the shop."),
        ("assistant", "Well done! Ready for the canal path again then."),
    ],
}


@pytest.fixture
def agent(home):
    clock_now = [datetime(2024, 3, 4, 9, tzinfo=TZ)]
    log = DayLog(home.days, lambda: clock_now[0])
    for day, turns in TALK.items():
        clock_now[0] = datetime(day.year, day.month, day.day, 9, tzinfo=TZ)
        for role, text in turns:
            log.append(role, text)
            clock_now[0] += timedelta(minutes=3)
    clock_now[0] = datetime(2024, 5, 2, 12, tzinfo=TZ)
    companion = Agent(home, None, clock=lambda: clock_now[0])
    set_name(MemoryWriter(companion.store), "USER.md", "## Profile", "Priya")
    set_name(MemoryWriter(companion.store), "SOUL.md", "## Identity", "Tomás")
    companion.recall.ready.wait(5)
    yield companion
    companion.recall.close()


def top(agent: Agent, question: str, n: int = 3) -> list[str]:
    return [h.item.text for h in agent.recall.hits_for(question, agent.memory_context(), history=False)[:n]]


def test_a_question_naming_a_speaker_prefers_their_turns(agent):
    def order(question: str) -> list[str]:
        return [h.item.locator for h in agent.recall.hits_for(question, agent.memory_context(), history=False)]

    # both took a bike to "the shop": the name decides whose turn leads
    priya, tomas = order("What did Priya say about the bike shop?"), order("What did Tomás say about the bike shop?")
    assert priya.index("2024-04-29#1") < priya.index("2024-03-04#2")
    assert tomas.index("2024-03-04#2") < tomas.index("2024-04-29#1")


def test_the_answer_in_the_reply_to_a_matching_question_is_recalled(agent):
    # the reply names no word of the question: it comes with the question it answers
    found = top(agent, "Where did Tomás go hiking?", 3)
    assert any(t.startswith("Up the Pine Ridge trail") for t in found)


def test_a_paraphrased_question_finds_the_turn_and_its_context(agent):
    found = top(agent, "What made Priya decide to leave the agency?", 4)
    assert any("handed in my notice" in t for t in found)
    assert any("Mostly the commute" in t for t in found)  # the answer, in the reply to "what made you decide?"


def test_a_named_month_favours_that_month(agent):
    hits = agent.recall.hits_for("What did Priya do with the bike in April?", agent.memory_context(), history=False)
    assert hits[0].item.day == "2024-04-29"


def test_the_day_before_an_event_is_the_day_before_it(agent):
    hits = agent.recall.hits_for("What did Priya still need the day before her flight to Oslo?", agent.memory_context(), history=False)
    assert hits[0].item.day == "2024-04-11" and "adapter plugs" in hits[0].item.text


def test_recalled_turns_spell_out_their_relative_dates(agent):
    hits = agent.recall.hits_for("When did Priya fix the bike tube?", agent.memory_context(), history=False)
    packed = pack(hits, 400, estimate_tokens)
    assert "[29 April 2024, user] Back home. Yesterday [28 April 2024] I finally fixed the bike tube" in (packed.block or "")


def test_memory_search_tool_reads_names_and_dates_too(agent):
    import json

    from companion.llm.base import ToolCall

    result = agent.tools.run(ToolCall("memory_search", {"query": "what did Priya pack in April", "k": 2}))
    assert result.ok and json.loads(result.output)[0]["id"] == "2024-04-11#1"


def test_packing_tokenizes_each_line_once():
    """The tokenizer sees about as much text as the lines hold, whatever their number (not n² work)."""

    def run(lines: int) -> tuple[int, int, int]:
        seen = {"calls": 0, "chars": 0}

        def count(text: str) -> int:
            seen["calls"] += 1
            seen["chars"] += len(text)
            return estimate_tokens(text)

        hits = [
            Hit(Item("turn", "days/x", f"2024-01-01#{i}", "2024-01-01", f"note {i} about the garden beds", "user"), 1.0, 1.0)
            for i in range(lines)
        ]
        packed = pack(hits, 100_000, count)
        assert len(packed.hits) == lines
        return seen["calls"], seen["chars"], len(packed.block or "")

    small_calls, small_chars, small_block = run(50)
    big_calls, big_chars, big_block = run(500)
    assert big_calls <= 10 * small_calls + 10  # calls grow with the lines, not their square
    assert big_chars <= 3 * big_block and small_chars <= 3 * small_block  # each line's text counted a bounded number of times


def test_a_tight_budget_is_never_exceeded():
    hits = [Hit(Item("turn", "days/x", f"2024-01-01#{i}", "2024-01-01", "word " * (5 + i), "user"), 1.0, 1.0)
            for i in range(40)]
    for budget in (40, 100, 333):
        packed = pack(hits, budget, estimate_tokens)
        assert packed.block is None or estimate_tokens(packed.block) <= budget
        assert packed.block is None or packed.block.startswith(HEADER)


def test_a_long_reply_keeps_the_sentences_after_the_match():
    """What the assistant said at length: the answer follows the sentence that matches the question."""
    reply = (
        "Happy to help with the anniversary dinner. I looked at places near the river that take bookings. "
        "The first is Casa Verde, a small Portuguese place with grilled fish. "
        "The second is Kōji, an eight-seat counter that serves a tasting menu on weekends. "
        "The third is The Larder, which has a quiet garden at the back. "
        + "Book a week ahead if you can, since Fridays fill up quickly. " * 16
        + "Whatever you pick, I hope the evening is lovely and the weather holds."
    )
    hit = Hit(Item("turn", "days/x", "2024-02-01#2", "2024-02-01", reply, "assistant"), 1.0, 1.0, ["anniversary", "dinner"])
    block = pack([hit], 1024, estimate_tokens).block or ""
    assert "Casa Verde" in block and "Kōji" in block and "The Larder" in block
    assert "I hope the evening is lovely" not in block  # whole sentences, cut where the room ends
    assert block.rstrip().endswith("…")
    tight = pack([hit], 80, estimate_tokens).block or ""
    assert "anniversary dinner" in tight and estimate_tokens(tight) <= 80


def test_a_private_turn_never_comes_along_as_a_neighbour(home):
    now = [datetime(2024, 6, 1, 9, tzinfo=TZ)]
    log = DayLog(home.days, lambda: now[0])
    log.append("user", "Did you book the ferry to the island?")
    log.append("assistant", "My bank PIN is 4417, and yes, the ferry leaves at eight.", private=True)
    log.append("user", "Great, I will pack the tent tonight.")
    now[0] = datetime(2024, 6, 3, 12, tzinfo=TZ)
    agent = Agent(home, None, clock=lambda: now[0])
    agent.recall.ready.wait(5)
    try:
        hits = agent.recall.hits_for("When does the ferry to the island leave?", agent.memory_context(), history=False)
        texts = [h.item.text for h in hits]
        assert texts[0] == "Did you book the ferry to the island?"
        assert "Great, I will pack the tent tonight." in texts  # two turns on, the private one skipped
        assert not any("PIN" in t for t in texts)
    finally:
        agent.recall.close()
