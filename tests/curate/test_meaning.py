"""Forget by meaning: a request finds the entries it means by their content words, in English and
Chinese, and nothing unrelated; the chat shows the matches and removes them on the user's yes."""

from __future__ import annotations

import pytest

from companion.curate.requests import MemoryRequests
from companion.curate.gate import MemoryWriter
from companion.curate.meaning import content_words, forget_matcher
from companion.memory.dedupe import normalize
from companion.memory.history import Actor
from companion.memory.longterm import LongTermStore
from companion.memory.setup import ensure_home
from companion.paths import Home

ENTRIES = ["- Interested in Spanish (2026-11-01#1)", "- Lives in Spain (2026-11-01#2)", "- Has a cat named Tom (2026-11-01#3)",
           "- Loves category theory (2026-11-01#4)", "- Sister: Maya (2026-11-01#5)", "- 女儿叫朵朵 (2026-11-01#6)",
           "- 儿子叫豆豆 (2026-11-01#7)", "- 喜欢喝茶 (2026-11-01#8)", "- 喜欢喝咖啡 (2026-11-01#9)", "- 对西班牙语感兴趣 (2026-11-01#10)"]


@pytest.mark.parametrize(("request_text", "expected"), [
    ("that I'm learning Spanish", ["Interested in Spanish"]),
    ("the cat", ["Has a cat named Tom"]),
    ("my sister's name", ["Sister: Maya"]),
    ("我女儿的名字", ["女儿叫朵朵"]),
    ("我喜欢喝咖啡", ["喜欢喝咖啡"]),
    ("我在学西班牙语", ["对西班牙语感兴趣"]),
    ("that I like opera", []),
    ("我住在北京", []),
])
def test_a_request_finds_the_entries_it_means_and_no_others(request_text: str, expected: list[str]) -> None:
    matcher = forget_matcher(request_text)
    assert matcher is not None
    found = [line[2:].rsplit(" (", 1)[0] for line in ENTRIES if matcher(normalize(line))]
    assert found == expected


@pytest.mark.parametrize("vague", ["it", "that", "忘了吧", "这个", "about it"])
def test_a_vague_request_means_nothing(vague: str) -> None:
    assert forget_matcher(vague) is None


def test_content_words_leave_out_generic_verbs() -> None:
    assert content_words("that I'm learning Spanish") == ["spanish"]
    assert content_words("my name") == ["name"]  # nothing more specific: the generic word counts


def _requests(home: Home) -> MemoryRequests:
    ensure_home(home, "en")
    store = LongTermStore(home)
    MemoryWriter(store).append("USER.md", "\n".join(ENTRIES), "## Profile", actor=Actor.EDITOR)
    return MemoryRequests(store)


def test_the_chat_shows_the_matches_and_removes_them_on_yes(home: Home) -> None:
    requests = _requests(home)
    shown = requests.propose_forget("that I'm learning Spanish")
    assert "Interested in Spanish" in shown.note and "Lives in Spain" not in shown.note and not shown.changed
    assert "Interested in Spanish" in requests.store.read("USER.md").body
    done = requests.confirm("yes")
    assert done is not None and done.changed
    body = requests.store.read("USER.md").body
    assert "Interested in Spanish" not in body and "Lives in Spain" in body and "对西班牙语感兴趣" in body


def test_no_keeps_them_and_another_message_drops_the_question(home: Home) -> None:
    requests = _requests(home)
    shown = requests.propose_forget("我女儿的名字")
    assert shown.note.startswith("记忆里找到这些：女儿叫朵朵")
    kept = requests.confirm("不")
    assert kept is not None and kept.note.startswith("已保留") and "女儿叫朵朵" in requests.store.read("USER.md").body
    requests.propose_forget("the cat")
    assert requests.confirm("what's the weather like?") is None and requests.confirm("yes") is None
    assert "Has a cat named Tom" in requests.store.read("USER.md").body


def test_forget_everywhere_offers_the_same_matches(home: Home) -> None:
    from companion.curate.requests import forget_everywhere
    from companion.memory.daylog import DayLog

    requests = _requests(home)
    daylog = DayLog(home.days)
    daylog.append("user", "I'm learning Spanish at night school.")
    daylog.append("user", "I live in Spain.")
    erased = forget_everywhere(requests.store, "that I'm learning Spanish", daylog, dry_run=True)
    assert erased is not None and erased.records == 1
