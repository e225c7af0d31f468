"""The conversation over a year: a bounded window of days, find through the search index, code blocks,
edit, delete and the "thinking…" card."""

from __future__ import annotations

import json
from datetime import date, datetime, timedelta, timezone

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication

from companion.llm.scripted import ScriptedBackend
from companion.memory.daylog import DayLog
from companion.paths import Home
from companion.ui import chat_view
from companion.ui.code_block import CodeBlock
from companion.ui.main_window import MainWindow
from tests.ui.conftest import wait_idle

FIRST = date(2025, 1, 1)


def write_year(home: Home, days: int = 365, per_day: int = 30) -> None:
    """Day logs as the app writes them (one JSON object a line), written in one go per day."""
    log = DayLog(home.days)
    for offset in range(days):
        day = FIRST + timedelta(days=offset)
        lines = []
        for i in range(per_day):
            ts = datetime(day.year, day.month, day.day, 9, i, tzinfo=timezone.utc).isoformat(timespec="milliseconds")
            text = (f"question {i // 2} of {day.isoformat()} about the garden" if i % 2 == 0 else
                    f"answer {i // 2} of {day.isoformat()}: water the **roses**")
            role = "user" if i % 2 == 0 else "assistant"
            lines.append(json.dumps({"id": f"{day.isoformat()}#{i + 1}", "ts": ts, "role": role, "text": text}))
        path = log.path_for(day)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _send(qtbot, window: MainWindow, text: str) -> None:
    window.composer.edit.setPlainText(text)
    qtbot.keyClick(window.composer.edit, Qt.Key.Key_Return)
    wait_idle(qtbot, window)


def _scroll_up(qtbot, window: MainWindow, pages: int) -> None:
    bar = window.chat.verticalScrollBar()
    for _ in range(pages):
        bar.setValue(bar.minimum())
        qtbot.wait(5)


@pytest.mark.slow
def test_a_year_of_history_keeps_the_number_of_widgets_bounded(qtbot, make_window, home: Home) -> None:
    write_year(home)
    window = make_window()
    window.show()
    chat = window.chat
    assert chat.at_latest() and len(chat.messages()) < 2 * chat_view.INITIAL_RECORDS
    for _ in range(40):  # a long way up
        chat.load_earlier()
    shown = len(chat.messages())
    assert shown <= chat_view.MAX_RECORDS + 30  # one day's worth over the window at most
    assert not chat.at_latest() and chat.has_earlier()
    days = chat.loaded_days()
    assert days == sorted(days) and days[-1] < FIRST + timedelta(days=364)
    while chat.has_later():  # and back down to today
        chat.load_later()
    assert chat.at_latest() and len(chat.messages()) <= chat_view.MAX_RECORDS + 30
    assert chat.messages()[-1].text().startswith("answer 14 of 2025-12-31")
    assert chat.created < 3000  # made as days came into view (about 80 days up and down), not 10,950 for the year


@pytest.mark.slow
def test_scrolling_to_the_top_pages_in_earlier_days_and_never_shows_a_blank_view(qtbot, make_window, home) -> None:
    write_year(home, days=30)
    window = make_window()
    window.resize(900, 700)
    window.show()
    qtbot.waitExposed(window)
    chat = window.chat
    first_day = chat.loaded_days()[0]
    _scroll_up(qtbot, window, 20)
    qtbot.waitUntil(lambda: chat.loaded_days()[0] < first_day)
    bar = chat.verticalScrollBar()
    visible = [m for m in chat.messages() if not m.visibleRegion().isEmpty()]
    assert visible and bar.maximum() > 0  # something is on screen, the view did not blank out


@pytest.mark.slow
def test_find_goes_through_the_index_counts_matches_and_jumps_to_the_day(qtbot, make_window, home) -> None:
    write_year(home, days=120)
    window = make_window()
    window.show()
    window.open_find()
    window.find_edit.setText("question 3 of 2025-01-1")  # ten days match, the oldest 110 days back
    window.find_step(older=True)
    assert window.find_status.text() == "1 of 10"
    found = [m for m in window.chat.messages() if m.property("found")]
    assert [m.text() for m in found] == ["question 3 of 2025-01-19 about the garden"]
    assert not window.chat.at_latest()
    for _ in range(9):
        window.find_older.click()
    assert window.find_status.text() == "10 of 10"
    found = [m for m in window.chat.messages() if m.property("found")]
    assert [m.text() for m in found] == ["question 3 of 2025-01-10 about the garden"]
    assert not found[0].visibleRegion().isEmpty()  # brought on screen on the first Enter
    window.find_newer.click()
    assert window.find_status.text() == "9 of 10"
    window.find_older.click()
    window.find_older.click()  # past the oldest: round to the newest
    assert window.find_status.text() == "1 of 10"
    window.find_edit.setText("nothing like this anywhere")
    qtbot.keyClick(window.find_edit, Qt.Key.Key_Return)
    assert window.find_status.text() == "Not found"


def test_find_matches_chinese_text(qtbot, make_window, home) -> None:
    DayLog(home.days).append("user", "我们明天去看樱花吧")
    window = make_window()
    window.open_find()
    window.find_edit.setText("樱花")
    window.find_step()
    assert window.find_status.text() == "1 of 1"


@pytest.mark.slow
def test_a_new_message_brings_the_view_back_to_the_present(qtbot, make_window, home) -> None:
    write_year(home, days=60)
    window = make_window(ScriptedBackend(["Here."]))
    window.open_find()
    window.find_edit.setText("question 1 of 2025-01-02")
    window.find_step()
    assert not window.chat.at_latest()
    _send(qtbot, window, "back to today")
    assert window.chat.at_latest()
    said = [m.text() for m in window.chat.messages() if m.role in ("user", "assistant")]
    assert said[-2:] == ["back to today", "Here."]


