"""Automatic recall in a turn, the memory budget, and the memory_search tool."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import pytest

from companion.agent import prompt as P
from companion.agent.recall import HEADER, best_excerpt, is_trivial, pack
from companion.agent.turn import Agent
from companion.llm.base import ToolCall, estimate_tokens
from companion.llm.scripted import ScriptedBackend
from companion.memory.daylog import DayLog
from companion.curate.gate import MemoryWriter
from companion.memory.history import Actor

TZ = timezone(timedelta(hours=1))


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2024, 3, 1, 9, 0, tzinfo=TZ)

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def past(home, clock):
    """Three weeks ago the user said some things; today is 2024-03-22."""
    log = DayLog(home.days, clock)
    log.append("user", "My sister Anna moved to Lisbon to open a bakery")
    log.append("assistant", "How exciting for her!")
    log.append("user", "我最喜欢的饮料是咖啡，每天早上喝两杯")
    clock.now += timedelta(days=10)
    for n in range(40):  # more than the history holds in a 2048-token window
        log.append("user", f"filler chat number {n}, nothing much to say about anything at all today")
        log.append("assistant", "Alright, noted.")
    clock.now += timedelta(days=11)
    return log


def run(agent: Agent, text: str) -> list:
    return list(agent.run_turn(text))


def final_message(backend: ScriptedBackend) -> str:
    return backend.prompts[-1][-1]["content"]


@pytest.mark.slow
def test_a_turn_recalls_an_old_snippet_with_its_date_after_the_stable_prefix(home, clock, past):
    backend = ScriptedBackend(n_ctx=2048)
    agent = Agent(home, backend, clock=clock)
    events = run(agent, "Where does my sister live now?")
    content = final_message(backend)
    assert "<context>" in content and HEADER in content
    assert "[1 March 2024, user] My sister Anna moved to Lisbon to open a bakery" in content
    assert "Lisbon" not in backend.prompts[-1][0]["content"]  # nothing recalled goes into the system prompt
    recall = [e for e in events if e.kind == "recall"]
    assert recall and recall[0].hits[0]["id"] == "2024-03-01#1"
    assert events[-1].recalled == recall[0].hits  # the reply carries what was recalled for it
    reply = agent.daylog.tail(1)[0]
    # the match, then the conversation around it (turns beside a match come along, ranked below it)
    assert reply.role == "assistant" and reply.extra["recalled"] == ["2024-03-01#1", "2024-03-01#2", "2024-03-01#3"]


def test_chinese_recall(home, clock, past):
    backend = ScriptedBackend(n_ctx=2048)
    agent = Agent(home, backend, clock=clock)
    run(agent, "我喜欢喝什么咖啡？")
    assert "[1 March 2024, user] 我最喜欢的饮料是咖啡" in final_message(backend)


def test_a_turn_before_the_start_up_scan_was_started_starts_it_and_recalls(home, clock, past):
    """The app starts the scan after its first frame; a message sent before that still recalls."""
    backend = ScriptedBackend(n_ctx=2048)
    agent = Agent(home, backend, clock=clock, start_recall=False)
    assert not agent.recall.started
    run(agent, "Where does my sister live now?")
    assert agent.recall.started
    assert "My sister Anna moved to Lisbon" in final_message(backend)
    agent.recall.start()  # once only
    agent.recall.close()


def test_closing_a_recall_whose_scan_never_started(home):
    from companion.agent.recall import Recall
    from companion.memory.longterm import LongTermStore

    recall = Recall(home, LongTermStore(home), embedder=None, start=False)
    recall.close()
    recall.start()  # a closed recall does not start
    assert not recall.started


def test_trivial_messages_recall_nothing(home, clock, past):
    backend = ScriptedBackend(n_ctx=2048)
    agent = Agent(home, backend, clock=clock)
    for text in ("ok", "Thanks!", "好的", "嗯嗯"):
        assert is_trivial(text)
        run(agent, text)
        assert HEADER not in final_message(backend)
    assert not is_trivial("my sister")


def test_turns_already_in_the_history_are_not_recalled_again(home, clock, past):
    backend = ScriptedBackend(n_ctx=2048)
    agent = Agent(home, backend, clock=clock)
    run(agent, "I adopted a cat called Miso, she loves Lisbon sardines")
    run(agent, "Tell me about Miso the cat and Lisbon")
    block = final_message(backend).split("<context>")[-1].split("</context>")[0]
    assert "Anna moved to Lisbon" in block  # old: recalled
    assert "adopted a cat" not in block  # in the history already


@pytest.mark.slow
def test_memory_part_fits_the_budget_and_drops_the_oldest_long_term_entries_first(home, clock, past):
    backend = ScriptedBackend(n_ctx=2048)
    agent = Agent(home, backend, clock=clock)
    agent.settings.memory.prompt_budget_tokens = 300
    for month in range(1, 13):
        MemoryWriter(agent.store).append("MEMORY.md", f"- In month {month} the user repaired bicycle number {month} (2023-{month:02d}-01#1)", "## Facts", actor=Actor.EDITOR)
    run(agent, "Where does my sister live now?")
    system = backend.prompts[-1][0]["content"]
    content = final_message(backend)
    block = content.split("<context>\n", 1)[1].split("\n</context>", 1)[0].split("\n\nNotes for this reply", 1)[0]
    fit = agent.memory_fit()
    used = backend.count_tokens(P.memory_sections(fit.bodies)) + backend.count_tokens(block)
    assert used <= 300
    assert "bicycle number 12" in system and "bicycle number 1 " not in system  # oldest dated entry went first
    assert fit.dropped and "bicycle number 1 " in fit.dropped[0]
    assert "Lisbon" in block
    first = backend.prompts[-1][0]
    run(agent, "And my favourite drink?")
    assert backend.prompts[-1][0] == first  # the system prompt does not change from turn to turn


@pytest.mark.slow
def test_dropped_long_term_entries_are_still_recalled(home, clock, past):
    backend = ScriptedBackend(n_ctx=2048)
    agent = Agent(home, backend, clock=clock)
    agent.settings.memory.prompt_budget_tokens = 250
    MemoryWriter(agent.store).append("MEMORY.md", "- Has a green kayak called Pickle (2022-05-01#3)", "## Facts", actor=Actor.EDITOR)
    for n in range(15):
        MemoryWriter(agent.store).append("MEMORY.md", f"- Routine note {n} about groceries (2024-02-{n + 1:02d}#1)", "## Facts", actor=Actor.EDITOR)
    assert "kayak" not in agent.system_prompt()
    run(agent, "what is my kayak called?")
    assert "Pickle" in final_message(backend)


def test_least_relevant_snippets_are_left_out_first():
    hits_text = ["alpha beta gamma " * 3, "alpha " * 30, "beta " * 40]
    from companion.memory.search.items import Item
    from companion.memory.search.rank import Hit

    hits = [Hit(Item("turn", "days/x", f"2024-01-0{i + 1}#1", f"2024-01-0{i + 1}", t, "user"), 1.0 - i / 10, 1.0)
            for i, t in enumerate(hits_text)]
    budget = estimate_tokens(HEADER) + 60
    packed = pack(hits, budget, estimate_tokens)
    assert packed.hits[0] is hits[0] and hits[2] not in packed.hits
    assert estimate_tokens(packed.block or "") <= budget


def test_long_turns_are_cut_to_the_sentences_that_match():
    text = "We talked about many things. " * 20 + "The wifi password hint is the dog's name. " + "More chat. " * 20
    excerpt = best_excerpt(text, ["wifi"], estimate_tokens, limit=30)
    assert "wifi password" in excerpt and excerpt.startswith("…") and estimate_tokens(excerpt) <= 35


def test_memory_search_tool(home, clock, past):
    backend = ScriptedBackend(supports_tools=True, n_ctx=2048)
    backend.queue([ToolCall("memory_search", {"query": "sister Lisbon", "k": 3})], "She lives in Lisbon.")
    agent = Agent(home, backend, clock=clock)
    assert "memory_search" in agent.tools.names()
    events = run(agent, "hmm")
    tool = [e for e in events if e.kind == "tool"][0]
    results = json.loads(tool.text)
    assert results[0]["id"] == "2024-03-01#1" and results[0]["date"] == "2024-03-01"
    assert results[0]["file"].startswith("days/") and results[0]["score"] > 0
    bad = agent.tools.run(ToolCall("memory_search", {"query": ""}))
    assert not bad.ok and "query" in bad.output


@pytest.mark.slow
def test_a_broken_index_never_breaks_a_turn(home, clock, past):
    backend = ScriptedBackend(n_ctx=2048)
    agent = Agent(home, backend, clock=clock)
    agent.recall.ready.wait(5)
    agent.recall.index.close()
    agent.recall.index.path.write_bytes(b"garbage" * 500)
    run(agent, "Where does my sister live now?")
    assert "Lisbon" in final_message(backend)  # rebuilt on the spot
