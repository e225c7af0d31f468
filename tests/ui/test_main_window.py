"""The main window: chat streaming, stop, regenerate, model loading, extensions, window state."""

from __future__ import annotations

import json
import sys
import types
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMainWindow

from companion.errors import NotAGGUFError
from companion.llm.priority import ForegroundView
from companion.llm.scripted import ScriptedBackend
from companion.memory.daylog import DayLog
from companion.paths import Home
from companion.settings import Settings
from companion.ui.main_window import READ_AHEAD_MS, MainWindow
from tests.ui.conftest import wait_idle


def _send(qtbot, window: MainWindow, text: str, timeout: int = 10_000) -> None:
    window.composer.edit.setPlainText(text)
    qtbot.keyClick(window.composer.edit, Qt.Key.Key_Return)
    wait_idle(qtbot, window, timeout)


def _said(home: Home) -> list:
    """The conversation in the log (trigger bookkeeping left out)."""
    return [r for r in DayLog(home.days).tail(50) if r.role in ("user", "assistant")]


def test_window_opens_titled_companion_with_standard_menus(window: MainWindow) -> None:
    assert window.windowTitle() == "Companion"
    titles = [a.text() for a in window.menuBar().actions()]
    assert titles == ["&File", "&Memory", "&Settings", "&Help"]
    assert window.menu("&Memory") is window.menu("&Memory")
    assert window.quit_action.shortcut().toString() == "Ctrl+Q"
    assert window.settings_action.shortcut().toString() == "Ctrl+,"


def test_first_launch_greets_and_logs_the_greeting(window: MainWindow, home: Home) -> None:
    messages = window.chat.messages()
    assert [m.role for m in messages] == ["assistant"]
    assert "?" in messages[0].text()
    logged = DayLog(home.days).tail(5)
    assert [r.role for r in logged] == ["assistant"]


def test_send_streams_reply_into_view_and_day_log(qtbot, make_window, home: Home) -> None:
    backend = ScriptedBackend(["Here is a list:\n\n- one\n- two 二\n\n```\ncode\n```"], delay=0.005)
    window = make_window(backend)
    seen: list[str] = []
    window.controller.worker.deltas.connect(seen.append)
    _send(qtbot, window, "Hello there, 你好")
    assert window.composer.edit.toPlainText() == ""
    roles = [(m.role, m.text()) for m in window.chat.messages()][-2:]
    assert roles[0] == ("user", "Hello there, 你好")
    assert roles[1][0] == "assistant" and "two 二" in roles[1][1]
    assert seen and "".join(seen).strip() == roles[1][1]
    records = [r for r in DayLog(home.days).tail(5) if r.role in ("user", "assistant")][-2:]
    assert [(r.role, r.text) for r in records] == [("user", "Hello there, 你好"), ("assistant", roles[1][1])]
    assert window.chat.messages()[-1].record_id == records[-1].id
    assert "tok/s" in window.speed_label.text()


def test_shift_enter_inserts_a_new_line(qtbot, window: MainWindow, scripted: ScriptedBackend) -> None:
    window.composer.edit.setPlainText("line one")
    window.composer.edit.moveCursor(window.composer.edit.textCursor().MoveOperation.End)
    qtbot.keyClick(window.composer.edit, Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)
    assert window.composer.edit.toPlainText() == "line one\n"
    assert not scripted.prompts


def test_stop_cancels_the_reply_and_keeps_what_was_said(qtbot, make_window, home: Home) -> None:
    backend = ScriptedBackend([" ".join(f"w{i}" for i in range(400))], delay=0.01)
    window = make_window(backend)
    window.composer.edit.setPlainText("tell me a long story")
    qtbot.keyClick(window.composer.edit, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: window.chat.messages()[-1].role == "assistant" and "w5" in window.chat.messages()[-1].text())
    assert window.composer.send_button.text() == "Stop"
    window.composer.send_button.click()
    wait_idle(qtbot, window)
    last = _said(home)[-1]
    assert last.role == "assistant" and last.extra.get("cancelled") is True
    assert 0 < len(last.text.split()) < 400
    assert window.chat.messages()[-1].note.text() == "stopped"
    assert window.composer.send_button.text() == "Send"


