"""Daytime learning: rules at once, the model path grounded and in the background."""

from __future__ import annotations

import pytest

from companion.agent.turn import Agent
from companion.llm.priority import SharedBackend
from companion.llm.scripted import ScriptedBackend
from companion.memory.daylog import DayLog
from companion.agent.learn import DaytimeLearner, grounded, worth_learning


def run(agent, text):
    return list(agent.run_turn(text))


def test_a_statement_about_the_user_is_learned_after_the_reply(home, clock, scripted):
    agent = Agent(home, scripted, clock=clock)
    run(agent, "I'm allergic to shellfish, by the way.")
    assert "shellfish" not in agent.store.read("USER.md").body + agent.store.read("MEMORY.md").body
    agent.learn_after_turn()  # idle time after the reply
    memory = agent.store.read("USER.md").body + agent.store.read("MEMORY.md").body
    assert "llergic to shellfish (2026-11-29#1)" in memory
    assert agent.store.history.versions("USER.md")[0].actor == "learn" or agent.store.history.versions("MEMORY.md")[0].actor == "learn"
    run(agent, "what should I cook?")
    assert "shellfish" in scripted.prompts[-1][0]["content"]  # the next turn already knows


def test_small_talk_is_not_learned(home, clock, scripted):
    agent = Agent(home, scripted, clock=clock)
    before = agent.store.read("MEMORY.md").raw, agent.store.read("USER.md").raw
    for text in ("ok thanks", "hello", "好的"):
        run(agent, text)
        agent.learn_after_turn()
    assert (agent.store.read("MEMORY.md").raw, agent.store.read("USER.md").raw) == before


def test_the_setting_turns_it_off(home, clock, scripted):
    from companion.settings import Settings

    settings = Settings()
    settings.memory.auto_learn = False
    agent = Agent(home, scripted, settings, clock=clock)
    run(agent, "I'm allergic to shellfish.")
    agent.learn_after_turn()
    assert "shellfish" not in agent.store.read("USER.md").body + agent.store.read("MEMORY.md").body


def test_model_path_keeps_only_grounded_facts_and_yields_to_chat(home, clock):
    inner = ScriptedBackend()
    shared = SharedBackend(inner, quiet_s=0.0)
    agent = Agent(home, shared.foreground(owner=True), clock=clock, background=shared.background)
    inner.queue(
        "Nice hobby!",
        {"facts": [
            {"target": "MEMORY", "text": "Restores old Vespa scooters in the garage"},
            {"target": "USER", "text": "Is a famous astronaut who lives on Mars"},
        ]},
    )
    run(agent, "On weekends my hobby is restoring old Vespa scooters in the garage")  # no rule hears it: the model path runs
    agent.learn_after_turn()
    agent.learner.wait(10)
    memory = agent.store.read("MEMORY.md").body
    assert "Restores old Vespa scooters in the garage (2026-11-29#1)" in memory
    assert "astronaut" not in memory + agent.store.read("USER.md").body
    assert inner.options[1].json_schema is not None  # grammar-constrained
    assert inner.prefills  # the chat prefix is warmed again after the background call


def test_secrets_and_duplicates_are_refused(home, clock):
    inner = ScriptedBackend()
    shared = SharedBackend(inner, quiet_s=0.0)
    agent = Agent(home, shared.foreground(owner=True), clock=clock, background=shared.background)
    inner.queue("ok", {"facts": [{"target": "MEMORY", "text": "my bank password is hunter22 okay"}]})
    run(agent, "my bank password is hunter22 okay, I always forget it")
    agent.learn_after_turn()
    agent.learner.wait(10)
    assert "hunter22" not in agent.store.read("MEMORY.md").raw + agent.store.read("USER.md").raw


@pytest.mark.parametrize("fact,source,expected", [
    ("Restores Vespa scooters", "I restore old Vespa scooters", True),
    ("Works as an astronaut", "I like tea", False),
    ("喜欢喝茶", "我喜欢喝茶", True),
])
def test_grounded(fact, source, expected):
    assert grounded(fact, source) is expected


def test_worth_learning(home, clock):
    log = DayLog(home.days, clock)
    assert worth_learning(log.append("user", "My daughter starts school in May"), False)
    assert not worth_learning(log.append("user", "thanks!"), False)
    assert not worth_learning(log.append("user", "What is the capital of France?"), False)
    assert worth_learning(log.append("user", "What is the capital of France?"), True)
