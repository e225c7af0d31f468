"""The chat session owns the model: loading, replacing and closing stop background work first."""

from __future__ import annotations

import pytest

from companion.agent.session import ChatSession
from companion.errors import ModelNotFoundError
from companion.llm.base import GenerationOptions, collect
from companion.llm.priority import BackgroundView, ForegroundView
from companion.llm.scripted import ScriptedBackend
from companion.settings import Settings


def test_chat_gets_the_foreground_view_and_background_work_a_yielding_one(home, clock) -> None:
    models = [ScriptedBackend(["first"]), ScriptedBackend(["second"])]
    session = ChatSession(home, Settings(), clock=clock, loader=lambda _settings: models.pop(0))
    assert session.background() is None and session.info is None  # nothing loaded yet
    session.load()
    first_view = session.agent.backend
    assert isinstance(first_view, ForegroundView)
    background = session.background()
    assert isinstance(background, BackgroundView)
    session.load()  # replacing: background work is cancelled, the old model closed
    assert background.cancelled and first_view.shared.inner.closed
    assert collect(background.stream_chat([{"role": "user", "content": "x"}], GenerationOptions()))[2] == "cancelled"
    assert session.info is not None and session.agent.backend is not first_view
    session.close()
    assert session.agent.backend is None and not session.loaded


def test_a_failed_load_leaves_no_model_and_says_why(home, clock) -> None:
    def missing(_settings):
        raise ModelNotFoundError("No model file at /nowhere.gguf.")

    session = ChatSession(home, Settings(), clock=clock, loader=missing)
    session.adopt(ScriptedBackend())
    with pytest.raises(ModelNotFoundError):
        session.load()
    assert session.agent.backend is None and session.background() is None


def test_a_borrowed_model_is_left_open(home, clock) -> None:
    backend = ScriptedBackend()
    session = ChatSession(home, Settings(), clock=clock)
    session.adopt(backend, owned=False)
    session.close()
    assert not backend.closed


def test_learning_does_not_depend_on_warming(home, clock) -> None:
    backend = ScriptedBackend(["Noted."])
    session = ChatSession(home, Settings(), clock=clock)
    session.adopt(backend)
    list(session.agent.run_turn("I'm allergic to shellfish, by the way."))
    session.learn()  # no warm-up at all
    memory = session.agent.store.read("USER.md").body + session.agent.store.read("MEMORY.md").body
    assert "llergic to shellfish" in memory and backend.prefills == []
    session.warm()
    assert backend.prefills and backend.prefills[-1][0]["role"] == "system"
