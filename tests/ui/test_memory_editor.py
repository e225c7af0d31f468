"""The memory pane: save with Ctrl+S, invalid YAML refused, external changes, conflicts, history."""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer, QUrl
from PySide6.QtWidgets import QApplication, QMessageBox

from companion.llm.scripted import ScriptedBackend
from companion.atomic import atomic_write
from companion.paths import Home
from companion.ui.main_window import MainWindow
from companion.ui.memory_editor import BOTH, EDIT, READ
from companion.curate.gate import MemoryWriter
from companion.memory.history import Actor
from tests.ui.conftest import wait_idle


def _answer_the_dialog(button: str, seen: list[str]) -> None:
    """When the save warning shows (a real QMessageBox), note its text and press `button`."""
    def press() -> None:
        box = QApplication.activeModalWidget()
        if not isinstance(box, QMessageBox):
            QTimer.singleShot(20, press)
            return
        seen.append(box.text())
        wanted = next(b for b in box.buttons() if b.text().replace("&", "") == button)
        wanted.click()

    QTimer.singleShot(0, press)


def test_a_secret_typed_in_the_editor_is_saved_only_after_the_user_confirms(qtbot, window: MainWindow, home: Home) -> None:
    _activate(qtbot, window)
    editor = window.memory_pane.open_file("USER.md")
    before = (home.memory / "USER.md").read_text(encoding="utf-8")
    editor.editor.setFocus()
    editor.editor.moveCursor(editor.editor.textCursor().MoveOperation.End)
    editor.editor.insertPlainText("\n- Wifi password is bluebird42\n")
    seen: list[str] = []
    _answer_the_dialog("Cancel", seen)
    qtbot.keyClick(editor.editor, Qt.Key.Key_S, Qt.KeyboardModifier.ControlModifier)
    assert len(seen) == 1 and "secrets are never stored" in seen[0]
    assert (home.memory / "USER.md").read_text(encoding="utf-8") == before and editor.is_dirty()
    assert "Not saved" in editor.banner.label.text()
    _activate(qtbot, window)
    editor.editor.setFocus()
    _answer_the_dialog("Save anyway", seen)
    qtbot.keyClick(editor.editor, Qt.Key.Key_S, Qt.KeyboardModifier.ControlModifier)
    assert len(seen) == 2 and not editor.is_dirty()
    assert "bluebird42" in (home.memory / "USER.md").read_text(encoding="utf-8")
    assert window.store.history.versions("USER.md")[0].actor == "editor"


def test_an_ordinary_edit_saves_without_a_question(qtbot, window: MainWindow, home: Home) -> None:
    editor = window.memory_pane.open_file("MEMORY.md")
    editor.set_text(editor.text().rstrip("\n") + "\n- Keeps bees\n")
    assert editor.save() and "Keeps bees" in (home.memory / "MEMORY.md").read_text(encoding="utf-8")


def _activate(qtbot, window: MainWindow) -> None:
    window.show()
    qtbot.waitExposed(window)
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)


def test_ctrl_s_saves_and_the_next_prompt_contains_the_edit(qtbot, window: MainWindow, scripted: ScriptedBackend,
                                                             home: Home) -> None:
    _activate(qtbot, window)
    editor = window.memory_pane.open_file("USER.md")
    editor.editor.setFocus()
    editor.editor.moveCursor(editor.editor.textCursor().MoveOperation.End)
    editor.editor.insertPlainText("\n- Favourite tea: 龙井 (Longjing)\n")
    assert editor.is_dirty()
    assert window.memory_pane.tabs.tabText(window.memory_pane.tabs.indexOf(editor)) == "USER.md •"
    qtbot.keyClick(editor.editor, Qt.Key.Key_S, Qt.KeyboardModifier.ControlModifier)
    assert not editor.is_dirty()
    assert "龙井 (Longjing)" in (home.memory / "USER.md").read_text(encoding="utf-8")
    assert window.memory_pane.tabs.tabText(window.memory_pane.tabs.indexOf(editor)) == "USER.md"
    window.send("what tea do I like?")
    wait_idle(qtbot, window)
    assert "龙井 (Longjing)" in scripted.prompts[-1][0]["content"]


def test_invalid_yaml_is_refused_naming_the_line(qtbot, window: MainWindow, home: Home) -> None:
    editor = window.memory_pane.open_file("SOUL.md")
    before = (home.memory / "SOUL.md").read_text(encoding="utf-8")
    assert editor.front_edit.isHidden()  # folded away until asked for
    yaml = editor.front_edit.toPlainText()
    editor.front_edit.setPlainText(yaml.replace("schema_version: 1", "schema_version: 1\nmood: calm: yes", 1))
    assert not editor.save()
    assert editor.banner.isVisible() or not editor.banner.isHidden()
    assert "line 3" in editor.banner.label.text()
    assert not editor.front_edit.isHidden()  # the disclosure opens on the error
    assert editor.front_edit.textCursor().blockNumber() + 2 >= 3  # file line = box line + the opening ---
    assert (home.memory / "SOUL.md").read_text(encoding="utf-8") == before
    assert editor.is_dirty()


