"""Disk full while appending and saving: a clear error, the previous content intact, and the next write works."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from companion.agent.turn import Agent
from companion.errors import StorageError
from companion.llm.scripted import ScriptedBackend
from companion.atomic import TEMP_PREFIX
from companion.memory.daylog import DayLog
from companion.memory.longterm import LongTermStore
from companion.paths import Home
from companion.curate.gate import MemoryWriter
from companion.memory.history import Actor

pytestmark = pytest.mark.reliability

REAL_WRITE = os.write
REAL_REPLACE = os.replace
REAL_FSYNC = os.fsync
REAL_FDOPEN = os.fdopen


def enospc(*_args: object) -> None:
    raise OSError(errno.ENOSPC, "No space left on device")


def half_then_enospc(fd: int, data: bytes) -> int:
    """The disk fills up in the middle of a write: half of it lands, then ENOSPC."""
    if len(data) > 1:
        REAL_WRITE(fd, data[: len(data) // 2])
    raise OSError(errno.ENOSPC, "No space left on device")


class _FullFile:
    """A file whose writes fail as on a full disk (what the temp file of a save sees)."""

    def __init__(self, handle) -> None:  # noqa: ANN001 - a binary file object
        self.handle = handle

    def write(self, data: bytes) -> int:
        raise OSError(errno.ENOSPC, "No space left on device")

    def __enter__(self) -> "_FullFile":
        return self

    def __exit__(self, *exc: object) -> None:
        self.handle.close()


def full_fdopen(fd: int, *args: object, **kwargs: object) -> _FullFile:
    return _FullFile(REAL_FDOPEN(fd, *args, **kwargs))


def temp_files(home: Home) -> list[Path]:
    return [p for root in (home.memory, home.state) for p in root.rglob(TEMP_PREFIX + "*")]


@pytest.mark.parametrize("fault", [enospc, half_then_enospc], ids=["nothing written", "half written"])
def test_day_log_append_on_a_full_disk(home: Home, clock, monkeypatch: pytest.MonkeyPatch, fault) -> None:
    log = DayLog(home.days, clock)
    first = log.append("user", "before the disk filled up")
    path = log.path_for(first.day)
    before = path.read_bytes()
    monkeypatch.setattr(os, "write", fault)
    with pytest.raises(StorageError, match="disk is full"):
        log.append("user", "x" * 10_000)
    monkeypatch.setattr(os, "write", REAL_WRITE)
    assert path.read_bytes() == before  # no partial line left behind
    second = log.append("user", "after freeing space")
    read = log.read_day(first.day)
    assert [r.text for r in read.records] == ["before the disk filled up", "after freeing space"]
    assert not read.problems and second.seq == first.seq + 1


@pytest.mark.parametrize("target", ["replace", "fsync", "fdopen"])
def test_long_term_save_on_a_full_disk(home: Home, monkeypatch: pytest.MonkeyPatch, target: str) -> None:
    store = LongTermStore(home)
    MemoryWriter(store).append("MEMORY.md", "- Likes tea (2026-11-29#1)", "## Facts", actor=Actor.EDITOR)
    path = home.long_term("MEMORY.md")
    before = path.read_bytes()
    monkeypatch.setattr(os, target, full_fdopen if target == "fdopen" else enospc)
    with pytest.raises(StorageError, match="disk is full"):
        MemoryWriter(store).append("MEMORY.md", "- Likes coffee (2026-11-29#2)", "## Facts", actor=Actor.EDITOR)
    monkeypatch.setattr(os, target, {"replace": REAL_REPLACE, "fsync": REAL_FSYNC, "fdopen": REAL_FDOPEN}[target])
    assert path.read_bytes() == before
    assert temp_files(home) == []
    MemoryWriter(store).append("MEMORY.md", "- Likes coffee (2026-11-29#2)", "## Facts", actor=Actor.EDITOR)
    assert b"- Likes coffee" in path.read_bytes() and b"- Likes tea" in path.read_bytes()


def test_chat_on_a_full_disk_shows_the_error_and_keeps_going(home: Home, clock, monkeypatch: pytest.MonkeyPatch) -> None:
    agent = Agent(home, ScriptedBackend(["First reply.", "Second reply."]), clock=clock)
    assert [e.kind for e in agent.run_turn("hello")][-1] == "done"
    log_path = agent.daylog.path_for(clock().date())
    before = log_path.read_bytes()
    monkeypatch.setattr(os, "write", half_then_enospc)
    with pytest.raises(StorageError, match="disk is full") as caught:
        list(agent.run_turn("this message cannot be saved"))
    assert "nothing was lost" in str(caught.value)
    monkeypatch.setattr(os, "write", REAL_WRITE)
    assert log_path.read_bytes() == before
    events = list(agent.run_turn("and now?"))
    assert events[-1].kind == "done" and events[-1].text == "Second reply."
    texts = [r.text for r in agent.daylog.read_day(clock().date()).records if r.role in ("user", "assistant")]
    assert texts == ["hello", "First reply.", "and now?", "Second reply."]


def test_the_app_worker_shows_disk_full_and_keeps_serving(home: Home, clock, qtbot, monkeypatch: pytest.MonkeyPatch) -> None:
    from companion.agent.session import ChatSession
    from companion.settings import Settings
    from companion.ui.worker import ModelWorker

    session = ChatSession(home, Settings(), clock=clock)
    session.adopt(ScriptedBackend(["Still here."]))
    worker = ModelWorker(session)
    worker.auto_warm = False
    shown: list[tuple[str, str]] = []
    worker.event.connect(lambda event: shown.append((event.kind, event.text)))
    monkeypatch.setattr(os, "write", enospc)
    worker.run_turn("saved later, please")
    monkeypatch.setattr(os, "write", REAL_WRITE)
    assert shown and shown[-1][0] == "error" and "disk is full" in shown[-1][1]
    shown.clear()
    worker.run_turn("and now?")
    assert shown[-1] == ("done", "Still here.")
