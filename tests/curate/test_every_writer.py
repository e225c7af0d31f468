"""Every writer of long-term memory asks the one policy: a secret, a hedge and a duplicate are
refused the same way by "remember", bootstrap, tool calls, daytime learning, the night,
Preferences names. Imports apply the policy's secret and injection rules to the user's own notes
(tests/portability/test_merge.py)."""

from __future__ import annotations

from datetime import date, datetime, timezone
from typing import Callable

import pytest

from companion.agent.learn import DaytimeLearner
from companion.agent.memory_requests import MemoryRequests
from companion.agent.tools import ToolExecutor
from companion.curate.apply import Context, apply_file
from companion.curate.names import set_name
from companion.curate.ops import Op
from companion.errors import RefusedWriteError
from companion.llm.base import ToolCall
from companion.memory.longterm import LongTermStore
from companion.memory.records import Record

SOURCE = "2026-11-30#1"
# (what the user said, the entry a writer would make, the words the refusal uses)
CASES = {
    "secret": ("my wifi password is bluebird42", "Wifi password is bluebird42", "never stored"),
    "hedge": ("maybe I like jazz, not sure", "Maybe likes jazz, not sure", "uncertain"),
    "duplicate": ("I'm allergic to peanuts", "Allergic to peanuts", "already in USER.md"),
}


@pytest.fixture
def store(home) -> LongTermStore:  # noqa: ANN001
    store = LongTermStore(home)
    store.append("USER.md", "- Allergic to peanuts (2026-11-01#1)", "## Profile", actor="user")
    return store


def _bodies(store: LongTermStore) -> tuple[str, str, str]:
    return tuple(store.read(name).body for name in ("USER.md", "MEMORY.md", "SOUL.md"))  # type: ignore[return-value]


def _record(said: str) -> Record:
    return Record(SOURCE, "2026-11-30T10:00:00+00:00", "user", said)


def remember(store: LongTermStore, said: str, entry: str) -> str:
    outcome = MemoryRequests(store).remember(entry, SOURCE, said=said)
    assert not outcome.changed
    return outcome.note


def bootstrap(store: LongTermStore, said: str, entry: str) -> str:
    notes = MemoryRequests(store).bootstrap(said, SOURCE, 1)
    assert len(notes) == 1 and notes[0].startswith("Not saved")
    return notes[0]


def tool(store: LongTermStore, said: str, entry: str) -> str:
    tools = ToolExecutor(store)
    tools.begin_turn(said)
    result = tools.run(ToolCall("context_update", {"file": "MEMORY.md", "action": "append", "content": f"- {entry}", "section": "## Facts"}))
    assert not result.ok
    return result.output


def learn(store: LongTermStore, said: str, entry: str) -> str:
    learner = DaytimeLearner(store, lambda: None, lambda: datetime(2026, 11, 30, 10, tzinfo=timezone.utc))
    outcomes = learner.apply([Op("add", "MEMORY.md", "Facts", entry, [SOURCE], origin="model")], _record(said), None)
    assert [o.status for o in outcomes] == ["refused"]
    return outcomes[0].reason


def sleep(store: LongTermStore, said: str, entry: str) -> str:
    ctx = Context({SOURCE: _record(said)}, date(2026, 11, 30))
    outcomes = apply_file(store, "MEMORY.md", [Op("add", "MEMORY.md", "Facts", entry, [SOURCE])], ctx)
    assert [o.status for o in outcomes] == ["refused"]
    return outcomes[0].reason


def names(store: LongTermStore, said: str, entry: str) -> str:
    with pytest.raises(RefusedWriteError) as caught:
        set_name(store, "MEMORY.md", "## Facts", entry.removeprefix("Name: "))
    return str(caught.value)


WRITERS: dict[str, Callable[[LongTermStore, str, str], str]] = {
    "remember": remember, "bootstrap": bootstrap, "tool": tool, "learn": learn, "sleep": sleep, "names": names,
}


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("writer", sorted(WRITERS))
def test_every_writer_refuses_the_same_way(store: LongTermStore, writer: str, case: str) -> None:
    said, entry, words = CASES[case]
    if writer == "bootstrap":  # first-conversation answers: names and what the user wants help with
        said = {"secret": "Help me with my wifi password is bluebird42", "hedge": "Help me with maybe learning jazz, not sure",
                "duplicate": "My name is Anna."}[case]
        if case == "duplicate":
            words = "already in USER.md: Name: Anna"
            store.append("USER.md", "- Name: Anna (2026-11-01#2)", "## Profile", actor="user")
    if writer == "names":
        entry = {"secret": "Name: bluebird42 password is bluebird42", "hedge": "Name: Anna (maybe)",
                 "duplicate": "Name: Anna"}[case]
        if case == "duplicate":  # one fact, one place: MEMORY.md does not repeat USER.md's name
            store.append("USER.md", "- Name: Anna (2026-11-01#2)", "## Profile", actor="user")
        if case == "hedge":
            words = "uncertain"
            entry = "Name: maybe Anna, not sure"
    before = _bodies(store)
    message = WRITERS[writer](store, said, entry)
    assert words in message
    assert _bodies(store) == before