def test_external_change_reloads_when_there_are_no_local_edits(qtbot, window: MainWindow, home: Home) -> None:
    editor = window.memory_pane.open_file("MEMORY.md")
    path = home.memory / "MEMORY.md"
    atomic_write(path, path.read_text(encoding="utf-8") + "\n- Written by another editor\n")
    qtbot.waitUntil(lambda: "Written by another editor" in editor.text(), timeout=5000)
    assert not editor.is_dirty() and editor.banner.isHidden()
    # the watch survives the atomic rename: a second change is seen too
    atomic_write(path, path.read_text(encoding="utf-8") + "- And again\n")
    qtbot.waitUntil(lambda: "And again" in editor.text(), timeout=5000)


def test_a_memory_tool_change_shows_in_the_editor(qtbot, window: MainWindow) -> None:
    editor = window.memory_pane.open_file("MEMORY.md")
    MemoryWriter(window.store).append("MEMORY.md", "- Added by the chat tool", actor=Actor.TOOL)
    qtbot.waitUntil(lambda: "Added by the chat tool" in editor.text(), timeout=5000)


def test_external_change_while_editing_shows_the_conflict_banner(qtbot, window: MainWindow, home: Home) -> None:
    editor = window.memory_pane.open_file("USER.md")
    editor.editor.appendPlainText("- my local edit")
    MemoryWriter(window.store).append("USER.md", "- sleep job fact", "## Preferences", actor=Actor.SLEEP)
    qtbot.waitUntil(lambda: editor.conflict, timeout=5000)
    assert "changed on disk" in editor.banner.label.text()
    assert "my local edit" in editor.text()  # nothing of mine was thrown away
    assert not editor.save()  # never overwrite a change it has not seen
    assert "sleep job fact" in (home.memory / "USER.md").read_text(encoding="utf-8")
    editor.keep_mine()
    assert editor.save()
    saved = (home.memory / "USER.md").read_text(encoding="utf-8")
    assert "my local edit" in saved and "sleep job fact" not in saved
    versions = window.store.history.versions("USER.md")
    assert "sleep job fact" in versions[0].read()  # the replaced change stays in History


def test_conflict_reload_discards_local_edits(qtbot, window: MainWindow) -> None:
    editor = window.memory_pane.open_file("USER.md")
    editor.editor.appendPlainText("- mine")
    MemoryWriter(window.store).append("USER.md", "- theirs", actor=Actor.TOOL)
    qtbot.waitUntil(lambda: editor.conflict, timeout=5000)
    editor.load()
    assert "- theirs" in editor.text() and "- mine" not in editor.text()
    assert not editor.is_dirty() and editor.banner.isHidden()


def test_history_lists_versions_and_restores_one(qtbot, window: MainWindow, home: Home) -> None:
    editor = window.memory_pane.open_file("MEMORY.md")
    original = editor.text()
    editor.editor.appendPlainText("- first change")
    assert editor.save()
    MemoryWriter(window.store).append("MEMORY.md", "- from the sleep job", actor=Actor.SLEEP)
    qtbot.waitUntil(lambda: "from the sleep job" in editor.text(), timeout=5000)
    dialog = window.memory_pane.show_history("MEMORY.md")
    items = [dialog.list.item(i).text() for i in range(dialog.list.count())]
    assert len(items) == 2
    assert "sleep job" in items[0] and "you" in items[1]
    dialog.list.setCurrentRow(1)
    assert "from the sleep job" in dialog.diff.toPlainText()
    assert dialog.restore_selected()
    qtbot.waitUntil(lambda: editor.text() == original, timeout=5000)
    assert (home.memory / "MEMORY.md").read_text(encoding="utf-8") == original
    dialog.close()


def test_preview_renders_markdown_without_frontmatter(window: MainWindow) -> None:
    editor = window.memory_pane.open_file("SOUL.md")
    editor.set_view(READ)
    assert editor.editor.isHidden() and not editor.preview.isHidden()
    rendered = editor.preview.toPlainText()
    assert "Identity" in rendered and "schema_version" not in rendered


def test_close_with_unsaved_edits_asks(qtbot, window: MainWindow, home: Home, monkeypatch) -> None:
    from PySide6.QtWidgets import QMessageBox

    editor = window.memory_pane.open_file("USER.md")
    editor.editor.appendPlainText("- unsaved thought")
    asked: list[list[str]] = []

    def cancel(names):
        asked.append(names)
        return QMessageBox.StandardButton.Cancel

    monkeypatch.setattr(window, "confirm_discard", cancel)
    assert not window.close()
    assert asked == [["USER.md"]] and window.controller.thread.isRunning()
    monkeypatch.setattr(window, "confirm_discard", lambda names: QMessageBox.StandardButton.Save)
    assert window.close()
    assert "unsaved thought" in (home.memory / "USER.md").read_text(encoding="utf-8")


