"""Reminders in the app: a desktop notification when a timed `## Upcoming` entry is due, or at start if missed."""

from __future__ import annotations

import logging
from datetime import datetime
from typing import TYPE_CHECKING, Callable

from apscheduler.schedulers.background import BackgroundScheduler
from apscheduler.triggers.date import DateTrigger
from PySide6.QtCore import QDateTime, QLocale, QObject, Qt, QTimer, Signal, Slot

from companion.errors import CompanionError
from companion.memory.daylog import now_local
from companion.curate.requests import Reminder, ReminderState, due, next_time, timed_reminders, wall_clock

if TYPE_CHECKING:
    from companion.ui.extensions import WindowAPI

log = logging.getLogger(__name__)
MISSED_AFTER_S = 120  # shown this late, a reminder says it was missed
RECHECK_MS = 5 * 60_000


class ReminderController(QObject):
    """Schedules the next reminder with APScheduler (as the nightly sleep is); everything visible
    happens on the GUI thread through signals."""

    due_signal = Signal()  # emitted from the scheduler's thread
    _memory_changed = Signal()  # emitted from whichever thread wrote MEMORY.md
    shown = Signal(object, bool)  # Reminder, missed

    def __init__(
        self, window: "WindowAPI", *, clock: Callable[[], datetime] = now_local, start_delay_ms: int = 0, paused: bool = False
    ) -> None:
        """`paused`: the scheduler keeps its jobs but runs none (tests whose clock is not the real one)."""
        super().__init__(window.widget)
        self.window = window
        self.clock = clock
        self.state = ReminderState(window.home.reminder_state)
        self.scheduler = BackgroundScheduler(daemon=True)
        self.scheduler.start(paused=paused)
        self.due_signal.connect(self.check, Qt.ConnectionType.QueuedConnection)
        self._memory_changed.connect(self.check, Qt.ConnectionType.QueuedConnection)
        window.store.subscribe(self._on_store_write)
        window.closing.connect(self.shutdown)
        QTimer.singleShot(start_delay_ms, self.check)  # reminders missed while Companion was closed
        self._recheck = QTimer(self)  # MEMORY.md edited in another program: picked up within minutes
        self._recheck.setInterval(RECHECK_MS)
        self._recheck.timeout.connect(self.check)
        self._recheck.start()

    def _on_store_write(self, name: str, _doc: object) -> None:
        if name == "MEMORY.md":
            self._memory_changed.emit()

    def reminders(self) -> list[Reminder]:
        try:
            body = self.window.store.read("MEMORY.md").body
        except CompanionError as exc:
            log.warning("reminders: MEMORY.md unreadable: %s", exc)
            return []
        return timed_reminders(body)

    @Slot()
    def check(self) -> list[Reminder]:
        """Show what is due now (or was missed), then schedule the next one. Returns what was shown."""
        now = self.clock()
        current = self.reminders()
        shown = due(current, self.state, now)
        if shown:
            try:
                self.state.mark(shown, current)
            except CompanionError as exc:  # shown again next start rather than not at all
                log.warning("reminders: state not saved: %s", exc)
        for reminder in shown:
            self.show(reminder, missed=(wall_clock(now) - reminder.when).total_seconds() > MISSED_AFTER_S)
        self._schedule(next_time(current, self.state, now))
        return shown

    def _schedule(self, when: datetime | None) -> None:
        if self.scheduler.get_job("reminder") is not None:
            self.scheduler.remove_job("reminder")
        if when is not None:
            # No grace limit: a reminder due while the machine slept still fires when it wakes. A naive
            # time is the scheduler's local zone, so summer time is applied for that day, not today's.
            self.scheduler.add_job(self.due_signal.emit, DateTrigger(run_date=when), id="reminder",
                                   misfire_grace_time=None, coalesce=True)

    def next_run_time(self) -> datetime | None:
        """When the scheduled reminder runs, as naive local time."""
        job = self.scheduler.get_job("reminder")
        return job.next_run_time.replace(tzinfo=None) if job is not None and job.next_run_time else None

    def show(self, reminder: Reminder, missed: bool) -> None:
        stamp = QLocale().toString(QDateTime(reminder.when.date(), reminder.when.time()), "ddd HH:mm")
        title = self.tr("Missed reminder (%1)").replace("%1", stamp) if missed else self.tr("Reminder")
        quote = f"> {reminder.label()}\n\n"
        tray = getattr(self.window, "tray", None)  # the tray module, when installed
        if tray is not None:
            tray.notify(title, reminder.text, lambda: self.window.quote_in_chat(quote))
        else:
            self.window.show_message(f"{title}: {reminder.text}", 20000)
        self.window.add_notice(f"{title}: {reminder.label()}")
        self.shown.emit(reminder, missed)

    def shutdown(self) -> None:
        try:
            self.window.store.unsubscribe(self._on_store_write)
        except (RuntimeError, ValueError, AttributeError):
            pass
        if self.scheduler.running:
            self.scheduler.shutdown(wait=False)


def install(window: "WindowAPI") -> ReminderController:
    controller = ReminderController(window)
    window.reminders = controller  # type: ignore[attr-defined]
    return controller
