"""Quit always quits (menu, Ctrl+Q, tray, SIGTERM, SIGINT); closing follows the tray choice; state survives the tray."""

from __future__ import annotations

import json
import os
import signal
from typing import Iterator

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from companion.ui.app import TerminationSignals
from companion.ui.main_window import MainWindow
from companion.ui.tray import TrayController


@pytest.fixture
def kept(window: MainWindow) -> Iterator[tuple[MainWindow, TrayController, list[str]]]:
    """A shown window whose tray keeps it running on close (already asked), with quits recorded."""
    tray = TrayController(window, available=True)
    asked: list[str] = []
    tray.ask_keep_in_tray = lambda: asked.append("asked") or True  # type: ignore[method-assign]
    quits: list[str] = asked
    tray.quit_app = lambda: quits.append("tray quit")  # type: ignore[method-assign]
    window.quit_hook = lambda: quits.append("quit")  # type: ignore[method-assign]
    window.settings.window.keep_in_tray = window.settings.window.tray_asked = True
    window.show()
    yield window, tray, quits
    QApplication.setQuitOnLastWindowClosed(True)


def _closed(window: MainWindow) -> bool:
    return not window.isVisible() and not window.controller.thread.isRunning()


def test_file_quit_quits_even_when_closing_keeps_companion_in_the_tray(kept) -> None:
    window, tray, quits = kept
    window.quit_action.trigger()
    assert quits == ["quit"] and _closed(window) and not tray.in_tray


def test_ctrl_q_quits_and_never_asks_the_tray_question(qtbot, kept) -> None:
    window, tray, quits = kept
    window.settings.window.tray_asked = False  # the question has not been asked yet
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    qtbot.keyClick(window, Qt.Key.Key_Q, Qt.KeyboardModifier.ControlModifier)
    assert quits == ["quit"] and _closed(window)
    assert not window.settings.window.tray_asked  # quitting is not a close to ask about


def test_closing_asks_once_on_the_first_close_then_follows_the_choice(kept) -> None:
    window, tray, quits = kept
    window.settings.window.tray_asked = False
    assert not window.close() and tray.in_tray and quits == ["asked"]
    tray.open_window()
    assert not window.close() and tray.in_tray and quits == ["asked"]  # not asked again
    tray.quit_action.trigger()
    assert quits == ["asked", "tray quit"] and _closed(window)


@pytest.mark.parametrize("name", ["SIGTERM", "SIGINT"])
def test_a_termination_signal_quits_even_when_kept_in_the_tray(qtbot, qapp, kept, name: str) -> None:
    window, tray, quits = kept
    termination = TerminationSignals(qapp)
    try:
        termination.attach(window)
        os.kill(os.getpid(), getattr(signal, name))
        qtbot.waitUntil(lambda: bool(quits), timeout=5000)
    finally:
        termination.stop()
    assert quits == ["quit"] and _closed(window) and not tray.in_tray
    assert signal.getsignal(getattr(signal, name)) is not termination._handle  # the old handler is back


def test_the_memory_pane_survives_a_round_trip_through_the_tray(kept, make_window, home) -> None:
    window, tray, quits = kept
    assert not window.memory_pane.isHidden()
    window.close()  # to the tray
    assert tray.in_tray
    tray.quit_action.trigger()  # quit from the tray while the window is hidden
    assert json.loads((home.state / "window.json").read_text())["pane"] is True
    again = make_window()
    again.show()
    assert again.memory_pane.isVisible()


def test_a_hidden_pane_stays_hidden_after_the_tray(kept, make_window, home) -> None:
    window, tray, quits = kept
    window.pane_action.trigger()
    assert window.memory_pane.isHidden()
    window.close()
    tray.quit_action.trigger()
    again = make_window()
    again.show()
    assert again.memory_pane.isHidden() and not again.pane_action.isChecked()


def test_a_hidden_window_saves_no_state(make_window, home) -> None:
    window = make_window()
    window.save_state()  # never shown
    assert not (home.state / "window.json").exists()