def test_bootstrap_answers_show_up_in_the_editor(qtbot, window: MainWindow) -> None:
    editor = window.memory_pane.open_file("USER.md")
    window.send("My name is Lin. Please keep it short.")
    wait_idle(qtbot, window)
    qtbot.waitUntil(lambda: "Lin" in editor.text(), timeout=5000)


def test_journal_lists_days_and_shows_a_day(qtbot, window: MainWindow, home: Home) -> None:
    window.memory_pane.tabs.setCurrentWidget(window.memory_pane.journal)
    window.memory_pane.journal.refresh()
    journal = window.memory_pane.journal
    assert journal.list.count() == 1
    journal.list.setCurrentRow(0)
    assert "Companion" in journal.view.toPlainText()
    digest = home.digests / "week" / "2026-W48.md"
    digest.parent.mkdir(parents=True, exist_ok=True)
    digest.write_text("# Week 48\n\n- Talked about tea\n", encoding="utf-8")
    journal.kind.setCurrentIndex(2)
    assert journal.list.count() == 1
    journal.list.setCurrentRow(0)
    assert "Talked about tea" in journal.view.toPlainText()


def test_frontmatter_is_folded_and_an_untouched_file_saves_byte_identical(qtbot, window: MainWindow, home: Home) -> None:
    path = home.memory / "SOUL.md"
    before = path.read_bytes()
    editor = window.memory_pane.open_file("SOUL.md")
    assert "triggers:" not in editor.editor.toPlainText() and editor.editor.toPlainText().startswith("# Soul")
    assert "first_message_of_day" in editor.front_edit.toPlainText() and editor.front_edit.isHidden()
    assert editor.front_toggle.text() == "Triggers and settings"
    assert editor.text() == before.decode("utf-8") and not editor.is_dirty()
    editor.front_toggle.click()
    assert not editor.front_edit.isHidden()
    assert editor.save()
    assert path.read_bytes() == before


def test_triggers_stay_editable_behind_the_disclosure(qtbot, window: MainWindow, home: Home) -> None:
    editor = window.memory_pane.open_file("SOUL.md")
    editor.show_front_matter(True)
    editor.front_edit.setPlainText(editor.front_edit.toPlainText().replace("cooldown: 600", "cooldown: 900"))
    editor.editor.appendPlainText("- Calm and kind")
    assert editor.is_dirty() and editor.save()
    saved = (home.memory / "SOUL.md").read_text(encoding="utf-8")
    assert saved.startswith("---\nschema_version: 1\n") and "cooldown: 900" in saved
    assert saved.endswith("## Boundaries\n\n- Calm and kind")
    assert window.store.read("SOUL.md").meta["triggers"][1]["cooldown"] == 900


def test_a_file_without_frontmatter_is_all_body(qtbot, window: MainWindow, home: Home) -> None:
    atomic_write(home.memory / "USER.md", "# User\n\n## Profile\n- Name: Ana\n")
    editor = window.memory_pane.open_file("USER.md")
    editor.load()
    assert editor.front_edit.toPlainText() == "" and editor.editor.toPlainText().startswith("# User")
    assert editor.text() == "# User\n\n## Profile\n- Name: Ana\n"


def test_empty_sections_show_a_hint_that_is_never_saved(qtbot, window: MainWindow, home: Home) -> None:
    editor = window.memory_pane.open_file("MEMORY.md")
    hints = editor.editor.hints()
    body = editor.editor.toPlainText().splitlines()
    assert {body[line] for line in hints} >= {"## Facts", "## Upcoming"}
    assert any("remind me" in text for text in hints.values())
    editor.editor.appendPlainText("- 2026-12-01 08:00: Call my mother (2026-11-30#1)")
    assert "## Upcoming" not in {body[line] for line in editor.editor.hints()}
    editor.set_view(READ)
    assert "Lasting facts about you" in editor.preview.toPlainText()
    assert editor.save()
    assert "Lasting facts" not in (home.memory / "MEMORY.md").read_text(encoding="utf-8")


