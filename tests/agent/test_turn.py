"""A turn: logging, prompt assembly, rules, tools, cancel, regenerate (scripted backend)."""

from __future__ import annotations

import threading

import pytest

from companion.agent.turn import Agent
from companion.llm.base import ToolCall
from companion.llm.scripted import ScriptedBackend
from companion.memory.daylog import DayLog
from companion.curate.gate import MemoryWriter
from companion.memory.history import Actor


def run(agent: Agent, text: str):
    return list(agent.run_turn(text))


@pytest.fixture
def agent(home, clock, scripted):
    return Agent(home, scripted, clock=clock)


def test_reply_streams_and_both_messages_land_in_the_log(agent, scripted, home, clock):
    scripted.queue("Hello there, friend.")
    events = run(agent, "Hi!")
    assert [e.kind for e in events][0] == "user"
    assert "".join(e.text for e in events if e.kind == "delta") == "Hello there, friend."
    done = events[-1]
    assert done.kind == "done" and done.record.role == "assistant"
    records = DayLog(home.days).read_day(clock().date()).records
    assert [(r.role, r.text) for r in records if r.role != "event"] == [("user", "Hi!"), ("assistant", "Hello there, friend.")]
    assert records[-1].extra["model"] == "scripted"


def test_system_prompt_holds_the_three_files_and_follows_edits(agent, scripted):
    MemoryWriter(agent.store).append("USER.md", "- Name: Ana", "## Profile", actor=Actor.EDITOR)
    run(agent, "hello")
    system = scripted.prompts[-1][0]
    assert system["role"] == "system"
    assert "## Soul" in system["content"] and "## User Profile" in system["content"]
    assert "## Long-term Memory" in system["content"] and "- Name: Ana" in system["content"]
    MemoryWriter(agent.store).edit("USER.md", "- Name: Ana", "- Name: Ana Horvat", actor=Actor.EDITOR)
    run(agent, "again")
    assert "- Name: Ana Horvat" in scripted.prompts[-1][0]["content"]


def test_volatile_parts_come_after_the_stable_prefix(agent, scripted, clock):
    MemoryWriter(agent.store).replace_section("SOUL.md", "## Identity", "- Name: Mo", actor=Actor.EDITOR)
    run(agent, "first")
    clock.advance(minutes=7)
    run(agent, "second")
    clock.advance(minutes=45)
    run(agent, "third")
    first, second, third = scripted.prompts
    assert first[0] == second[0] == third[0]  # the system prompt does not carry the time
    assert second[: len(first) - 1] == first[:-1]
    assert third[: len(second) - 1] == second[:-1]
    assert second[1]["content"].startswith("[Sunday 2026-11-29 14:03]\nfirst")
    assert second[-1]["content"] == "second"  # minutes later: no new stamp
    assert third[-1]["content"] == "[Sunday 2026-11-29 14:55]\nthird"  # after a pause: stamped


def test_history_is_dropped_in_blocks_so_the_prefix_stays_stable(home, clock):
    backend = ScriptedBackend(default="a reply of several words here", n_ctx=900)
    agent = Agent(home, backend, clock=clock)
    agent.settings.model.max_reply_tokens = 100
    agent.settings.memory.prompt_budget_tokens = 40  # this window is for the history: no room kept for recall
    MemoryWriter(agent.store).replace_section("SOUL.md", "## Identity", "- Name: Mo", actor=Actor.EDITOR)
    starts = []
    for index in range(40):
        run(agent, f"message number {index} " + "word " * 20)
        starts.append(backend.prompts[-1][1]["content"])
    changes = sum(1 for a, b in zip(starts, starts[1:]) if a != b)
    assert 1 <= changes <= 8  # the oldest turn changes rarely, not on every turn
    for prompt in backend.prompts:
        assert sum(backend.count_tokens(m["content"]) for m in prompt) < 900 - 100


def test_remember_is_written_by_rule_with_a_citation(agent, scripted):
    events = run(agent, "Remember that my sister is called Lea.")
    assert "- Sister: Lea (2026-11-29#1)" in agent.store.read("USER.md").body  # a profile fact goes to the profile
    assert any(e.kind == "memory" for e in events)
    assert "Saved to long-term memory" in scripted.prompts[-1][-1]["content"]
    run(agent, "remember that we adopted a cat in 2019")
    assert "- We adopted a cat in 2019 (2026-11-29#" in agent.store.read("MEMORY.md").body
    run(agent, "remember that my sister is called Lea")
    both = agent.store.read("USER.md").body + agent.store.read("MEMORY.md").body
    assert both.count("Lea") == 1


