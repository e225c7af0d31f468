"""Recall by meaning with the real built-in embedder: fusion on bilingual memories, background embedding,
privacy (private turns, forget everywhere), damage to the vector store, and the fallback to words."""

from __future__ import annotations

import json
from datetime import date, datetime, timedelta, timezone
from typing import Sequence

import numpy as np
import pytest

from companion.curate.requests import forget_everywhere
from companion.agent.recall import Recall
from companion.cli import main
from companion.curate.gate import MemoryWriter
from companion.errors import ModelError
from companion.llm import embed as EMB
from companion.memory.daylog import DayLog
from companion.memory.history import Actor
from companion.memory.longterm import LongTermStore
from companion.memory.search import RankSettings, SearchQuery, search
from companion.memory.search.vectors import VectorStore, store_path, text_key

DAY = datetime(2026, 3, 2, 10, tzinfo=timezone.utc)

MEMORIES = [
    "I'm allergic to shellfish, so no shrimp or crab for me.",
    "我最近在学弹吉他，每天练半个小时。",
    "My locker code at the gym is QX-4471.",
    "We watched a movie about space travel last night.",
    "The weather has been rainy all week.",
    "我们周末去爬山了，风景很好。",
    "I finished reading a novel about a detective in Tokyo.",
    "My manager asked me to prepare slides for Monday.",
]


class Counting:
    """The real embedder, counting what it is asked to embed."""

    def __init__(self, inner: EMB.BuiltinEmbedder) -> None:
        self.inner = inner
        self.id, self.label, self.dim, self.floor = inner.id, inner.label, inner.dim, inner.floor
        self.chinese_floor = inner.chinese_floor
        self.seen: list[str] = []

    def passages(self, texts: Sequence[str]) -> np.ndarray:
        self.seen.extend(texts)
        return self.inner.passages(texts)

    def query(self, text: str) -> np.ndarray:
        return self.inner.query(text)

    def close(self) -> None:
        pass


def _log(home, texts: list[str], **extra: object) -> DayLog:
    log = DayLog(home.days, lambda: DAY)
    for text in texts:
        log.append("user", text, **extra)
    return log


def _recall(home, embedder) -> Recall:
    recall = Recall(home, LongTermStore(home), embedder=embedder)
    assert recall.wait_embedded(60)
    return recall


def _top(recall: Recall, text: str, settings: RankSettings | None = None, k: int = 3) -> list[str]:
    hits = search(recall.index, SearchQuery(text, k=k, today=DAY.date()), settings or recall.settings, recall.semantic)
    return [h.item.text for h in hits]


def test_fusion_finds_paraphrases_other_languages_and_names(home, embedder):
    _log(home, MEMORIES)
    recall = _recall(home, embedder)
    try:
        words = RankSettings(semantic=False)
        meaning = RankSettings(lexical=False)
        # a paraphrase shares no word with the memory: only meaning finds it
        assert _top(recall, "Which seafood can't I eat?", words) == []
        assert _top(recall, "Which seafood can't I eat?")[0] == MEMORIES[0]
        # across languages, both ways
        assert _top(recall, "我对什么食物过敏？")[0] == MEMORIES[0]
        assert _top(recall, "What instrument am I learning?")[0] == MEMORIES[1]
        # a code only words find first; fused keeps it first
        assert _top(recall, "QX-4471", words)[0] == MEMORIES[2]
        assert _top(recall, "QX-4471")[0] == MEMORIES[2]
        # meaning alone ranks the rest of the memories below the relevance bar: nothing unrelated comes back
        assert MEMORIES[4] not in _top(recall, "Which seafood can't I eat?", meaning, k=8)
    finally:
        recall.close()


def test_companion_search_and_the_tool_use_the_same_hybrid_ranking(home, embedder, monkeypatch, capsys):
    MemoryWriter(LongTermStore(home)).append("USER.md", "- Allergic to shellfish (2026-03-02#1)", "## Health",
                                             actor=Actor.EDITOR)
    monkeypatch.delenv("COMPANION_EMBEDDER")
    assert main(["search", "贝类", "--json"]) == 0
    found = json.loads(capsys.readouterr().out)
    assert found and "shellfish" in found[0]["text"]
    assert main(["search", "贝类", "--words-only", "--json"]) == 0  # no Chinese word in the memory: the dictionary's
    assert json.loads(capsys.readouterr().out)[0]["text"] == found[0]["text"]
    recall = _recall(home, embedder)
    try:
        result = json.loads(recall.tool({"query": "贝类"}, DAY.date(), lambda t: len(t.split())))
        assert "shellfish" in result[0]["text"]
    finally:
        recall.close()


