"""Two `companion chat` processes and the app on one home, real processes and the real tiny model: one
of them holds the home, the others say so and write nothing, and what the one wrote is all there."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Callable

import pytest

from companion.memory.longterm import LongTermStore
from companion.paths import Home
from test_signals import Process, _files_are_valid, _home

pytestmark = [pytest.mark.model, pytest.mark.reliability, pytest.mark.slow]

# The app, with its "already running" message box answered the moment it shows (a real QMessageBox).
APP = """
import argparse, sys
from PySide6.QtWidgets import QMessageBox
from companion.ui import app
from companion.ui.main_window import MainWindow

original_warning = QMessageBox.warning
def warning(parent, title, text, *args, **kwargs):
    print(f"dialog: {title}: {text}", flush=True)
    return QMessageBox.StandardButton.Ok
QMessageBox.warning = warning

original = MainWindow.__init__
def init(self, *args, **kwargs):
    original(self, *args, **kwargs)
    def loaded(_backend):
        print("loaded", flush=True)
        self.send("remember that my bike is green")
    self.controller.worker.loaded.connect(loaded)
MainWindow.__init__ = init
sys.exit(app.run(argparse.Namespace(home=None)))
"""


def _memory(home: Home) -> str:
    store = LongTermStore(home)
    return store.read("USER.md").body + store.read("MEMORY.md").body


def _until(condition: Callable[[], bool], timeout: float = 150) -> None:
    end = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < end, "timed out"
        time.sleep(0.2)


def _chat(home_root: Path) -> Process:
    return Process([sys.executable, "-m", "companion", "chat"], home_root)


def _app(home_root: Path) -> Process:
    return Process([sys.executable, "-c", APP], home_root, env={"QT_QPA_PLATFORM": "offscreen"})


def test_two_chats_and_the_app_on_one_home(tmp_path: Path) -> None:
    home = _home(tmp_path, 8)
    first = _chat(home.root)
    first.wait_for("/quit to exit")
    second, app = _chat(home.root), _app(home.root)
    assert second.finish() == 1 and "already running" in "".join(second.seen)
    assert app.finish() == 1 and "dialog: Companion is already running" in "".join(app.seen)
    first.send("remember that I play the cello\n")
    first.wait_for("Saved to long-term memory")
    first.send("/quit\n")
    assert first.finish() == 0, "".join(first.seen)

    app = _app(home.root)  # the home is free again: now the app holds it, and a chat is refused
    app.wait_for("loaded")
    late = _chat(home.root)
    assert late.finish() == 1 and "already running" in "".join(late.seen)
    _until(lambda: "bike is green" in _memory(home).casefold())  # the app's own "remember" went in
    app.popen.terminate()
    assert app.finish() == 0, "".join(app.seen)[-3000:]

    _files_are_valid(home)
    memory = _memory(home)
    assert "cello" in memory and "bike is green" in memory.casefold()
    store = LongTermStore(home)
    versions = [v.actor for name in ("USER.md", "MEMORY.md") for v in store.history.versions(name)]
    assert "remember" in versions and set(versions) <= {"remember", "learn"}  # each write named as itself
