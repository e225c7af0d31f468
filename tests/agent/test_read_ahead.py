"""Reading a draft ahead: the prompt the message will make is read while the user types, and nothing is written."""

from __future__ import annotations

import sqlite3
import threading
import pytest

from companion.agent.recall import HEADER
from companion.agent.turn import Agent
from companion.curate.gate import MemoryWriter
from companion.memory.history import Actor
from companion.memory.longterm import LongTermStore
from companion.llm.scripted import ScriptedBackend
from companion.memory.daylog import DayLog
from companion.memory.search.index import INDEX_FILE
from companion.settings import Settings

QUESTION = "Where does my sister Anna live now?"


@pytest.fixture
def past(home, clock):
    """A companion past its first conversation; three weeks ago the user spoke of a sister, then small talk."""
    MemoryWriter(LongTermStore(home)).append("SOUL.md", "- Name: Companion", "## Identity", actor=Actor.EDITOR)
    log = DayLog(home.days, clock)
    log.append("user", "My sister Anna moved to Lisbon to open a bakery")
    log.append("assistant", "How exciting for her!")
    clock.advance(days=10)
    for n in range(40):
        log.append("user", f"filler chat number {n}, nothing much to say about anything at all today")
        log.append("assistant", "Alright, noted.")
    clock.advance(days=11)
    return log


def records(home) -> int:
    return sum(len(DayLog(home.days).read_day(day).records) for day in DayLog(home.days).days())


def hits_counted(home) -> int:
    with sqlite3.connect(home.state / INDEX_FILE) as db:
        return db.execute("SELECT coalesce(sum(count), 0) FROM hits").fetchone()[0]


def test_the_draft_read_ahead_is_the_prompt_its_turn_sends(home, clock, past):
    backend = ScriptedBackend(n_ctx=2048)
    agent = Agent(home, backend, clock=clock)
    assert agent.read_ahead(QUESTION)
    read = backend.prefills[-1]
    clock.advance(seconds=40)  # the user reads it over before sending: the stamp's minute changes
    list(agent.run_turn(QUESTION))
    sent = backend.prompts[-1]
    assert read[:-1] == sent[:-1]  # system prompt and history
    memories = read[-1]["content"].split("</context>\n\n")[0]
    assert sent[-1]["content"].startswith(memories + "</context>\n\n[Sunday 2026-12-20 14:04]\n")
    assert HEADER in sent[-1]["content"] and "Lisbon" in sent[-1]["content"]
    assert sent[-1]["content"].startswith("<context>")  # memories first: the words decide them, not the minute
    assert sent[-1]["content"].endswith(QUESTION)  # the model's last input is the message it answers


def test_reading_ahead_writes_nothing_and_counts_no_recall(home, clock, past):
    backend = ScriptedBackend(n_ctx=2048)
    agent = Agent(home, backend, clock=clock)
    agent.recall.wait_embedded()
    before, counted = records(home), hits_counted(home)
    assert agent.read_ahead(QUESTION)
    assert "Lisbon" in backend.prefills[-1][-1]["content"]
    assert not agent.read_ahead(QUESTION)  # the same draft is not read twice
    assert records(home) == before
    assert hits_counted(home) == counted
    assert backend.prompts == []
    list(agent.run_turn(QUESTION))
    assert hits_counted(home) > counted  # the turn that used them counts them


def test_a_draft_changed_before_sending_is_answered_as_sent(home, clock, past):
    backend = ScriptedBackend(n_ctx=2048)
    agent = Agent(home, backend, clock=clock)
    assert agent.read_ahead("Where does my sis")
    list(agent.run_turn(QUESTION))
    content = backend.prompts[-1][-1]["content"]
    assert content.endswith(QUESTION) and "my sis\n" not in content
    assert "Lisbon" in content


def test_no_draft_is_read_while_a_reply_is_written(home, clock, past):
    backend = ScriptedBackend(["one two three four five six seven eight"], n_ctx=2048, delay=0.05)
    agent = Agent(home, backend, clock=clock)
    streaming = threading.Event()
    done = threading.Event()

    def turn() -> None:
        for _event in agent.run_turn("hello there, how are you today?"):
            streaming.set()
        done.set()

    worker = threading.Thread(target=turn)
    worker.start()
    assert streaming.wait(5)
    assert not agent.read_ahead(QUESTION)
    worker.join(10)
    assert done.is_set() and backend.prefills == []
    assert agent.read_ahead(QUESTION)  # once the reply is written