def test_chinese_remember_and_forget(agent):
    run(agent, "记住我喜欢喝咖啡")
    assert "- 喜欢喝咖啡 (2026-11-29#1)" in agent.store.read("USER.md").body
    run(agent, "记住我们明年要去日本")
    assert "- 我们明年要去日本 (2026-11-29#" in agent.store.read("MEMORY.md").body
    run(agent, "忘记喜欢喝咖啡")
    assert "咖啡" not in agent.store.read("USER.md").body
    assert any("咖啡" in v.read() for v in agent.store.history.versions("USER.md"))


def test_secrets_are_not_remembered(agent):
    run(agent, "remember that my password is hunter22")
    assert "hunter22" not in agent.store.read("MEMORY.md").raw


def test_bootstrap_until_the_persona_exists(agent, scripted):
    assert agent.in_bootstrap()
    run(agent, "Hi, my name is Ana")
    assert "## First conversation" in scripted.prompts[-1][0]["content"]
    assert "- Name: Ana (2026-11-29#1)" in agent.store.read("USER.md").body
    run(agent, "I'd like help with planning my week")
    run(agent, "Please be concise and call yourself Mo")
    soul = agent.store.read("SOUL.md").body
    assert "- Name: Mo" in soul and "short and to the point" in soul
    assert not agent.in_bootstrap()
    run(agent, "thanks")
    assert "## First conversation" not in scripted.prompts[-1][0]["content"]


def test_bootstrap_completes_with_defaults_after_three_messages(agent):
    for text in ("hello", "how are you", "what can you do"):
        run(agent, text)
    assert not agent.in_bootstrap()
    assert "- Name: Companion" in agent.store.read("SOUL.md").body


def test_first_message_of_day_trigger_fires_once_per_day_and_survives_restart(home, clock, scripted):
    agent = Agent(home, scripted, clock=clock)
    run(agent, "morning")
    assert "Greet the user for the day" in scripted.prompts[-1][-1]["content"]
    run(agent, "again")
    assert "Greet the user" not in scripted.prompts[-1][-1]["content"]
    clock.advance(hours=20)
    agent2 = Agent(home, scripted, clock=clock)
    run(agent2, "next day")
    assert "Greet the user for the day" in scripted.prompts[-1][-1]["content"]
    assert (home.state / "soul_state.json").exists()


def test_tool_calls_edit_memory_and_are_logged(home, clock):
    backend = ScriptedBackend(supports_tools=True)
    backend.queue(
        [ToolCall("context_update", {"file": "MEMORY.md", "action": "append", "content": "- Has a cat named Tom", "section": "## Facts"})],
        "Noted, I'll remember Tom.",
    )
    agent = Agent(home, backend, clock=clock)
    events = run(agent, "I have a cat named Tom")
    assert "- Has a cat named Tom" in agent.store.read("MEMORY.md").body
    assert backend.options[0].tools and backend.prompts[1][-1]["role"] == "tool"
    tool_records = [r for r in DayLog(home.days).read_day(clock().date()).records if r.role == "tool"]
    assert tool_records[0].extra["tool"]["name"] == "context_update"
    assert events[-1].text == "Noted, I'll remember Tom."
    assert agent.store.history.versions("MEMORY.md")[0].actor == "tool"


def test_tool_path_traversal_is_refused_and_reported_to_the_model(home, clock, tmp_path):
    backend = ScriptedBackend(supports_tools=True)
    backend.queue([ToolCall("edit_memory", {"file": "../../evil.md", "old_string": "a", "new_string": "b"})], "ok")
    agent = Agent(home, backend, clock=clock)
    run(agent, "do it")
    tool_message = backend.prompts[1][-1]["content"]
    assert "Refused" in tool_message
    assert not list(tmp_path.rglob("evil.md"))


def test_no_tools_offered_when_the_model_cannot_call_them(agent, scripted):
    run(agent, "hello")
    assert scripted.options[-1].tools is None


