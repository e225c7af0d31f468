"""On a Chinese system the new memory files, the memory pane and the status bar speak Chinese."""

from __future__ import annotations

from typing import Iterator

import pytest
from PySide6.QtCore import QLocale

from companion.memory.setup import ensure_home
from companion.paths import Home
from companion.settings import Settings
from companion.ui import app as app_module
from companion.ui.main_window import MainWindow
from companion.ui.tray import TrayController

ZH = QLocale(QLocale.Language.Chinese, QLocale.Country.China)


@pytest.fixture
def chinese(qapp) -> Iterator[None]:
    previous = QLocale()
    translators = app_module.install_translators(qapp, ZH)
    QLocale.setDefault(ZH)
    yield
    for translator in translators:
        qapp.removeTranslator(translator)
    QLocale.setDefault(previous)


def test_a_chinese_home_and_window(qtbot, chinese, tmp_path) -> None:
    home = Home(tmp_path / "zh")
    ensure_home(home, ZH.name())
    window = MainWindow(home, Settings(), autoload=False)
    qtbot.addWidget(window)
    window.tray.ask_keep_in_tray = lambda: False  # never a modal question in a test
    try:
        assert window.sleep_controller.next_label.text().startswith("下次睡眠 周")
        assert window.privacy_toggle.button.text() == "不要记住这些"
        tray = TrayController(window, available=False)
        assert [a.text() for a in tray.menu.actions() if not a.isSeparator()] == ["打开", "立即睡眠", "退出"]
        editor = window.memory_pane.open_file("MEMORY.md")
        assert editor.front_toggle.text() == "触发器和设置"
        assert editor.editor.toPlainText().startswith("# 记忆")
        assert "带日期的计划和提醒（“提醒我明天八点……”）会出现在这里。" in editor.editor.hints().values()
    finally:
        window.shutdown()
