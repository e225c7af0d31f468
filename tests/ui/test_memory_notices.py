"""Every memory notice in the chat (remember, learned by day, forget, tool) says what changed and has Undo."""

from __future__ import annotations

from PySide6.QtCore import Qt

from companion.agent.tools import ToolResult
from companion.curate.gate import MemoryWriter
from companion.memory.history import Actor
from companion.llm.base import ToolCall
from companion.llm.scripted import ScriptedBackend
from companion.paths import Home
from companion.ui.main_window import MainWindow
from companion.ui.memory_notices import UndoChanges
from tests.ui.conftest import wait_idle


def _send(qtbot, window: MainWindow, text: str) -> None:
    window.composer.edit.setPlainText(text)
    qtbot.keyClick(window.composer.edit, Qt.Key.Key_Return)
    wait_idle(qtbot, window)


def _notices(window: MainWindow) -> list:
    return [m for m in window.chat.messages() if isinstance(getattr(m, "undo_changes", None), UndoChanges)]


def _body(window: MainWindow, name: str) -> str:
    return window.store.read(name).body


def test_remember_says_what_was_saved_and_undo_takes_it_back(qtbot, window: MainWindow) -> None:
    _send(qtbot, window, "remember that I like green tea")
    notices = _notices(window)
    assert len(notices) == 1
    notice = notices[0]
    assert notice.text() == "Remembered in USER.md: Likes green tea"
    assert "green tea" in _body(window, "USER.md").lower()
    notice.undo_changes.button.click()
    assert "green tea" not in _body(window, "USER.md").lower()
    assert notice.undo_changes.button.isHidden() and notice.note.text() == "undone"


def test_forget_counts_what_went_without_quoting_it_and_undo_puts_it_back(qtbot, window: MainWindow) -> None:
    _send(qtbot, window, "remember that my bike is a red Gazelle")
    _send(qtbot, window, "forget my bike")  # shows what it would remove and asks
    assert all("gazelle" in _body(window, name).lower() for name in ("MEMORY.md",))
    _send(qtbot, window, "yes")
    notice = next(m for m in reversed(_notices(window)) if m.text().startswith("Forgot"))
    assert notice.text().startswith("Forgot 1 entry in") and "gazelle" not in notice.text().lower()
    assert getattr(notice, "forget_everywhere", None) is not None  # still offers to erase it everywhere
    assert all("gazelle" not in _body(window, name).lower() for name in ("USER.md", "MEMORY.md"))
    notice.undo_changes.undo()
    assert any("gazelle" in _body(window, name).lower() for name in ("USER.md", "MEMORY.md"))


def test_learning_by_day_is_always_announced_with_undo(qtbot, make_window, home: Home) -> None:
    window = make_window(ScriptedBackend(["Nice!"]))
    _send(qtbot, window, "I live in Porto and I work as a nurse")
    qtbot.waitUntil(lambda: any("Learned from the conversation" in m.text() for m in _notices(window)), timeout=10_000)
    notice = next(m for m in _notices(window) if "Learned" in m.text())
    assert "USER.md" in notice.text()
    before = _body(window, "USER.md")
    assert "Porto" in before
    assert notice.undo_changes.undo()
    assert "Porto" not in _body(window, "USER.md")


def test_undo_refuses_when_the_file_changed_since(qtbot, window: MainWindow) -> None:
    _send(qtbot, window, "remember that I like green tea")
    notice = _notices(window)[-1]
    doc = window.store.read("USER.md")
    MemoryWriter(window.store).write("USER.md", doc.raw + "\n- Edited by hand\n", actor=Actor.EDITOR,
                                     expected_sha=doc.sha)
    assert not notice.undo_changes.undo()
    assert "History" in notice.note.text() and "Edited by hand" in _body(window, "USER.md")


def test_a_tool_change_has_undo_too(qtbot, make_window) -> None:
    backend = ScriptedBackend(
        [[ToolCall("context_update", {"file": "USER.md", "action": "append", "content": "- Plays the cello"})], "Done."],
        supports_tools=True,
    )
    window = make_window(backend)
    _send(qtbot, window, "Add to my profile that I play the cello")
    tool_cards = [m for m in window.chat.messages() if getattr(m, "tool_actions", None) is not None]
    assert tool_cards and "Changed USER.md" in tool_cards[-1].text()
    actions = tool_cards[-1].tool_actions
    assert isinstance(actions.result, ToolResult) and actions.undo_button is not None
    actions.undo_button.click()
    assert "cello" not in window.store.read("USER.md").body
    assert not _notices(window)  # the tool's own notice, not a second one
