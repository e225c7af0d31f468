"""Every dialog fits a 1366x768 screen (a panel and the title bar take about 60 px of the height);
Preferences has appearance and reply controls and shows the system prompt."""

from __future__ import annotations

from typing import Callable

import pytest
from PySide6.QtWidgets import QApplication, QDialog

from companion.memory.longterm import LongTermStore
from companion.paths import Home
from companion.settings import load_settings
from companion.ui.main_window import MainWindow

SCREEN_W, SCREEN_H = 1366, 768 - 60


def _dialogs(home: Home, window: MainWindow) -> dict[str, Callable[[], QDialog]]:
    from companion.sleep.report import ReportStore, SleepReport
    from companion.ui.diff_view import DiffDialog
    from companion.ui.history_dialog import HistoryDialog
    from companion.ui.portability import ExportDialog, ImportDialog
    from companion.ui.settings_dialog import SettingsDialog
    from companion.ui.sleep_glue import ReportDialog

    long_text = "\n".join(f"- entry {i} " + "word " * 30 for i in range(200))
    return {
        "preferences": lambda: SettingsDialog(window, window),
        "history": lambda: HistoryDialog(window.store, "MEMORY.md", window),
        "diff": lambda: DiffDialog("a vs b", "", long_text, "a", "b", window),
        "export": lambda: ExportDialog(home, window),
        "import": lambda: ImportDialog(home, LongTermStore(home), window),
        "report": lambda: ReportDialog(SleepReport("r", "2026-11-29T03:00:00", notes=[long_text[:3000]]),
                                       window.store, ReportStore(home), window),
    }


@pytest.mark.parametrize("name", ["preferences", "history", "diff", "export", "import", "report"])
def test_every_dialog_fits_a_1366_by_768_screen(qtbot, window: MainWindow, home: Home, name: str) -> None:
    dialog = _dialogs(home, window)[name]()
    qtbot.addWidget(dialog)
    dialog.show()
    QApplication.processEvents()
    for size in (dialog.size(), dialog.sizeHint(), dialog.minimumSizeHint()):
        assert size.width() <= SCREEN_W and size.height() <= SCREEN_H, f"{name}: {size.width()}x{size.height()}"
    dialog.close()


def test_preferences_saves_appearance_and_reply_controls(qtbot, window: MainWindow, home: Home) -> None:
    from companion.ui.settings_dialog import SettingsDialog

    app = QApplication.instance()
    size_before = app.font().pointSizeF()
    dialog = SettingsDialog(window, window)
    qtbot.addWidget(dialog)
    try:
        dialog.theme.setCurrentIndex(dialog.theme.findData("dark"))
        dialog.font_size.setCurrentIndex(dialog.font_size.findData(14))
        dialog.reply_length.setCurrentIndex(dialog.reply_length.findData(1024))
        dialog.temperature.setValue(0.3)
        assert dialog.apply()
        saved = load_settings(home.settings_file)
        assert (saved.window.theme, saved.window.font_size) == ("dark", 14)
        assert (saved.model.max_reply_tokens, saved.model.temperature) == (1024, 0.3)
        assert app.font().pointSize() == 14
        assert app.palette().color(app.palette().ColorRole.Window).lightness() < 128
    finally:
        window.settings.window.theme, window.settings.window.font_size = "system", 0
        from companion.ui.appearance import apply_appearance

        apply_appearance(window.settings.window)
    assert app.font().pointSizeF() == size_before


def test_preferences_shows_the_system_prompt_read_only_and_opens_soul(qtbot, window: MainWindow) -> None:
    from companion.ui.settings_dialog import SettingsDialog

    dialog = SettingsDialog(window, window)
    qtbot.addWidget(dialog)
    assert dialog.system_prompt.isReadOnly()
    assert dialog.system_prompt.toPlainText() == window.session.system_prompt()
    assert "## " in dialog.system_prompt.toPlainText()
    dialog.soul_button.click()
    assert window.memory_pane.current_editor().name == "SOUL.md"
