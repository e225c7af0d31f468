"""Memory > Connect another assistant: scopes saved per agent (none by default), the exact config
snippets, and proposed memories approved, declined and undone in the app."""

from __future__ import annotations

import json

from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QPushButton

from companion.agent.sharing import parse_grants
from companion.curate.proposals import ProposalQueue
from companion.settings import load_settings
from companion.ui.connect_assistant import ConnectDialog, ConnectGlue, ProposalsDialog
from companion.ui.message_widget import MessageWidget


def test_connect_dialog_saves_what_an_agent_may_see_and_shows_the_exact_config(qtbot, window, home):
    dialog = ConnectDialog(window)
    qtbot.addWidget(dialog)
    assert dialog.agent.currentText() == "claude-desktop"
    assert not any(box.isChecked() for box in dialog.boxes.values())  # nothing until the user ticks it
    config = json.loads(dialog.claude.toPlainText().split("\n\n", 1)[1])
    entry = config["mcpServers"]["companion-memory"]
    assert entry["args"][-5:] == ["--home", str(home.root), "mcp", "--agent", "claude-desktop"]
    dialog.boxes["search"].setChecked(True)
    dialog.boxes["profile"].setChecked(True)
    [save] = [b for b in dialog.findChildren(QPushButton) if b.text() == "Save what it may see"]
    save.click()
    saved = parse_grants(load_settings(home.settings_file).sharing.agents)
    assert saved == {"claude-desktop": frozenset({"search", "profile"})}
    dialog.agent.setCurrentText("cursor")
    assert not any(box.isChecked() for box in dialog.boxes.values())
    [token] = [b for b in dialog.findChildren(QPushButton) if b.text() == "New HTTP token"]
    token.click()
    generic = json.loads(dialog.generic.toPlainText().split("\n\n", 1)[1])
    header = generic["mcpServers"]["companion-memory-http"]["headers"]["Authorization"]
    assert header.startswith("Bearer ") and len(header) > 40
    assert generic["mcpServers"]["companion-memory-http"]["url"] == "http://127.0.0.1:8765/mcp"
    QGuiApplication.clipboard().setText("")
    [copy] = [b for b in dialog.tabs.widget(1).findChildren(QPushButton) if b.text() == "Copy"]
    copy.click()
    assert QGuiApplication.clipboard().text() == dialog.generic.toPlainText()


def test_proposals_wait_in_the_app_and_are_saved_declined_or_undone(qtbot, window, home):
    queue = ProposalQueue(home)
    first = queue.propose_remember("Prefers meetings in the morning", "USER.md", "Preferences", "claude-desktop", ["2026-11-29#1"])
    queue.propose_remember("Has a dentist appointment on 2026-12-09", "MEMORY.md", "Facts", "cursor", ["2026-11-29#2"])
    glue = ConnectGlue(window)
    assert glue.proposals_action.text() == "Proposed memories (2)…"
    assert any("2 proposed memory(s) wait for you" in w.text() for w in window.chat.findChildren(MessageWidget))
    dialog = ProposalsDialog(window)
    qtbot.addWidget(dialog)
    assert dialog.pending.count() == 2 and dialog.saved.count() == 0
    dialog.pending.setCurrentRow(0)
    dialog.approve.click()
    assert "Prefers meetings in the morning (2026-11-29#1)" in window.store.read("USER.md").body
    assert dialog.pending.count() == 1 and dialog.saved.count() == 1
    dialog.decline.click()
    assert dialog.pending.count() == 0 and "dentist" not in window.store.read("MEMORY.md").body
    dialog.saved.setCurrentRow(0)
    dialog.undo.click()
    assert "morning" not in window.store.read("USER.md").body
    assert [p.status for p in queue.items(None)] == ["undone", "declined"]
    assert first.id in {p.id for p in queue.items(None)}
    glue.poll()
    assert glue.proposals_action.text() == "Proposed memories…"


def _approve_refused(qtbot, window, home, monkeypatch, text: str) -> list[str]:
    """Propose `text`, then write it into USER.md first: approving is refused as a duplicate."""
    import companion.ui.connect_assistant as module

    shown: list[str] = []
    monkeypatch.setattr(module.QMessageBox, "warning", lambda _parent, _title, message: shown.append(message))
    ProposalQueue(home).propose_remember(text, "USER.md", "Preferences", "cursor", ["2026-11-29#1"])
    editor = window.memory_pane.open_file("USER.md")
    editor.set_text(editor.text().rstrip("\n") + f"\n- {text}\n")
    assert editor.save()
    dialog = ProposalsDialog(window)
    qtbot.addWidget(dialog)
    dialog.pending.setCurrentRow(0)
    dialog.approve.click()
    return shown


def test_a_refused_approval_says_why(qtbot, window, home, monkeypatch):
    shown = _approve_refused(qtbot, window, home, monkeypatch, "Prefers meetings in the morning")
    assert shown == ["Not saved: already in USER.md: Prefers meetings in the morning."]


def test_a_refused_approval_says_why_in_chinese(qtbot, window, home, monkeypatch):
    from PySide6.QtCore import QLocale
    from PySide6.QtWidgets import QApplication

    from companion.ui import app as app_module

    zh = QLocale(QLocale.Language.Chinese, QLocale.Country.China)
    previous = QLocale()
    translators = app_module.install_translators(QApplication.instance(), zh)
    QLocale.setDefault(zh)
    try:
        shown = _approve_refused(qtbot, window, home, monkeypatch, "喜欢早上开会")
    finally:
        for translator in translators:
            QApplication.instance().removeTranslator(translator)
        QLocale.setDefault(previous)
    assert shown == ["未保存：已在 USER.md 中：喜欢早上开会。"]