def test_cancel_stops_the_reply_and_marks_it(home, clock):
    backend = ScriptedBackend(default=" ".join(["word"] * 300), delay=0.005)
    agent = Agent(home, backend, clock=clock)
    seen = []
    for event in agent.run_turn("tell me a long story"):
        if event.kind == "delta":
            seen.append(event.text)
            if len(seen) == 5:
                threading.Thread(target=agent.cancel).start()
        if event.kind == "done":
            done = event
    assert done.stats.cancelled
    assert len(seen) < 20
    assert done.record.extra["cancelled"] is True


def test_regenerate_keeps_both_replies_and_uses_the_new_one(agent, scripted, home, clock):
    scripted.queue("first answer", "second answer", "next")
    run(agent, "question")
    events = list(agent.regenerate())
    new = events[-1].record
    old = [r for r in DayLog(home.days).read_day(clock().date()).records if r.text == "first answer"][0]
    assert new.extra["replaces"] == old.id
    assert scripted.prompts[1][-1]["content"].endswith("question")
    run(agent, "follow-up")
    history = [m["content"] for m in scripted.prompts[-1]]
    assert "second answer" in history and "first answer" not in history


def test_copied_time_stamp_is_removed_from_the_reply(agent, scripted):
    scripted.queue("[Sunday 2026-11-29 14:03] Hello!")
    events = run(agent, "hi")
    assert events[-1].text == "Hello!"


def test_without_a_model_the_message_is_kept_and_an_error_is_reported(home, clock):
    agent = Agent(home, None, clock=clock)
    events = run(agent, "are you there?")
    assert events[-1].kind == "error" and "not loaded" in events[-1].text
    assert DayLog(home.days).read_day(clock().date()).records[0].text == "are you there?"


def test_generation_failure_is_reported_logged_and_fires_the_error_trigger(agent, scripted, home, clock):
    from companion.errors import GenerationError

    scripted.queue(GenerationError("boom"))
    events = run(agent, "hi")
    assert events[-1].kind == "error" and "boom" in events[-1].text
    run(agent, "hello?")
    assert "Apologize" in scripted.prompts[-1][-1]["content"]


def test_warming_evaluates_the_stable_prefix(agent, scripted):
    run(agent, "hello")
    agent.warm()
    prefix = scripted.prefills[-1]
    assert prefix[0]["role"] == "system" and prefix[-1]["role"] == "assistant"
    run(agent, "next")
    assert scripted.prompts[-1][: len(prefix)] == prefix


def test_a_looping_reply_is_cut_and_trimmed(agent, scripted, home, clock):
    scripted.queue("Hello Ana!\n" + "I'm happy you're feeling better.\n" * 40)
    events = run(agent, "hi")
    done = events[-1]
    assert done.text == "Hello Ana!\nI'm happy you're feeling better."
    assert any(e.kind == "trimmed" for e in events)
    assert sum(1 for e in events if e.kind == "delta") < 40
    assert DayLog(home.days).read_day(clock().date()).records[-1].text == done.text


@pytest.mark.parametrize("request_text", ["Forget it.", "forget that", "忘了吧", "forget about it"])
def test_vague_forget_removes_nothing(agent, request_text):
    MemoryWriter(agent.store).append("MEMORY.md", "- Likes knitting (2026-11-28#1)\n- Visited Italy (2026-11-28#3)", "## Facts", actor=Actor.EDITOR)
    before = agent.store.read("MEMORY.md").body
    run(agent, request_text)
    assert agent.store.read("MEMORY.md").body == before


def test_forget_matches_whole_words(agent):
    MemoryWriter(agent.store).append("MEMORY.md", "- Likes knitting (2026-11-28#1)\n- Has a cat named Tom (2026-11-28#2)", "## Facts", actor=Actor.EDITOR)
    run(agent, "forget the cat")
    body = agent.store.read("MEMORY.md").body
    assert "cat named Tom" not in body and "knitting" in body


def test_a_pasted_megabyte_is_clipped_in_the_prompt_but_kept_in_the_log(agent, scripted, home, clock):
    huge = "x" * 1_000_000
    events = run(agent, huge)
    assert events[-1].kind == "done"
    final = scripted.prompts[-1][-1]["content"]
    assert len(final) < 20_000 and "more characters not shown" in final
    assert DayLog(home.days).read_day(clock().date()).records[0].text == huge


def test_a_loop_that_ends_the_reply_is_trimmed_too(agent, scripted):
    scripted.queue("Hi!\n\n" + "\n\n".join(["I'll keep this to a brief story for you."] * 3))
    events = run(agent, "hello")
    assert events[-1].text == "Hi!\n\nI'll keep this to a brief story for you."
