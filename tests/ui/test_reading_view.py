"""The memory pane's reading view beside the editor: live, following the text, three views kept in the window state."""

from __future__ import annotations

import json

from PySide6.QtCore import Qt, QUrl
from PySide6.QtWidgets import QApplication

from companion.paths import Home
from companion.settings import Settings
from companion.ui.main_window import MainWindow
from companion.ui.memory_editor import BOTH, EDIT, READ, RENDER_MS


def _shown(qtbot, window: MainWindow, width: int = 1366, height: int = 740) -> None:
    window.resize(width, height)
    window.show()
    qtbot.waitExposed(window)


def test_the_reading_view_is_beside_the_editor_and_follows_what_is_typed(qtbot, make_window, home: Home) -> None:
    window = make_window()
    _shown(qtbot, window)
    editor = window.memory_pane.open_file("USER.md")
    assert editor.view() == BOTH
    left, right = editor.editor.geometry(), editor.preview.geometry()
    assert left.right() < right.left() and abs(left.top() - right.top()) < 10  # side by side
    record = window.daylog.append("user", "I moved to Porto")
    on_disk = (home.memory / "USER.md").read_text(encoding="utf-8")
    editor.editor.setFocus()
    editor.editor.moveCursor(editor.editor.textCursor().MoveOperation.End)
    qtbot.keyClick(editor.editor, Qt.Key.Key_Return)
    qtbot.keyClicks(editor.editor, f"- Lives in Porto ({record.id})")
    assert "Lives in Porto" not in editor.preview.toPlainText()  # after a pause in typing, not per key
    qtbot.waitUntil(lambda: "Lives in Porto" in editor.preview.toPlainText(), timeout=RENDER_MS * 20)
    assert f'href="record:{record.id}"' in editor.preview.toHtml()  # a citation is a link at once
    assert (home.memory / "USER.md").read_text(encoding="utf-8") == on_disk  # shown, not saved
    with qtbot.waitSignal(editor.citation_clicked, check_params_cb=lambda rid: rid == record.id):
        editor.preview.anchorClicked.emit(QUrl(f"record:{record.id}"))  # through the one link handler
    assert window.memory_pane.journal.highlighted == record.id


