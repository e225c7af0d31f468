"""The recall block is sized by the question, not by the home's age: a year of daily chat recalls no more."""

from __future__ import annotations

import json
import random
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

import pytest

from companion.memory.search import RankSettings
from companion.agent.turn import Agent
from companion.paths import Home
from companion.settings import Settings

TOPICS = [
    "I went running by the river before work and my knee felt fine",
    "Dinner was pasta with mushrooms, we should cook that again",
    "Work was busy, the quarterly report is due on Friday",
    "My sister called about the trip to Lisbon in the summer",
    "I practised the cello for an hour, the new piece is hard",
    "The cat knocked a plant off the shelf again",
    "We watched a documentary about whales last night",
    "I'm reading a novel set in Kyoto, it is slow but lovely",
    "今天下雨了，我在家看书喝茶",
    "周末和朋友去爬山，风景很好",
]
DETAILS = ["with Anna", "in the morning", "after lunch", "late at night", "before the meeting", "with the neighbours",
           "on the balcony", "at the old café", "while it snowed", "on the train home"]
QUESTIONS = ["How is my knee after running?", "What did my sister say about Lisbon?", "我周末做了什么？",
             "What am I reading?", "How is the cello going?"]


def _home(root: Path, days: int, seed: int = 3) -> Home:
    """`days` days of ~30 turns each, written as day logs (the format the app appends)."""
    home = Home(root)
    from companion.memory.setup import ensure_home

    ensure_home(home, "en")
    rng = random.Random(seed)
    start = date(2026, 11, 30) - timedelta(days=days)
    for offset in range(days):
        day = start + timedelta(days=offset)
        path = home.days / f"{day:%Y-%m}" / f"{day.isoformat()}.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        lines = []
        for seq in range(1, 31):
            role = "user" if seq % 2 else "assistant"
            said = f"{rng.choice(TOPICS)}, {rng.choice(DETAILS)}, day {offset}"  # every turn its own text
            text = said if role == "user" else "That sounds good. " + said
            stamp = datetime(day.year, day.month, day.day, 8 + seq // 3, seq, tzinfo=timezone.utc).isoformat()
            lines.append(json.dumps({"id": f"{day.isoformat()}#{seq}", "ts": stamp, "role": role, "text": text},
                                    ensure_ascii=False))
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return home


def _block_sizes(home: Home) -> list[tuple[int, int]]:
    settings = Settings()
    settings.memory.prompt_budget_tokens = 2048
    clock = lambda: datetime(2026, 12, 1, 12, tzinfo=timezone.utc)  # noqa: E731
    agent = Agent(home, None, settings, clock=clock)
    try:
        agent.recall.ready.wait(120)
        sizes = []
        for question in QUESTIONS:
            ctx = agent.memory_context()
            packed = agent.recall.for_turn(question, ctx)
            sizes.append((len(packed.hits), packed.tokens))
        return sizes
    finally:
        agent.recall.close()


@pytest.mark.slow
def test_a_year_old_home_recalls_no_more_than_a_month_old_one(tmp_path):
    month = _block_sizes(_home(tmp_path / "month", 30))
    year = _block_sizes(_home(tmp_path / "year", 365))
    for (month_hits, month_tokens), (year_hits, year_tokens) in zip(month, year):
        assert 0 < year_hits <= RankSettings().max_recalled
        assert year_tokens <= month_tokens * 1.25 + 40  # the same bound, whatever the age
    assert max(tokens for _, tokens in year) < 700  # far below the 2,048 budget: only what the question needs


def test_recall_ranks_by_words_only_as_deep_as_it_keeps_and_by_meaning_as_deep_as_the_budget(tmp_path, monkeypatch):
    from companion.agent import recall as recall_module

    asked: list = []
    real_search = recall_module.search
    monkeypatch.setattr(recall_module, "search", lambda index, query, *a: asked.append(query) or real_search(index, query, *a))
    home = _home(tmp_path / "home", 20)
    settings = Settings()
    agent = Agent(home, None, settings, clock=lambda: datetime(2026, 12, 1, 12, tzinfo=timezone.utc), embedder=None)
    try:
        agent.recall.ready.wait(120)
        for budget in (512, 2048):
            settings.memory.prompt_budget_tokens = budget
            ctx = agent.memory_context()
            hits = agent.recall.hits_for("How is my knee after running?", ctx)
            shown = recall_module.candidates_for(ctx.recall_budget, agent.recall.k)
            kept = min(shown, agent.recall.settings.max_recalled)
            assert asked[-1].k == 2 * kept and asked[-1].meaning_depth == 2 * shown
            assert 0 < len(hits) <= kept and all("knee" in h.item.text for h in hits[:5])
    finally:
        agent.recall.close()
