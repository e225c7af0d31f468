"""A model that cannot load (too little memory, a corrupt file): a clear error, and memory and chat history still work."""

from __future__ import annotations

from pathlib import Path

import pytest

from companion.agent.turn import Agent
from companion.errors import ModelError, ModelMemoryError
from companion.llm.hardware import Capabilities
from companion.memory.longterm import LongTermStore
from companion.paths import Home
from companion.settings import ModelSettings
from companion.curate.gate import MemoryWriter
from companion.memory.history import Actor

pytestmark = pytest.mark.reliability


def _load(path: Path, caps: Capabilities | None = None, n_ctx: int = 2048):  # noqa: ANN202 - a Backend
    from companion.llm.loader import load_backend

    return load_backend(ModelSettings(path=str(path), n_ctx=n_ctx, n_threads=1, n_gpu_layers=0), caps=caps)


def _app_still_usable(home: Home, clock) -> None:  # noqa: ANN001
    agent = Agent(home, None, clock=clock)
    events = list(agent.run_turn("are you there?"))
    assert [e.kind for e in events][0] == "user" and events[-1].kind == "error"
    assert "not loaded" in events[-1].text
    saved = [r.text for r in agent.daylog.read_day(clock().date()).records if r.role == "user"]
    assert saved == ["are you there?"]
    MemoryWriter(LongTermStore(home)).append("MEMORY.md", "- Edited without a model (2026-11-29#1)", "## Facts", actor=Actor.EDITOR)
    assert "Edited without a model" in LongTermStore(home).read("MEMORY.md").body


def test_too_little_memory_for_the_model(home: Home, clock, tiny_model_path: Path) -> None:
    tiny_machine = Capabilities(physical_cores=1, ram_total=64 * 2**20, ram_available=2**20)
    with pytest.raises(ModelMemoryError, match="Close other programs, lower the context size"):
        _load(tiny_model_path, tiny_machine, n_ctx=8192)  # weights + an 8k-token cache: ~0.3 GB
    _app_still_usable(home, clock)


@pytest.mark.parametrize("damage", ["truncated", "not a model", "empty"])
def test_a_damaged_model_file(home: Home, clock, tiny_model_path: Path, tmp_path: Path, damage: str) -> None:
    bad = tmp_path / "model.gguf"
    head = tiny_model_path.read_bytes()[: 4 * 1024 * 1024]
    bad.write_bytes({"truncated": head, "not a model": b"<html>404</html>", "empty": b""}[damage])
    with pytest.raises(ModelError) as caught:
        _load(bad)
    assert "model.gguf" in str(caught.value)
    _app_still_usable(home, clock)