def test_warming_after_background_work_reads_the_draft_again_on_current_memory(home, clock, past):
    backend = ScriptedBackend(n_ctx=2048)
    agent = Agent(home, backend, clock=clock)
    assert agent.read_ahead(QUESTION)
    MemoryWriter(agent.store).append("MEMORY.md", "- Likes long walks by the sea", "## Facts", actor=Actor.EDITOR)
    agent.warm()  # what the window does once background learning has used the model
    warmed = backend.prefills[-1]
    assert warmed[-1]["content"].endswith(QUESTION)
    assert "long walks by the sea" in warmed[0]["content"]  # the system prompt as it is now
    list(agent.run_turn(QUESTION))
    assert backend.prompts[-1] == warmed
    agent.warm()  # after the turn: the stable prefix only, the draft was sent
    assert backend.prefills[-1][-1]["role"] == "assistant"


def test_an_empty_draft_or_no_model_reads_nothing(home, clock, past):
    agent = Agent(home, None, clock=clock)
    assert not agent.read_ahead(QUESTION)
    backend = ScriptedBackend(n_ctx=2048)
    agent.backend = backend
    assert not agent.read_ahead("  \n ")
    assert backend.prefills == []


@pytest.mark.model
def test_sending_a_draft_read_ahead_reads_only_what_changed_on_the_real_model(home, clock, past, tiny_backend):
    agent = Agent(home, tiny_backend, clock=clock)
    agent.settings.model.max_reply_tokens = 2
    agent.settings.memory.auto_learn = False
    list(agent.run_turn("Good morning!"))
    agent.warm()
    assert agent.read_ahead(QUESTION)
    read_ahead = tiny_backend.prompt_tokens_read
    list(agent.run_turn(QUESTION))
    sent = tiny_backend.prompt_tokens_read
    assert read_ahead is not None and sent is not None
    assert read_ahead > 40  # the memories and the draft
    assert sent <= 3  # the draft's prompt was all in the cache


def test_prompt_layout_puts_notes_and_memories_before_the_message():
    from companion.agent import prompt as P
    from companion.memory.records import Record

    record = Record("2026-11-29#3", "2026-11-29T14:03:22.000+01:00", "user", "hello")
    content = P.render_final_user(record, ["MEMO"], ["a note"], None)
    assert content.index("MEMO") < content.index("a note") < content.index("</context>")
    assert content.endswith("</context>\n\n[Sunday 2026-11-29 14:03]\nhello")
    assert P.render_final_user(record, [], [], None) == P.render_user(record, None)


def counting_recalls(agent: Agent) -> list[str]:
    """The texts the agent's recall searched for (a spy on the real method)."""
    searched: list[str] = []
    search = agent.recall.hits_for

    def spy(text, *args, **kwargs):  # type: ignore[no-untyped-def]
        searched.append(text)
        return search(text, *args, **kwargs)

    agent.recall.hits_for = spy  # type: ignore[method-assign]
    return searched


def test_sending_the_draft_unchanged_reuses_its_recall(home, clock, past):
    backend = ScriptedBackend(n_ctx=2048)
    agent = Agent(home, backend, clock=clock)
    searched = counting_recalls(agent)
    agent.read_ahead(QUESTION)
    backend.speed = 20.0  # measured meanwhile: a fresh recall would get a smaller block
    list(agent.run_turn(QUESTION))
    assert searched == [QUESTION]
    assert backend.prompts[-1] == backend.prefills[-1]  # the block the model read ahead
    assert "Lisbon" in backend.prompts[-1][-1]["content"]
    agent.read_ahead("And my brother?")
    list(agent.run_turn("And my brother? Where is he?"))  # changed: recalled again
    assert searched == [QUESTION, "And my brother?", "And my brother? Where is he?"]


def test_a_draft_whose_memory_was_forgotten_everywhere_meanwhile_is_recalled_again(home, clock, past):
    from companion.agent.session import ChatSession

    backend = ScriptedBackend(n_ctx=2048)
    session = ChatSession(home, Settings(), clock=clock)
    session.adopt(backend, owned=True)
    assert session.read_ahead(QUESTION)
    assert "Lisbon" in backend.prefills[-1][-1]["content"]
    erased = session.forget_everywhere("Lisbon")
    assert erased is not None
    list(session.run_turn(QUESTION))
    assert "Lisbon" not in backend.prompts[-1][-1]["content"]
    session.close()


def test_a_recalled_message_deleted_meanwhile_is_not_sent(home, clock, past):
    backend = ScriptedBackend(n_ctx=2048)
    agent = Agent(home, backend, clock=clock)
    agent.read_ahead(QUESTION)
    assert "Lisbon" in backend.prefills[-1][-1]["content"]
    anna = next(r for r in past.read_day(past.days()[0]).records if "Lisbon" in r.text)
    agent.daylog.append("event", "Deleted a message.", deletes=anna.id)  # what the window's Delete does
    list(agent.run_turn(QUESTION))
    assert "moved to Lisbon" not in backend.prompts[-1][-1]["content"]
