"""The recall block is sized to the machine: what the model reads in about `recall_seconds`."""

from __future__ import annotations

from datetime import datetime, timedelta

from companion.agent.recall import MIN_RECALL_TOKENS, budget_for_speed
from companion.agent.turn import Agent
from companion.memory.daylog import DayLog
from companion.settings import Settings


def test_budget_follows_the_measured_speed_within_the_turns_budget():
    assert budget_for_speed(600, None, 0.5) == 600  # not measured yet (or a server): the whole budget
    assert budget_for_speed(600, 5000.0, 0.5) == 600  # a GPU reads the whole budget in no time
    assert budget_for_speed(600, 400.0, 0.5) == 200
    assert budget_for_speed(600, 20.0, 0.5) == MIN_RECALL_TOKENS  # a slow CPU still gets the best snippet
    assert budget_for_speed(600, 400.0, 0.0) == 600  # 0: recall_seconds off, the budget decides


def _recalled(home, scripted, clock, speed: float | None) -> str:
    log = DayLog(home.days, lambda: clock.now - timedelta(days=30))
    for n in range(40):
        log.append("user", f"Hiking trip {n}: we walked the ridge above the lake and saw {n} goats near the hut")
    scripted.speed = speed
    agent = Agent(home, scripted, Settings(), clock=clock)
    try:
        list(agent.run_turn("Tell me about the hiking trips by the lake"))
    finally:
        agent.recall.close()
    return str(scripted.prompts[-1][-1]["content"])


def test_a_slow_machine_recalls_a_short_block_and_a_fast_one_the_whole_budget(home, scripted, clock):
    slow = _recalled(home, scripted, clock, 100.0)  # 0.5 s: about 50 tokens
    fast = _recalled(home, scripted, clock, None)
    assert "<context>" in slow and "goats" in slow
    assert slow.count("Hiking trip") < fast.count("Hiking trip")
    assert 1 <= slow.count("Hiking trip") <= 2
    memories = slow.split("<context>", 1)[1].strip().split("\n\n")[0]  # the recalled block, not the notes after it
    assert memories.startswith("Memories that may help") and scripted.count_tokens(memories) <= 50