def test_the_reading_view_keeps_the_line_being_edited_in_view(qtbot, make_window) -> None:
    window = make_window()
    _shown(qtbot, window)
    editor = window.memory_pane.open_file("MEMORY.md")
    editor.set_text(editor.text().rstrip("\n") + "\n" + "".join(f"- Fact number {n} (2026-11-29#{n})\n" for n in range(1, 81)))
    editor.editor.setFocus()
    qtbot.waitUntil(lambda: "Fact number 80" in editor.preview.toPlainText(), timeout=5000)
    bar = editor.preview.verticalScrollBar()
    assert bar.maximum() > 0
    editor.editor.moveCursor(editor.editor.textCursor().MoveOperation.End)
    editor.editor.moveCursor(editor.editor.textCursor().MoveOperation.PreviousBlock)
    qtbot.waitUntil(lambda: bar.value() > bar.maximum() // 2, timeout=5000)  # the end of the file, where the cursor is
    editor.editor.moveCursor(editor.editor.textCursor().MoveOperation.Start)
    qtbot.waitUntil(lambda: bar.value() == 0, timeout=5000)
    assert editor.preview.entry_lines()[:2] and editor.preview.entry_lines() == sorted(editor.preview.entry_lines())


def test_edit_both_or_read_applies_to_every_file_and_is_remembered(qtbot, make_window, home: Home) -> None:
    window = make_window()
    _shown(qtbot, window)
    pane = window.memory_pane
    editor = pane.open_file("SOUL.md")
    editor.view_buttons[READ].click()
    assert all(e.editor.isHidden() and not e.preview.isHidden() for e in pane.editors.values())
    editor.view_buttons[EDIT].click()
    assert all(e.preview.isHidden() and not e.editor.isHidden() for e in pane.editors.values())
    editor.view_buttons[BOTH].click()
    editor.split.setSizes([400, 200])
    editor.split.splitterMoved.emit(400, 1)
    assert pane.editors["USER.md"].split.sizes()[0] > pane.editors["USER.md"].split.sizes()[1]
    editor.view_buttons[READ].click()
    window.save_state()
    data = json.loads((home.state / "window.json").read_text())
    assert data["memory_view"] == READ
    window.close()
    again = make_window()
    assert again.memory_pane.view() == READ
    assert all(e.view_buttons[READ].isChecked() for e in again.memory_pane.editors.values())
    again.memory_pane.set_view(BOTH)
    assert again.memory_pane.editors["MEMORY.md"].split.saveState() == again.memory_pane.editors["SOUL.md"].split.saveState()


def test_an_entrys_pencil_in_the_reading_only_view_brings_the_text_back_beside_it(qtbot, make_window) -> None:
    window = make_window()
    editor = window.memory_pane.open_file("USER.md")
    editor.editor.appendPlainText("- Keeps bees")
    editor.set_view(READ)
    line = next(n for n, text in enumerate(editor.editor.toPlainText().splitlines(), 1) if "bees" in text)
    editor.preview.anchorClicked.emit(QUrl(f"entry:{line}"))
    assert window.memory_pane.view() == BOTH  # every file, as if the user had chosen it
    assert "bees" in editor.editor.textCursor().block().text()


def test_a_broken_view_in_the_window_state_falls_back_to_both(qtbot, home: Home, make_window) -> None:
    (home.state / "window.json").write_text(json.dumps({"geometry": "", "splitter": "", "memory_view": "sideways"}))
    window = make_window()
    assert window.memory_pane.view() == BOTH


def test_both_views_fit_a_1366_by_768_screen(qtbot, make_window) -> None:
    window = make_window()
    _shown(qtbot, window, 1360, 730)  # a 1366 x 768 screen less a frame and a panel
    editor = window.memory_pane.open_file("MEMORY.md")
    pane = window.memory_pane
    for button in [editor.save_button, *editor.view_buttons.values(), editor.history_button]:
        corner = button.mapTo(pane, button.rect().bottomRight())
        assert corner.x() <= pane.width() and not button.isHidden()
    assert editor.split.orientation() == Qt.Orientation.Horizontal
    assert editor.editor.width() >= 250 and editor.preview.width() >= 250
    assert window.frameGeometry().height() <= 768 and window.frameGeometry().width() <= 1366
    assert window.size().width() == 1360  # nothing in the pane asked for more


def test_a_narrow_pane_shows_the_reading_view_below_the_text(qtbot, make_window) -> None:
    window = make_window()
    _shown(qtbot, window, 1000, 700)
    window.splitter.setSizes([700, 300])
    editor = window.memory_pane.open_file("MEMORY.md")
    qtbot.waitUntil(lambda: editor.split.orientation() == Qt.Orientation.Vertical)
    assert editor.editor.geometry().bottom() < editor.preview.geometry().top()
    window.splitter.setSizes([300, 700])
    qtbot.waitUntil(lambda: editor.split.orientation() == Qt.Orientation.Horizontal)


def test_the_views_are_named_in_chinese(qtbot, tmp_path) -> None:
    from PySide6.QtCore import QLocale

    from companion.memory.setup import ensure_home
    from companion.ui import app as app_module

    zh = QLocale(QLocale.Language.Chinese, QLocale.Country.China)
    translators = app_module.install_translators(QApplication.instance(), zh)
    try:
        home = Home(tmp_path / "zh")
        ensure_home(home, zh.name())
        window = MainWindow(home, Settings(), autoload=False, extensions=())
        qtbot.addWidget(window)
        editor = window.memory_pane.open_file("USER.md")
        assert [b.text() for b in editor.view_buttons.values()] == ["编辑", "并排", "阅读"]
        assert "链接" in editor.view_buttons[BOTH].toolTip()
        window.shutdown()
    finally:
        for translator in translators:
            QApplication.instance().removeTranslator(translator)
