"""A long-term file near its size cap: the prompt stays within budget, and the nightly job keeps working."""

from __future__ import annotations

import pytest

from companion.agent.turn import Agent
from companion.llm.scripted import ScriptedBackend
from companion.memory.daylog import DayLog
from companion.memory.longterm import MAX_FILE_BYTES, LongTermStore
from companion.paths import Home
from companion.settings import Settings
from companion.curate.gate import MemoryWriter
from companion.memory.history import Actor

pytestmark = pytest.mark.reliability

ENTRY = "- Fact number {i:06d} about the garden and the weather (2026-11-28#{i})\n"


def fill_memory(home: Home, target_bytes: int) -> int:
    """MEMORY.md grown to just under `target_bytes` with distinct cited entries; returns its size."""
    store = LongTermStore(home)
    doc = store.read("MEMORY.md")
    room = target_bytes - len(doc.raw.encode("utf-8")) - 200
    entries = []
    used = 0
    i = 0
    while used + len(ENTRY.format(i=i)) < room:
        entries.append(ENTRY.format(i=i))
        used += len(entries[-1])
        i += 1
    body = doc.body.replace("## Facts\n", "## Facts\n" + "".join(entries), 1)
    MemoryWriter(store).write("MEMORY.md", doc.with_body(body), expected_sha=doc.sha, actor=Actor.EDITOR)
    return home.long_term("MEMORY.md").stat().st_size


def test_a_memory_file_near_its_cap_stays_within_the_prompt_budget(home: Home, clock) -> None:
    size = fill_memory(home, MAX_FILE_BYTES)
    assert size > 0.99 * MAX_FILE_BYTES - 300
    settings = Settings()
    backend = ScriptedBackend(n_ctx=4096)
    events = list(Agent(home, backend, settings, clock=clock).run_turn("What do you remember about my garden?"))
    assert events[-1].kind == "done"
    prompt_tokens = sum(backend.count_tokens(m["content"]) for m in backend.prompts[-1])
    assert prompt_tokens <= backend.info.n_ctx - settings.model.max_reply_tokens


def test_sleep_at_the_size_cap_compacts_instead_of_failing(home: Home, clock) -> None:
    from companion.sleep.job import SleepJob

    fill_memory(home, MAX_FILE_BYTES)
    log = DayLog(home.days, clock)
    for i in range(8):
        log.append("user", f"I decided to plant {i} rose bushes along the fence.")
    clock.advance(days=1)
    SleepJob(home, None, clock=clock).run()  # today: StorageError "would grow over 1000 kB"
    assert home.long_term("MEMORY.md").stat().st_size <= MAX_FILE_BYTES
    assert "rose bushes" in LongTermStore(home).read("MEMORY.md").body
    archive = (home.memory / "archive" / "MEMORY.md").read_text(encoding="utf-8")
    assert "Fact number 000000" in archive  # the oldest went to the archive, not away