@pytest.mark.slow
def test_a_reply_shows_thinking_until_its_first_words(qtbot, make_window) -> None:
    window = make_window(ScriptedBackend(["Slow words arrive."], delay=0.3))
    window.composer.edit.setPlainText("hello")
    qtbot.keyClick(window.composer.edit, Qt.Key.Key_Return)
    def replying() -> bool:
        roles = [(m.role, m.text()) for m in window.chat.messages()]
        return ("user", "hello") in roles and roles[-1][0] == "assistant"

    qtbot.waitUntil(replying)
    card = window.chat.messages()[-1]
    assert card.body.property("thinking") is True and "thinking" in card.body.text()
    wait_idle(qtbot, window)
    assert card.text() == "Slow words arrive." and not card.body.property("thinking")


def test_fenced_code_is_a_highlighted_block_with_copy_and_long_lines_scroll_inside(qtbot, make_window) -> None:
    long_line = "x = " + " + ".join(str(i) for i in range(400))
    reply = f"Here:\n\n```python\ndef f():\n    return 1\n{long_line}\n```\n\nDone."
    window = make_window(ScriptedBackend([reply]))
    window.resize(900, 700)
    window.show()
    _send(qtbot, window, "code please")
    qtbot.waitUntil(lambda: [m.role for m in window.chat.messages()][-2:] == ["user", "assistant"])
    card = window.chat.messages()[-1]  # the timeline pages cards in over a few event-loop turns
    blocks = card.code_blocks()
    assert len(blocks) == 1 and isinstance(blocks[0], CodeBlock)
    block = blocks[0]
    assert block.language() == "python" and block.code().startswith("def f():")
    html = block.view.document().toHtml()
    assert "color:" in html and "def" in block.view.toPlainText()  # Pygments coloured it
    assert block.view.font().fixedPitch() or block.view.font().styleHint() == block.view.font().StyleHint.Monospace
    assert block.view.horizontalScrollBar().maximum() > 0  # the long line scrolls inside the block
    assert card.width() <= window.chat.viewport().width()  # and does not widen the message
    block.copy_button.click()
    assert QGuiApplication.clipboard().text() == block.code()


def test_code_blocks_stream_in_without_rebuilding_what_came_before(qapp) -> None:
    from companion.ui.message_widget import MessageWidget

    card = MessageWidget("assistant")
    for piece in ["Intro\n\n", "```js\n", "let a", " = 1;\n", "```\n\nafter"]:
        card.append(piece)
    assert [s.kind for s in card.parts()] == ["markdown", "code", "markdown"]
    assert card.code_blocks()[0].code() == "let a = 1;"


def test_edit_and_resend_replaces_the_last_message_and_its_reply(qtbot, make_window, home) -> None:
    window = make_window(ScriptedBackend(["First reply.", "Second reply."]))
    _send(qtbot, window, "I lvie in Lisbon")
    user = next(m for m in window.chat.messages() if m.text() == "I lvie in Lisbon")
    assert not user.edit_button.isHidden()
    user.edit_button.click()
    assert window.composer.edit.toPlainText() == "I lvie in Lisbon"
    _send(qtbot, window, "I live in Lisbon")
    texts = [m.text() for m in window.chat.messages() if m.role in ("user", "assistant")]
    assert "I lvie in Lisbon" not in texts and "First reply." not in texts
    assert texts[-2:] == ["I live in Lisbon", "Second reply."]
    records = DayLog(home.days).read_day(DayLog(home.days).clock().date()).records
    deleted = {r.extra["deletes"] for r in records if r.extra.get("deletes")}
    old = [r for r in records if r.text in ("I lvie in Lisbon", "First reply.")]
    assert {r.id for r in old} == deleted  # logged as events; the log keeps the text


def test_a_deleted_message_leaves_the_view_the_history_and_the_night(qtbot, make_window, home) -> None:
    from companion.agent.prompt import conversational
    from companion.sleep.distill import conversational as distilled

    window = make_window(ScriptedBackend(["Noted."]))
    _send(qtbot, window, "my cat is called Tom")
    card = next(m for m in window.chat.messages() if m.text() == "my cat is called Tom")
    card.delete_action.trigger()
    assert all(m.text() != "my cat is called Tom" for m in window.chat.messages())
    records = DayLog(home.days).tail(20)
    assert any(r.text == "my cat is called Tom" for r in records)  # kept in the log until the night
    for keep in (conversational, distilled):
        assert all(r.text != "my cat is called Tom" for r in keep(records))
    again = make_window()
    assert all(m.text() != "my cat is called Tom" for m in again.chat.messages())
    window.session.agent.recall.index.sync()
    assert window.session.find("cat is called Tom") == []  # not recalled or found any more


def test_a_damaged_day_log_line_is_shown_once_with_its_file_and_line(qtbot, make_window, home) -> None:
    log = DayLog(home.days)
    log.append("user", "before the damage")
    path = log.path_for(log.clock().date())
    with open(path, "a", encoding="utf-8") as handle:
        handle.write("{not json\n")
    log.append("user", "after the damage")
    window = make_window()
    qtbot.waitUntil(lambda: any(m.role == "error" for m in window.chat.messages()))
    window.chat.load_recent()  # the same day read again
    qtbot.wait(20)
    notices = [m.text() for m in window.chat.messages() if m.role == "error"]
    assert len(notices) == 1 and path.name in notices[0] and "line 2" in notices[0]
