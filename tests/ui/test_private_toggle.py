"""The "Don't remember this" toggle in the window: private turns while on, a count when turned off."""

from __future__ import annotations

from companion.memory.daylog import DayLog
from companion.ui.message_widget import MessageWidget
from companion.ui.private_toggle import PrivacyToggle
from tests.ui.conftest import wait_idle


def notices(window) -> list[str]:
    return [w.text() for w in window.chat.findChildren(MessageWidget)]


def test_toggle_pauses_memory_and_reports_the_private_turns(qtbot, window, home, clock) -> None:
    toggle = PrivacyToggle(window)
    assert toggle.button.text() == "Don't remember this" and not toggle.on
    toggle.button.click()
    assert toggle.on and toggle.button.property("active") is True and toggle.button.text() == "Not remembering"
    assert any(text.startswith("Memory paused") for text in notices(window))
    window.send("I love sushi, keep it between us")
    wait_idle(qtbot, window)
    window.send("remember that I play the cello")
    wait_idle(qtbot, window)
    toggle.action.trigger()  # the menu entry does the same
    assert not toggle.on
    assert "Remembering again. 2 turn(s) stayed private." in notices(window)
    records = [r for d in DayLog(home.days).days() for r in DayLog(home.days).read_day(d).records]
    assert [r.text for r in records if r.role == "user" and r.private] == [
        "I love sushi, keep it between us", "remember that I play the cello"]
    assert "cello" not in window.store.read_raw("MEMORY.md") and "sushi" not in window.store.read_raw("USER.md")
    assert any(a is toggle.action for a in window.menu("&Memory").actions())
    marked = [w for w in window.chat.messages() if w.note.text() == "private: not remembered"]
    assert len(marked) == 4  # both messages and both replies show they stay private
