"""Reminders in the app: a timed Upcoming entry pops up at its time (fake clock) and, if missed, at the next start."""

from __future__ import annotations

from datetime import datetime

from companion.ui.reminder_glue import ReminderController
from companion.ui.tray import TrayController
from companion.curate.gate import MemoryWriter
from companion.memory.history import Actor
from tests.ui.conftest import wait_idle

# The scheduler runs paused: its jobs keep their times but the test fires them, as the fake clock says.


def add_upcoming(window, line: str) -> None:
    MemoryWriter(window.store).append("MEMORY.md", line, "## Upcoming", actor=Actor.EDITOR)


def test_a_reminder_fires_at_its_time(qtbot, window, clock) -> None:
    add_upcoming(window, "- 2026-11-29 15:00: Call my mother (2026-11-29#1)")  # the clock says 14:03
    controller = ReminderController(window, clock=clock, start_delay_ms=60_000, paused=True)
    assert controller.check() == []
    assert controller.next_run_time() == datetime(2026, 11, 29, 15, 0)
    clock.advance(minutes=57)
    job = controller.scheduler.get_job("reminder")
    with qtbot.waitSignal(controller.shown, check_params_cb=lambda r, missed: r.text == "Call my mother" and not missed):
        job.func()  # what APScheduler calls at 15:00, from its own thread
    assert window.statusBar().currentMessage() == "Reminder: Call my mother"
    assert controller.next_run_time() is None
    controller.shutdown()


def test_a_missed_reminder_shows_at_the_next_start_once(qtbot, make_window, scripted, clock) -> None:
    window = make_window(scripted)
    add_upcoming(window, "- 2026-11-29 08:00: Take the pills (2026-11-28#4)")  # 14:03 now: missed this morning
    with qtbot.waitSignal(ReminderController.shown.__get__(controller := ReminderController(window, clock=clock, paused=True)),
                          check_params_cb=lambda r, missed: missed and r.text == "Take the pills"):
        pass
    assert window.statusBar().currentMessage().startswith("Missed reminder (Sun 08:00)")
    controller.shutdown()
    again = ReminderController(window, clock=clock, paused=True)  # the next start
    assert again.check() == []
    again.shutdown()


def test_a_reminder_set_in_the_chat_is_scheduled_and_clicking_it_quotes_it(qtbot, make_window, scripted, clock) -> None:
    window = make_window(scripted, clock=clock)
    tray = TrayController(window, available=False)
    window.tray = tray
    controller = ReminderController(window, clock=clock, start_delay_ms=60_000, paused=True)
    window.send("Remind me at 9pm to water the plants")
    wait_idle(qtbot, window)
    qtbot.waitUntil(lambda: controller.next_run_time() is not None, timeout=5000)
    assert controller.next_run_time().hour == 21
    clock.advance(hours=7)
    shown = controller.check()
    assert [r.text for r in shown] == ["Water the plants"]
    tray.icon.messageClicked.emit()  # the user clicks the notification
    assert window.composer.edit.toPlainText().startswith("> 2026-11-29 21:00 Water the plants")
    controller.shutdown()


def test_a_reminder_fires_at_its_minute_not_a_second_before(qtbot, window, clock) -> None:
    add_upcoming(window, "1. 2026-11-29 15:00: Stretch (2026-11-29#1)")  # a numbered entry is an entry too
    clock.now = clock.now.replace(hour=14, minute=59, second=59, microsecond=999_000)
    controller = ReminderController(window, clock=clock, start_delay_ms=60_000, paused=True)
    assert controller.check() == []  # the scheduler's thread may wake a moment early: nothing shows then
    assert controller.next_run_time() == datetime(2026, 11, 29, 15, 0)  # and it waits for the minute again
    clock.advance(milliseconds=1)
    assert [r.text for r in controller.check()] == ["Stretch"]
    assert controller.next_run_time() is None
    controller.shutdown()
