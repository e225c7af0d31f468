"""The tray icon: Open, Sleep now, Quit; closing the window keeps Companion in the tray when chosen (asked once)."""

from __future__ import annotations

from typing import Iterator

import pytest
from PySide6.QtWidgets import QApplication

from companion.settings import load_settings
from companion.ui.tray import TrayController


@pytest.fixture
def tray(window) -> Iterator[TrayController]:
    tray = TrayController(window, available=True)
    tray.quits = []  # type: ignore[attr-defined]
    tray.quit_app = lambda: tray.quits.append(True)  # type: ignore[attr-defined]
    tray.ask_keep_in_tray = lambda: False  # type: ignore[method-assign]  # never a modal question in a test
    window.show()
    yield tray
    QApplication.setQuitOnLastWindowClosed(True)


class FakeSleep:
    def __init__(self) -> None:
        self.running = False
        self.runs = 0

    def run_now(self) -> None:
        self.runs += 1


def test_the_menu_has_open_sleep_now_and_quit(tray) -> None:
    texts = [a.text() for a in tray.icon.contextMenu().actions() if not a.isSeparator()]
    assert texts == ["Open", "Sleep now", "Quit"]


def test_closing_asks_once_then_keeps_running_in_the_tray(qtbot, tray, window, home) -> None:
    asked = []
    tray.ask_keep_in_tray = lambda: asked.append(True) or True  # type: ignore[method-assign]
    assert not window.close()  # the close is turned into hiding
    assert not window.isVisible() and tray.in_tray and window.controller.thread.isRunning()
    assert asked == [True]
    saved = load_settings(home.settings_file).window
    assert saved.keep_in_tray and saved.tray_asked
    tray.open_window()
    assert window.isVisible() and not tray.in_tray
    assert not window.close()
    assert asked == [True]  # asked once, remembered


def test_declining_closes_as_before(qtbot, tray, window, home) -> None:
    tray.ask_keep_in_tray = lambda: False  # type: ignore[method-assign]
    assert window.close()
    assert not window.controller.thread.isRunning()
    assert load_settings(home.settings_file).window == type(window.settings.window)(keep_in_tray=False, tray_asked=True)


def test_sleep_now_starts_the_nightly_job(tray, window) -> None:
    window.sleep_controller = FakeSleep()
    tray.sleep_action.trigger()
    assert window.sleep_controller.runs == 1
    window.sleep_controller.running = True
    tray.sleep_action.trigger()  # already sleeping: not started twice
    assert window.sleep_controller.runs == 1


def test_quit_from_the_tray_really_quits_even_when_kept_in_the_tray(qtbot, tray, window) -> None:
    window.settings.window.keep_in_tray = window.settings.window.tray_asked = True
    assert not window.close()
    tray.quit_action.trigger()
    assert tray.quits == [True] and not window.controller.thread.isRunning()  # type: ignore[attr-defined]


def test_without_a_tray_nothing_is_kept_and_notifications_use_the_status_bar(qtbot, window) -> None:
    tray = TrayController(window, available=False)
    window.settings.window.keep_in_tray = window.settings.window.tray_asked = True
    tray.notify("Reminder", "Call my mother")
    assert window.statusBar().currentMessage() == "Reminder: Call my mother"
    window.show()
    assert window.close()  # no tray to live in: the window closes for real


def test_clicking_a_notification_opens_the_window_and_runs_its_action(qtbot, tray, window) -> None:
    clicked = []
    window.hide()
    tray.notify("Reminder", "Call my mother", lambda: clicked.append(True))
    tray.icon.messageClicked.emit()
    assert clicked == [True] and window.isVisible()
    tray.icon.messageClicked.emit()  # a second click on an old message does nothing more
    assert clicked == [True]
