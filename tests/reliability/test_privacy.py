"""No network unless asked for, files readable by the user only, and no settings secret in what leaves the app."""

from __future__ import annotations

import os
import socket
import stat
from pathlib import Path

import pytest

from companion.agent.events import Failed
from companion.agent.turn import Agent
from companion.errors import CompanionError
from companion.llm.scripted import ScriptedBackend
from companion.memory.longterm import LongTermStore
from companion.portability.skill_export import export_memory
from companion.paths import Home
from companion.runtime import open_home
from companion.sleep.job import SleepJob
from companion.curate.gate import MemoryWriter
from companion.memory.history import Actor

pytestmark = pytest.mark.reliability


class NetworkAttempt(AssertionError):
    pass


@pytest.fixture
def no_network(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Any attempt to reach a network address fails the test and is recorded."""
    attempts: list[str] = []
    real_connect = socket.socket.connect

    def guarded_connect(self: socket.socket, address: object) -> None:
        if self.family in (socket.AF_INET, socket.AF_INET6):
            attempts.append(f"connect {address}")
            raise NetworkAttempt(f"network connection attempted: {address}")
        real_connect(self, address)

    def guarded_lookup(host: object, *args: object, **kwargs: object) -> list:
        attempts.append(f"lookup {host}")
        raise NetworkAttempt(f"name lookup attempted: {host}")

    monkeypatch.setattr(socket.socket, "connect", guarded_connect)
    monkeypatch.setattr(socket.socket, "connect_ex", guarded_connect)
    monkeypatch.setattr(socket, "getaddrinfo", guarded_lookup)
    monkeypatch.setattr(socket, "create_connection", lambda address, *a, **k: guarded_lookup(address))
    return attempts


def everyday_use(home: Home, clock, backend) -> None:  # noqa: ANN001 - a clock and a Backend
    """A chat (with recall), an edit, a night's sleep and an export."""
    agent = Agent(home, backend, clock=clock)
    for text in ("My name is Lea and I live in Lyon.", "I like green tea.", "remember I water the plants on Sundays"):
        assert list(agent.run_turn(text))[-1].kind in ("done", "error")
    MemoryWriter(LongTermStore(home)).append("MEMORY.md", "- Prefers metric units (2026-11-29#1)", "## Facts", actor=Actor.EDITOR)
    clock.advance(days=1)
    SleepJob(home, backend, clock=clock).run()
    export_memory(home, home.root.parent / "export")


def test_chat_sleep_and_export_open_no_network_connection(home: Home, clock, no_network: list[str]) -> None:
    everyday_use(home, clock, ScriptedBackend())
    assert no_network == []


@pytest.mark.model
def test_the_real_model_opens_no_network_connection(home: Home, clock, tiny_model_path: Path, no_network: list[str]) -> None:
    from companion.llm.llama import LlamaBackend

    backend = LlamaBackend(tiny_model_path, n_ctx=1024, n_threads=2)
    try:
        agent = Agent(home, backend, clock=clock)
        agent.settings.model.max_reply_tokens = 16
        assert list(agent.run_turn("Hello, I like green tea."))[-1].kind == "done"
    finally:
        backend.close()
    assert no_network == []


@pytest.mark.skipif(os.name != "posix", reason="POSIX permission bits")
def test_files_under_the_home_are_private(home: Home, clock) -> None:
    with open_home(home.root):
        everyday_use(home, clock, ScriptedBackend())
    exposed = []
    for path in [home.root, *home.root.rglob("*")]:
        mode = stat.S_IMODE(path.stat().st_mode)
        if path.is_file() and mode & 0o077:
            exposed.append(f"{path.relative_to(home.root)} {oct(mode)}")
    assert exposed == [], "\n".join(exposed)


def test_the_remote_api_key_stays_out_of_logs_exports_and_errors(
    home: Home, clock, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    import logging
    import zipfile

    from companion.llm.apikeys import KeyStore
    from companion.llm.remote import RemoteBackend
    from companion.portability.skill_export import ExportOptions
    from companion.settings import ModelSettings

    key = "sk-live-SECRET0123456789abcdefXYZ"
    settings = ModelSettings(backend="openai", base_url="http://127.0.0.1:9/v1", model_name="m", remote_timeout_s=2)
    keys = KeyStore(home, use_keyring=False)
    keys.set(settings.base_url, key)
    caplog.set_level(logging.DEBUG)
    with pytest.raises(CompanionError) as failed:  # nothing listens on port 9
        RemoteBackend.from_settings(settings, api_key=keys.get(settings.base_url))
    agent = Agent(home, None, clock=clock)
    events = list(agent.run_turn("hello over there"))
    events.append(Failed(str(failed.value)))
    export_memory(home, tmp_path / "out.zip", ExportOptions(as_zip=True, include_logs=True))
    exported = b""
    with zipfile.ZipFile(tmp_path / "out.zip") as archive:
        for name in archive.namelist():
            exported += archive.read(name)
    assert key not in " ".join(e.text for e in events) and key not in repr(failed.value.__cause__)
    assert key not in caplog.text
    assert key.encode() not in exported
    for path in home.memory.rglob("*"):
        if path.is_file():
            assert key.encode() not in path.read_bytes(), path
    key_file = home.state / "api_keys.json"
    if key_file.exists() and os.name == "posix":
        assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