def test_embedding_is_incremental_and_survives_a_deleted_or_corrupt_store(home, embedder):
    counting = Counting(embedder)
    log = _log(home, MEMORIES[:4])
    recall = _recall(home, counting)
    assert sorted(counting.seen) == sorted(MEMORIES[:4])
    log.append("user", MEMORIES[4])
    recall._wake.set()
    recall.embedded.clear()
    assert recall.wait_embedded(60)
    assert counting.seen[4:] == [MEMORIES[4]]  # only the new turn
    recall.close()
    path = store_path(home.state, embedder.id)
    path.unlink()
    again = _recall(home, counting)
    assert len(counting.seen) == 10 and _top(again, "Which seafood can't I eat?")[0] == MEMORIES[0]
    again.close()
    path.write_bytes(b"\x00garbage" * 512)
    for suffix in ("-wal", "-shm"):
        path.with_name(path.name + suffix).unlink(missing_ok=True)
    third = _recall(home, counting)
    assert third.semantic is not None and third.semantic.store.rebuilt
    assert _top(third, "我对什么食物过敏？")[0] == MEMORIES[0]
    third.close()


def test_private_turns_are_never_embedded(home, embedder):
    secret = "My bank PIN hint is the name of my first goldfish."
    _log(home, MEMORIES[:2])
    _log(home, [secret], private=True)
    counting = Counting(embedder)
    recall = _recall(home, counting)
    try:
        assert secret not in counting.seen
        assert recall.semantic is not None and recall.semantic.store.missing([text_key(secret)]) == [text_key(secret)]
        assert secret not in _top(recall, "What was my first pet fish called?", k=5)
    finally:
        recall.close()


def test_forget_everywhere_removes_the_vectors(home, embedder):
    log = _log(home, MEMORIES)
    store = LongTermStore(home)
    recall = _recall(home, embedder)
    assert _top(recall, "Which seafood can't I eat?")[0] == MEMORIES[0]
    erased = forget_everywhere(store, "shellfish", log, recall.index)
    assert erased is not None and erased.records == 1
    assert MEMORIES[0] not in _top(recall, "Which seafood can't I eat?", k=8)
    assert not any("shellfish" in t for t in _top(recall, "食物过敏", k=8))
    recall.close()
    vectors = VectorStore(store_path(home.state, embedder.id), embedder.id, embedder.dim)
    assert vectors.missing([text_key(MEMORIES[0])]) == [text_key(MEMORIES[0])]
    assert vectors.missing([text_key(MEMORIES[1])]) == []
    vectors.close()


def test_no_embedder_falls_back_to_words_and_says_so(home, monkeypatch):
    def broken(self: object) -> None:
        raise ModelError("The built-in embedder cannot load its weights (test). Reinstall Companion.")

    monkeypatch.delenv("COMPANION_EMBEDDER")
    monkeypatch.setattr(EMB.BuiltinEmbedder, "__init__", broken)
    choice = EMB.load_embedder(home.models)
    assert choice.embedder is None and "cannot load its weights" in choice.problem
    _log(home, MEMORIES)
    recall = Recall(home, LongTermStore(home))
    try:
        assert recall.wait_embedded(30)
        assert recall.semantic is None and recall.status().startswith("by words only (")
        assert "cannot load" in recall.status()
        assert _top(recall, "QX-4471")[0] == MEMORIES[2]
        assert _top(recall, "Which seafood can't I eat?") == []
    finally:
        recall.close()


def test_turned_off_embedding_is_reported(home):
    recall = Recall(home, LongTermStore(home))
    try:
        assert recall.wait_embedded(30)
        assert "turned off" in recall.status()
    finally:
        recall.close()


def test_a_new_embedder_takes_over_after_filling_its_store(home, embedder):
    _log(home, MEMORIES)
    recall = _recall(home, embedder)
    renamed = Counting(embedder)
    renamed.id, renamed.label = "test-stronger", "Stronger test embedder"
    try:
        old_path = recall.semantic.store.path
        recall.use_embedder(renamed)
        assert "switching to Stronger test embedder" in recall.status()
        assert _top(recall, "我对什么食物过敏？")[0] == MEMORIES[0]  # still answered meanwhile
        assert recall.wait_embedded(60)
        assert recall.semantic.label == "Stronger test embedder" and not old_path.exists()
        assert sorted(renamed.seen) == sorted(set(renamed.seen))
        assert _top(recall, "我对什么食物过敏？")[0] == MEMORIES[0]
    finally:
        recall.close()