def test_regenerated_replies_are_versions_of_one_card(qtbot, make_window, home: Home) -> None:
    window = make_window(ScriptedBackend(["First answer.", "Second answer.", "Third answer."]))
    _send(qtbot, window, "Question?")
    window.composer.regenerate_button.click()
    wait_idle(qtbot, window)
    window.regenerate()
    wait_idle(qtbot, window)
    replies = [m for m in window.chat.messages() if m.role == "assistant"]
    card = replies[-1]
    assert card.text() == "Third answer." and card.version_label.text() == "3/3"
    assert not any(m.text() in ("First answer.", "Second answer.") for m in replies)  # one card for the three
    first, second, third = _said(home)[-3:]
    assert second.extra["replaces"] == first.id and third.extra["replaces"] == second.id
    card.previous_version.click()
    card.previous_version.click()
    assert card.text() == "First answer." and card.version_label.text() == "1/3"
    assert not card.previous_version.isEnabled()
    chosen = [r for r in DayLog(home.days).read_day(first.day).records if r.extra.get("chooses")]
    assert [r.extra["chooses"] for r in chosen] == [second.id, first.id]
    # the chosen version is what the history (and so learning) sees
    from companion.agent.prompt import conversational

    kept = [r.text for r in conversational(DayLog(home.days).read_day(first.day).records) if r.role == "assistant"]
    assert kept[-1] == "First answer." and "Third answer." not in kept


def test_reopening_shows_the_chosen_version_with_the_others_a_click_away(qtbot, make_window) -> None:
    window = make_window(ScriptedBackend(["One.", "Two."]))
    _send(qtbot, window, "Q")
    window.regenerate()
    wait_idle(qtbot, window)
    window.chat.messages()[-1].show_version(0)
    again = make_window()
    card = again.chat.messages()[-1]
    assert card.text() == "One." and card.version_label.text() == "1/2"
    card.next_version.click()
    assert card.text() == "Two."
    assert [m.text() for m in again.chat.messages()].count("One.") == 0  # one card, not two


@pytest.mark.model
def test_real_tiny_model_streams_a_reply(qtbot, make_window, tiny_backend, home: Home) -> None:
    settings = Settings()
    settings.model.max_reply_tokens = 24
    window = make_window(tiny_backend, settings=settings, owned=False)  # shared by the whole run: left open
    window.controller.worker.auto_warm = False  # keep the shared model free for the next test
    _send(qtbot, window, "Say hello in one short sentence.", timeout=120_000)
    last = _said(home)[-1]
    assert last.role == "assistant" and last.text and last.extra["tokens"] <= 24
    assert window.chat.messages()[-1].text() == last.text


def test_model_load_failure_leaves_the_window_usable(qtbot, make_window, home: Home, tmp_path: Path) -> None:
    bogus = tmp_path / "notes.gguf"
    bogus.write_text("this is not a model")
    settings = Settings()
    settings.model.path = str(bogus)
    window = make_window(settings=settings, autoload=False)
    window.reload_model()
    qtbot.waitUntil(lambda: window.chat.messages()[-1].role == "error", timeout=30_000)
    assert window.model_label.text() == "No model"
    message = window.model_label.toolTip()
    assert "GGUF" in message
    assert window.backend is None
    notice = window.chat.messages()[-1]
    assert notice.role == "error" and "Settings" in notice.text()
    # reading and editing memory still work, and a message is kept for later
    editor = window.memory_pane.open_file("USER.md")
    editor.editor.appendPlainText("- Likes tea")
    assert editor.save()
    _send(qtbot, window, "are you there?")
    assert _said(home)[-1].text == "are you there?"
    assert window.chat.messages()[-1].role == "error"


def test_loader_error_message_reaches_the_user(qtbot, make_window) -> None:
    def loader(_settings):
        raise NotAGGUFError("x.bin is not a GGUF model file. Choose a .gguf file in Settings.")

    window = make_window(loader=loader)
    window.reload_model()
    qtbot.waitUntil(lambda: window.chat.messages()[-1].role == "error")
    assert "x.bin is not a GGUF" in window.chat.messages()[-1].text()


def test_model_loads_in_the_background_and_reports_status(qtbot, make_window) -> None:
    backend = ScriptedBackend()
    window = make_window(loader=lambda _s: backend)
    with qtbot.waitSignal(window.backend_changed, check_params_cb=lambda b: b is not None):
        window.reload_model()
    qtbot.waitUntil(lambda: window.model_label.text().startswith("scripted"))
    assert isinstance(window.backend, ForegroundView) and window.backend.shared.inner is backend
    qtbot.waitUntil(lambda: bool(backend.prefills))  # the prompt prefix is warmed after loading


def test_shutdown_closes_the_backend(qtbot, make_window) -> None:
    backend = ScriptedBackend()
    window = make_window(backend)
    window.shutdown()
    assert backend.closed and not window.controller.thread.isRunning()


