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


def test_the_new_controls_and_memory_notices_speak_chinese(qtbot, chinese, tmp_path) -> None:
    from PySide6.QtCore import Qt

    from companion.llm.scripted import ScriptedBackend
    from companion.ui.message_widget import MessageWidget, recalled_text
    from companion.ui.settings_dialog import SettingsDialog

    home = Home(tmp_path / "zh")
    ensure_home(home, ZH.name())
    window = MainWindow(home, Settings(), autoload=False, extensions=())
    qtbot.addWidget(window)
    try:
        with qtbot.waitSignal(window.backend_changed, check_params_cb=lambda b: b is not None):
            window.use_backend(ScriptedBackend(["好的。"]))
        window.composer.edit.setPlainText("记住我喜欢绿茶")
        qtbot.keyClick(window.composer.edit, Qt.Key.Key_Return)
        qtbot.waitUntil(lambda: not window.controller.busy)
        notices = [m.text() for m in window.chat.messages() if getattr(m, "undo_changes", None) is not None]
        assert notices and notices[-1].startswith("已记在 USER.md")
        assert recalled_text(1) == "回想起 1 条记忆" and recalled_text(3) == "回想起 3 条记忆"
        dialog = SettingsDialog(window, window)
        qtbot.addWidget(dialog)
        assert [dialog.tabs.tabText(i) for i in range(dialog.tabs.count())] == ["常规", "外观", "回复"]
        card = MessageWidget("user", "你好", record_id="2026-12-01#1")
        assert card.copy_button.text() == "复制" and card.delete_action.text() == "删除消息"
        window.open_find()
        window.find_edit.setText("不存在的东西")
        window.find_step()
        assert window.find_status.text() == "未找到"
    finally:
        window.shutdown()


def test_plurals_in_english(qapp) -> None:
    from companion.ui.message_widget import recalled_text

    assert recalled_text(1) == "Recalled 1 memory" and recalled_text(2) == "Recalled 2 memories"


def test_memory_refusals_in_a_chinese_session_are_chinese(qtbot, chinese, tmp_path) -> None:
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QMessageBox

    from companion.llm.scripted import ScriptedBackend

    home = Home(tmp_path / "zh")
    ensure_home(home, ZH.name())
    window = MainWindow(home, Settings(), autoload=False, extensions=())
    qtbot.addWidget(window)
    window.confirm_discard = lambda _names: QMessageBox.StandardButton.Discard  # the edit below stays unsaved
    try:
        with qtbot.waitSignal(window.backend_changed, check_params_cb=lambda b: b is not None):
            window.use_backend(ScriptedBackend(["好的。"]))
        window.composer.edit.setPlainText("记住我的密码是 hunter2xyz")
        qtbot.keyClick(window.composer.edit, Qt.Key.Key_Return)
        qtbot.waitUntil(lambda: not window.controller.busy)
        notices = [m.text() for m in window.chat.messages() if m.role == "event"]
        assert any(n.startswith("未保存：看起来像密码、密钥或令牌，记忆里从不保存机密") for n in notices), notices
        editor = window.memory_pane.open_file("USER.md")
        editor.confirm_refused = lambda _decision: False  # the user keeps editing instead
        editor.editor.appendPlainText("- 我的密码是 hunter2xyz")
        assert not editor.save()
        assert editor.banner.label.text() == "未保存：看起来像密码、密钥或令牌，记忆里从不保存机密。"
    finally:
        window.shutdown()


def _on_gpu() -> object:
    import dataclasses

    from companion.llm.scripted import ScriptedBackend

    backend = ScriptedBackend()
    backend.info = dataclasses.replace(backend.info, n_gpu_layers=31, total_layers=31, gpu_name="NVIDIA GeForce RTX 3060",
                                       device="NVIDIA GeForce RTX 3060 · 31/31 layers", gpu_offload_supported=True)
    return backend


def _gpu_label(qtbot, folder, language: str) -> str:
    home = Home(folder)
    ensure_home(home, language)
    window = MainWindow(home, Settings(), autoload=False, extensions=())
    qtbot.addWidget(window)
    try:
        with qtbot.waitSignal(window.backend_changed, check_params_cb=lambda b: b is not None):
            window.use_backend(_on_gpu())
        return window.model_label.text()
    finally:
        window.shutdown()


def test_the_status_bar_names_the_gpu_layers_in_chinese(qtbot, chinese, tmp_path) -> None:
    assert _gpu_label(qtbot, tmp_path / "zh", ZH.name()) == "scripted · NVIDIA GeForce RTX 3060 · 31/31 层"


def test_the_status_bar_names_the_gpu_layers_in_english(qtbot, tmp_path) -> None:
    assert _gpu_label(qtbot, tmp_path / "en", "en_US") == "scripted · NVIDIA GeForce RTX 3060 · 31/31 layers"
