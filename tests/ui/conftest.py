"""Fixtures for the desktop app: a main window on a temporary home, its thread always stopped."""

from __future__ import annotations

from typing import Callable, Iterator

import pytest
from PySide6.QtWidgets import QMessageBox

from companion.llm.scripted import ScriptedBackend
from companion.paths import Home
from companion.settings import Settings
from companion.ui.main_window import MainWindow


def wait_idle(qtbot: object, window: MainWindow, timeout: int = 10_000) -> None:
    """Block until the running turn is over (busy_changed(False))."""
    qtbot.waitUntil(lambda: not window.controller.busy, timeout=timeout)  # type: ignore[attr-defined]


@pytest.fixture
def make_window(qtbot: object, home: Home) -> Iterator[Callable[..., MainWindow]]:
    windows: list[MainWindow] = []

    def make(backend: object | None = None, *, owned: bool = True, **kwargs: object) -> MainWindow:
        kwargs.setdefault("autoload", False)
        kwargs.setdefault("extensions", ())
        window = MainWindow(home, kwargs.pop("settings", None) or Settings(), **kwargs)  # type: ignore[arg-type]
        qtbot.addWidget(window)  # type: ignore[attr-defined]
        # closing at teardown must never wait on a modal question
        window.confirm_discard = lambda _names: QMessageBox.StandardButton.Discard  # type: ignore[method-assign]
        if hasattr(window, "tray"):
            window.tray.ask_keep_in_tray = lambda: False  # type: ignore[attr-defined]
        windows.append(window)
        if backend is not None:
            with qtbot.waitSignal(window.backend_changed, check_params_cb=lambda b: b is not None):  # type: ignore[attr-defined]
                window.use_backend(backend, owned=owned)  # type: ignore[arg-type]
        return window

    yield make
    for window in windows:
        window.shutdown()
        assert not window.controller.thread.isRunning()


@pytest.fixture
def window(make_window: Callable[..., MainWindow], scripted: ScriptedBackend) -> MainWindow:
    return make_window(scripted)