def test_extensions_install_and_a_broken_one_is_skipped(qtbot, make_window, monkeypatch) -> None:
    good = types.ModuleType("companion_test_good_ext")

    def install(window: MainWindow) -> None:
        window.menu("&File").addAction("Export memory…")
        window.tools_menu = window.menu("&Tools")

    good.install = install  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "companion_test_good_ext", good)
    window = make_window(extensions=("companion_test_missing_ext", "companion_test_good_ext"))
    assert window.installed_extensions == ["companion_test_good_ext"]
    assert "Export memory…" in [a.text() for a in window.menu("&File").actions()]
    assert isinstance(window, QMainWindow)


def test_menu_keeps_standard_order_for_new_menus(window: MainWindow) -> None:
    window.menu("&Tools")
    assert [a.text() for a in window.menuBar().actions()][-1] == "&Tools"


def test_window_geometry_and_pane_state_are_restored(qtbot, make_window) -> None:
    window = make_window()
    window.show()
    window.resize(700, 500)
    window.memory_pane.hide()
    window.save_state()
    again = make_window()
    assert again.size().width() == 700
    assert again.memory_pane.isHidden()


def _write_days(home: Home, days: int) -> None:
    for offset in range(days):
        day = date(2025, 1, 1) + timedelta(days=offset)
        stamp = datetime(day.year, day.month, day.day, 9, 0, tzinfo=timezone.utc)
        log = DayLog(home.days, clock=lambda s=stamp: s)
        log.append("user", f"message of {day.isoformat()}")
        log.append("assistant", f"reply of {day.isoformat()}")


@pytest.mark.slow
def test_earlier_days_load_lazily_on_scroll(qtbot, make_window, home: Home) -> None:
    _write_days(home, 60)
    window = make_window()
    shown = len(window.chat.messages())
    assert shown < 60
    assert window.chat.has_earlier()
    added = window.chat.load_earlier()
    assert added == 2 and len(window.chat.messages()) == shown + 2
    assert "2025-" in window.chat.messages()[0].text()


def test_find_highlights_a_matching_message(qtbot, make_window, home: Home) -> None:
    _write_days(home, 3)
    window = make_window()
    window.open_find()
    window.find_edit.setText("message of 2025-01-02")
    qtbot.keyClick(window.find_edit, Qt.Key.Key_Return)
    found = [m for m in window.chat.messages() if m.property("found")]
    assert [m.text() for m in found] == ["message of 2025-01-02"]
    window.find_edit.setText("nothing like this")
    qtbot.keyClick(window.find_edit, Qt.Key.Key_Return)
    assert window.find_status.text()


def test_copy_puts_the_message_on_the_clipboard(qtbot, window: MainWindow) -> None:
    from PySide6.QtGui import QGuiApplication

    window.chat.messages()[0].copy_button.click()
    assert QGuiApplication.clipboard().text() == window.chat.messages()[0].text()


def test_window_state_file_is_json(make_window, home: Home) -> None:
    window = make_window()
    window.show()
    window.save_state()
    data = json.loads((home.state / "window.json").read_text())
    assert set(data) >= {"geometry", "splitter", "pane"}


@pytest.mark.parametrize("busy", [True])
def test_quitting_during_a_reply_cancels_it_and_logs_it(qtbot, make_window, home: Home, busy: bool) -> None:
    backend = ScriptedBackend([" ".join(f"w{i}" for i in range(500))], delay=0.01)
    window = make_window(backend)
    window.send("go")
    qtbot.waitUntil(lambda: "w3" in window.chat.messages()[-1].text())
    window.close()
    assert not window.controller.thread.isRunning()
    last = _said(home)[-1]
    assert last.role == "assistant" and last.extra.get("cancelled") is True and backend.closed


def test_recalled_memories_are_listed_under_the_reply(qtbot, make_window, home: Home) -> None:
    digest = home.digests / "day" / "2026-10-20.md"  # older memory that is not in the prompt already
    digest.parent.mkdir(parents=True, exist_ok=True)
    digest.write_text("# 2026-10-20\n\n- 09:12 Said their favourite tea is Longjing from Hangzhou.\n", encoding="utf-8")
    window = make_window(ScriptedBackend(["You like Longjing."]))
    _send(qtbot, window, "Which tea do I like, Longjing or another?")
    reply = window.chat.messages()[-1]
    assert reply.role == "assistant"
    assert "Recalled" in reply.recalled_button.text()
    assert reply.recalled_list.isHidden()
    reply.recalled_button.click()
    assert not reply.recalled_list.isHidden() and "Longjing" in reply.recalled_list.text()