def test_a_citation_opens_the_day_log_at_that_record(qtbot, window: MainWindow, home: Home) -> None:
    window.show()
    qtbot.waitExposed(window)
    records = [window.daylog.append("user", f"message number {n}") for n in range(40)]
    cited = records[30]
    editor = window.memory_pane.open_file("MEMORY.md")
    editor.editor.appendPlainText(f"- Likes long lists ({cited.id})")
    block = editor.editor.document().lastBlock()
    cursor = editor.editor.textCursor()
    cursor.setPosition(block.position() + block.text().index("#") - 3)
    point = editor.editor.cursorRect(cursor).center()
    with qtbot.waitSignal(editor.citation_clicked, check_params_cb=lambda rid: rid == cited.id):
        qtbot.mouseClick(editor.editor.viewport(), Qt.MouseButton.LeftButton, pos=point)
    journal = window.memory_pane.journal
    assert window.memory_pane.tabs.currentWidget() is journal
    assert journal.highlighted == cited.id and journal.list.currentItem().text() == cited.day.isoformat()
    assert "message number 30" in journal.view.toPlainText()
    assert journal.view.verticalScrollBar().value() > 0  # scrolled down to the record
    assert "background-color:#fff3bf" in journal.view.toHtml().replace(" ", "")


def test_a_citation_in_the_preview_is_a_link(qtbot, window: MainWindow) -> None:
    record = window.daylog.append("user", "I moved to Porto")
    editor = window.memory_pane.open_file("USER.md")
    editor.editor.appendPlainText(f"- Lives in Porto ({record.id})")
    editor.set_view(READ)
    assert f'href="record:{record.id}"' in editor.preview.toHtml()
    with qtbot.waitSignal(editor.citation_clicked, check_params_cb=lambda rid: rid == record.id):
        editor.preview.anchorClicked.emit(QUrl(f"record:{record.id}"))
    assert window.memory_pane.journal.highlighted == record.id


def test_a_citation_of_a_missing_day_says_so(qtbot, window: MainWindow) -> None:
    assert not window.memory_pane.open_citation("2020-01-01#3")
    assert "not here" in window.memory_pane.journal.view.toPlainText()


def test_a_link_in_a_digest_opens_only_through_the_one_link_door(qtbot, window: MainWindow, home: Home, monkeypatch) -> None:
    import companion.ui.render as render

    opened: list[str] = []
    monkeypatch.setattr(render, "open_link", lambda parent, link, **_kw: opened.append(link) or False)
    digest = home.digests / "week" / "2026-W48.md"
    digest.parent.mkdir(parents=True, exist_ok=True)
    digest.write_text("# Week 48\n\n- Read [the notes](file:///etc/passwd)\n", encoding="utf-8")
    journal = window.memory_pane.journal
    window.memory_pane.tabs.setCurrentWidget(journal)
    journal.kind.setCurrentIndex(2)
    journal.list.setCurrentRow(0)
    assert not journal.view.openLinks() and not journal.view.openExternalLinks()
    journal.view.anchorClicked.emit(QUrl("file:///etc/passwd"))  # what a click on the link sends
    assert opened == ["file:///etc/passwd"] and "the notes" in journal.view.toPlainText()


def test_a_file_opens_beside_its_reading_view_without_comments_and_each_entry_leads_to_its_line(qtbot, window: MainWindow) -> None:
    record = window.daylog.append("user", "I moved to Porto")
    editor = window.memory_pane.open_file("USER.md")
    assert editor.view() == BOTH and not editor.preview.isHidden() and not editor.editor.isHidden()
    editor.set_view(EDIT)
    editor.editor.appendPlainText(f"- Lives in Porto <!-- src: {record.id} -->\n<!-- a note to self -->")
    editor.set_view(READ)
    shown = editor.preview.toPlainText()
    assert "<!--" not in shown and "note to self" not in shown and "Lives in Porto" in shown
    assert f'href="record:{record.id}"' in editor.preview.toHtml()  # the comment citation became a link
    line = next(n for n, text in enumerate(editor.editor.toPlainText().splitlines(), 1) if "Porto" in text)
    editor.preview.anchorClicked.emit(QUrl(f"entry:{line}"))
    assert editor.view() == BOTH and not editor.editor.isHidden()  # the text comes back beside the view
    assert "Porto" in editor.editor.textCursor().block().text()


def test_a_click_right_of_an_entry_stays_in_the_editor(qtbot, window: MainWindow) -> None:
    window.show()
    qtbot.waitExposed(window)
    record = window.daylog.append("user", "I moved to Porto")
    editor = window.memory_pane.open_file("MEMORY.md")
    editor.set_view(EDIT)
    editor.editor.appendPlainText(f"- Lives in Porto ({record.id})")
    block = editor.editor.document().lastBlock()
    cursor = editor.editor.textCursor()
    cursor.setPosition(block.position() + len(block.text()))
    end = editor.editor.cursorRect(cursor).center()
    clicked: list[str] = []
    editor.citation_clicked.connect(clicked.append)
    qtbot.mouseClick(editor.editor.viewport(), Qt.MouseButton.LeftButton, pos=end + type(end)(120, 0))
    assert clicked == [] and window.memory_pane.tabs.currentWidget() is editor
