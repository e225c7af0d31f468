"""Preferences: names go into USER.md / SOUL.md, sleep settings into settings.toml."""

from __future__ import annotations

from PySide6.QtCore import QTime

from companion.paths import Home
from companion.settings import load_settings
from companion.ui.main_window import MainWindow
from companion.ui.settings_dialog import SettingsDialog


def test_names_and_sleep_time_are_saved(qtbot, window: MainWindow, home: Home) -> None:
    dialog = SettingsDialog(window, window)
    qtbot.addWidget(dialog)
    dialog.user_name.setText("  林 美  ")
    dialog.companion_name.setText("Mochi")
    dialog.sleep_time.setTime(QTime(2, 30))
    with qtbot.waitSignal(window.settings_changed):
        assert dialog.apply()
    assert "- Name: 林 美" in window.store.read("USER.md").body
    assert "- Name: Mochi" in window.store.read("SOUL.md").body
    assert load_settings(home.settings_file).sleep.time == "02:30"
    again = SettingsDialog(window, window)
    qtbot.addWidget(again)
    assert again.user_name.text() == "林 美" and again.companion_name.text() == "Mochi"
    again.companion_name.setText("Pip")
    assert again.apply()
    soul = window.store.read("SOUL.md").body
    assert "- Name: Pip" in soul and "Mochi" not in soul


def test_daytime_learning_can_be_turned_off(qtbot, window: MainWindow, home: Home) -> None:
    dialog = SettingsDialog(window, window)
    qtbot.addWidget(dialog)
    assert dialog.auto_learn.isChecked()
    dialog.auto_learn.setChecked(False)
    assert dialog.apply()
    assert load_settings(home.settings_file).memory.auto_learn is False
    assert window.agent.settings.memory.auto_learn is False  # the running agent follows at once