@pytest.mark.slow
def test_find_reaches_days_not_loaded_yet(qtbot, make_window, home: Home) -> None:
    _write_days(home, 90)  # far more than the first screen holds
    window = make_window()
    assert not any(m.text() == "message of 2025-01-03" for m in window.chat.messages())
    window.open_find()
    window.find_edit.setText("message of 2025-01-03")
    qtbot.keyClick(window.find_edit, Qt.Key.Key_Return)
    found = [m for m in window.chat.messages() if m.property("found")]
    assert [m.text() for m in found] == ["message of 2025-01-03"]
    assert not window.chat.at_latest() and window.chat.loaded_days()[0] <= date(2025, 1, 3)  # jumped to that day
    assert len(window.chat.messages()) <= 2 * 40  # its neighbourhood, not everything up to it


def test_forget_offers_to_erase_everywhere_and_the_screen_follows(qtbot, window: MainWindow, home: Home,
                                                                 monkeypatch) -> None:
    from companion.ui import forget_everywhere
    from companion.ui.message_widget import MessageWidget

    _send(qtbot, window, "My locker code is under the blue mat.")
    _send(qtbot, window, "forget my locker code")
    notices = [w for w in window.chat.messages() if isinstance(getattr(w, "forget_everywhere", None), forget_everywhere.ForgetEverywhere)]
    assert len(notices) == 1
    action = notices[0].forget_everywhere  # type: ignore[attr-defined]
    asked: list[str] = []
    action.ask = lambda _parent, where: asked.append(where) or True
    action.button.click()
    assert asked and "message" in asked[0]
    assert action.button.isHidden()
    shown = [w.text() for w in window.chat.messages() if isinstance(w, MessageWidget) and w.role == "user"]
    assert shown and not any("locker" in t.lower() for t in shown)
    assert not [p for p in home.root.rglob("*.jsonl") if "locker" in p.read_text(encoding="utf-8").lower()]


def test_the_built_in_model_is_named_in_the_users_language(qtbot, make_window, qapp) -> None:
    from dataclasses import replace

    from PySide6.QtCore import QLocale

    from companion.llm.catalog import EMBEDDED_LABEL
    from companion.ui import app as app_module

    backend = ScriptedBackend()
    backend.info = replace(backend.info, name=EMBEDDED_LABEL)
    translators = app_module.install_translators(qapp, QLocale(QLocale.Language.Chinese, QLocale.Country.China))
    try:
        window = make_window(backend)
        assert window.model_label.text().startswith("SmolLM2 135M（内置）")
    finally:
        for translator in translators:
            qapp.removeTranslator(translator)
    english = make_window(backend)
    assert english.model_label.text().startswith(EMBEDDED_LABEL)


def _draft_read(backend: ScriptedBackend, text: str) -> bool:
    return any(p[-1]["role"] == "user" and p[-1]["content"].endswith(text) for p in backend.prefills)


def test_a_pause_in_typing_reads_the_draft_ahead_and_sending_it_sends_that_prompt(qtbot, make_window) -> None:
    backend = ScriptedBackend(["Hi!", "Sure."])
    window = make_window(backend)
    _send(qtbot, window, "I'm Ana and I live in Lyon.")
    qtbot.keyClicks(window.composer.edit, "Where do I live?")
    qtbot.waitUntil(lambda: _draft_read(backend, "Where do I live?"), timeout=5_000)
    read = [p for p in backend.prefills if p[-1]["content"].endswith("Where do I live?")][-1]
    qtbot.keyClick(window.composer.edit, Qt.Key.Key_Return)
    wait_idle(qtbot, window)
    assert backend.prompts[-1] == read
    sent_at = len(backend.prefills)
    qtbot.wait(READ_AHEAD_MS + 200)  # the composer emptied on sending: an empty draft is not read
    assert all(p[-1]["role"] == "assistant" for p in backend.prefills[sent_at:])  # warmed for the next message only


def test_a_draft_typed_while_a_reply_is_written_is_read_once_it_is_done(qtbot, make_window) -> None:
    backend = ScriptedBackend(["one two three four five six seven eight nine ten eleven twelve"], delay=0.1)
    window = make_window(backend)
    window.composer.edit.setPlainText("Tell me a story")
    qtbot.keyClick(window.composer.edit, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: window.controller.busy)
    qtbot.keyClicks(window.composer.edit, "and then?")
    qtbot.wait(READ_AHEAD_MS + 100)
    assert window.controller.busy and not _draft_read(backend, "and then?")
    wait_idle(qtbot, window)
    qtbot.waitUntil(lambda: _draft_read(backend, "and then?"), timeout=5_000)
