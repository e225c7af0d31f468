"""Sleep in the app: nightly schedule (APScheduler), missed-night catch-up, "Sleep now", the morning report with undo."""

from __future__ import annotations

import logging
import time
from datetime import datetime
from datetime import time as dtime
from typing import Any, Callable

from PySide6.QtCore import QDateTime, QLocale, QObject, Qt, QTimer, Signal, Slot
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFrame,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from companion.errors import CompanionError
from companion.memory import entries as E
from companion.memory.daylog import now_local
from companion.sleep.job import SleepJob
from companion.sleep.report import APPLIED, ReportStore, SleepReport, undo_entry, undo_run
from companion.sleep.schedule import NightlySchedule, catch_up_due, parse_time
from companion.ui.extensions import WindowAPI
from companion.ui.jobs import BackgroundJob

log = logging.getLogger(__name__)

CATCH_UP_DELAY_MS = 60_000  # let the app open and the model load before a missed night runs
CHAT_QUIET_S = 300.0  # a scheduled or caught-up run waits until chat has been quiet this long

VERBS = {"added": "Added", "updated": "Updated", "superseded": "Replaced", "moved": "Moved to timeline",
         "retired": "No longer true", "merged": "Merged duplicate"}


class SleepController(QObject):
    """Runs the nightly schedule (sleep/schedule.py) in the app; every widget change happens on the GUI thread."""

    due = Signal()  # emitted from the scheduler thread
    started = Signal()
    progress = Signal(str)
    finished = Signal(object)  # SleepReport
    failed = Signal(str)

    def __init__(
        self,
        window: WindowAPI,
        *,
        clock: Callable[[], datetime] = now_local,
        catch_up_delay_ms: int = CATCH_UP_DELAY_MS,
        chat_quiet_s: float = CHAT_QUIET_S,
    ) -> None:
        super().__init__(window.widget)
        self.window = window
        self.clock = clock
        self.chat_quiet_s = chat_quiet_s
        self.reports = ReportStore(window.home)
        self._job: SleepJob | None = None
        self._thread: BackgroundJob | None = None
        self.schedule: NightlySchedule | None = None
        self._chat_busy = False
        self._closed = False  # after shutdown nothing starts again (a thread must not outlive the window)
        self._chat_at = float("-inf")  # when chat was last busy (monotonic)
        self._waiting = QTimer(self)  # a scheduled run waiting for chat to go quiet
        self._waiting.setSingleShot(True)
        self._waiting.timeout.connect(self.run_when_quiet)
        self.due.connect(self.run_when_quiet, Qt.ConnectionType.QueuedConnection)
        self.finished.connect(self._on_finished)
        self.failed.connect(self._on_failed)
        self.progress.connect(lambda text: self.status.setText(f"💤 {text}"))
        self._build_ui()
        window.busy_changed.connect(self._chat_activity)
        window.settings_changed.connect(self._reschedule)
        window.closing.connect(self.shutdown)
        self._start_schedule(catch_up_delay_ms)
        self._show_next()

    # -- UI -------------------------------------------------------------------

    def _build_ui(self) -> None:
        menu = self.window.menu("&Memory")
        menu.addSeparator()
        self.sleep_action = QAction(self.tr("Sleep now"), self)
        self.sleep_action.setToolTip(self.tr("Distill today's conversations into long-term memory now"))
        self.sleep_action.triggered.connect(self._toggle)
        menu.addAction(self.sleep_action)
        self.report_action = QAction(self.tr("What I learned last night…"), self)
        self.report_action.triggered.connect(self.show_latest_report)
        menu.addAction(self.report_action)
        self.status = QLabel()
        self.status.hide()
        self.window.add_status_widget(self.status)
        self.next_label = QLabel()
        self.next_label.setToolTip(self.tr("When the companion next distills the day into long-term memory"))
        self.window.add_status_widget(self.next_label)

    def _show_next(self) -> None:
        when = self.next_run_time()
        if not self.window.settings.sleep.enabled:
            self.next_label.setText(self.tr("Nightly sleep off"))
        elif when is not None:
            stamp = QLocale().toString(QDateTime(when.date(), when.time()), "ddd HH:mm")  # weekday in the UI's language
            self.next_label.setText(self.tr("Next sleep %1").replace("%1", stamp))
        else:
            self.next_label.setText("")

    @Slot()
    def _reschedule(self) -> None:
        """Preferences changed: the new time (or off) takes effect at once, without a catch-up run."""
        if self._closed:
            return
        if self.schedule is not None:
            self.schedule.stop()
        self.schedule = None
        self._start_schedule(catch_up_delay_ms=None)
        self._show_next()

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.isRunning()

    @Slot()
    def _toggle(self) -> None:
        if self.running:
            self.cancel()
        else:
            self.run_now()

    @Slot(bool)
    def _chat_activity(self, busy: bool) -> None:
        self._chat_busy = busy
        self._chat_at = time.monotonic()

    def chat_quiet_for(self) -> float:
        """Seconds since chat was last busy (0 while a reply is in progress)."""
        return 0.0 if self._chat_busy else time.monotonic() - self._chat_at

    # -- schedule ---------------------------------------------------------------

    def _sleep_time(self) -> dtime:
        try:
            return parse_time(self.window.settings.sleep.time)
        except CompanionError as exc:
            log.warning("%s Using 03:00.", exc)
            return parse_time("03:00")

    def _start_schedule(self, catch_up_delay_ms: int | None) -> None:
        if not self.window.settings.sleep.enabled:
            return
        at = self._sleep_time()
        self.schedule = NightlySchedule(at, self.due.emit)
        self.schedule.start()
        if catch_up_delay_ms is None:
            return
        if catch_up_due(self.window.home, self.clock(), at):
            QTimer.singleShot(catch_up_delay_ms, self.run_when_quiet)  # the missed night, once
        else:
            QTimer.singleShot(0, self.show_pending_report)

    def next_run_time(self) -> datetime | None:
        return self.schedule.next_run_time() if self.schedule is not None else None

    # -- running ------------------------------------------------------------------

    @Slot()
    def run_when_quiet(self) -> None:
        """A scheduled or caught-up run: never distills while the user is chatting; waits for quiet."""
        wait = self.chat_quiet_s - self.chat_quiet_for()
        if self._closed:
            return
        if wait > 0:
            self._waiting.start(int(min(wait, self.chat_quiet_s) * 1000) + 1)
            return
        if not self.running:
            self.run_now()

    @Slot()
    def run_now(self) -> None:
        if self._closed:
            return
        if self.running:
            self.window.show_message(self.tr("Already sleeping; the report comes when it finishes."))
            return
        self._waiting.stop()
        job = SleepJob(self.window.home, self.window.session.background(), clock=self.clock, store=self.window.store,
                       progress=self.progress.emit)
        self._job = job
        self._thread = BackgroundJob(lambda _report, _cancelled: self._work(job), self, name="sleep", on_cancel=job.cancel)
        self.sleep_action.setText(self.tr("Stop sleeping"))
        self.status.setText(self.tr("💤 Sleeping…"))
        self.status.show()
        self.started.emit()
        self._thread.start()

    def _work(self, job: SleepJob) -> None:
        try:
            self.finished.emit(job.run())
        except CompanionError as exc:
            self.failed.emit(str(exc))
        except Exception as exc:  # never let the worker die silently
            log.exception("sleep job failed")
            self.failed.emit(f"The sleep job failed unexpectedly ({exc}); it will try again next time.")

    def cancel(self) -> None:
        if self._thread is not None:
            self._thread.cancel()

    def wait(self, timeout: float = 30.0) -> None:
        if self._thread is not None:
            self._thread.wait(int(timeout * 1000))

    @Slot()
    def shutdown(self) -> None:
        """Stop the schedule and a run in progress (before the model closes at quit)."""
        self._closed = True
        self._waiting.stop()
        if self._thread is not None:
            self._thread.stop()
        if self.schedule is not None:
            self.schedule.stop()
            self.schedule = None

    def _idle(self) -> None:
        self.sleep_action.setText(self.tr("Sleep now"))
        self.status.hide()
        self._show_next()

    @Slot(object)
    def _on_finished(self, report: SleepReport) -> None:
        self._idle()
        self.window.show_message(report.summary(), 10000)
        if report.applied():
            self.show_report(report)

    @Slot(str)
    def _on_failed(self, message: str) -> None:
        self._idle()
        self.window.show_message(message, 10000)

    # -- reports ------------------------------------------------------------------

    @Slot()
    def show_pending_report(self) -> None:
        report = self.reports.latest_unseen()
        if report is not None:
            self.show_report(report)

    @Slot()
    def show_latest_report(self) -> None:
        reports = [r for r in self.reports.all() if not r.dry_run]
        if not reports:
            self.window.show_message(self.tr("No sleep report yet: the first one comes after tonight."))
            return
        self.show_report(reports[-1])

    def show_report(self, report: SleepReport) -> "ReportDialog":
        dialog = ReportDialog(report, self.window.store, self.reports, self.window.widget)
        self.reports.mark_seen(report)
        dialog.show()
        self.dialog = dialog
        return dialog


def _scrolled(label: QLabel, max_height: int) -> QScrollArea:
    """A long text scrolls inside the dialog, so the dialog fits a small screen."""
    area = QScrollArea()
    area.setWidget(label)
    area.setWidgetResizable(True)
    area.setFrameShape(QFrame.Shape.NoFrame)
    area.setMaximumHeight(max_height)
    area.setSizeAdjustPolicy(QScrollArea.SizeAdjustPolicy.AdjustToContents)
    return area


class ReportDialog(QDialog):
    """What the last run changed; undo one entry or the whole run (other edits are kept)."""

    def __init__(self, report: SleepReport, store: Any, reports: ReportStore, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.report = report
        self.store = store
        self.reports = reports
        self.setWindowTitle(self.tr("What I learned"))
        self.resize(620, 420)
        layout = QVBoxLayout(self)
        self.summary = QLabel(report.summary())
        self.summary.setTextFormat(Qt.TextFormat.PlainText)  # the report quotes what was learned: text, never markup
        self.summary.setWordWrap(True)
        layout.addWidget(_scrolled(self.summary, 160))
        self.list = QListWidget()
        layout.addWidget(self.list, 1)
        self.refused = QLabel()
        self.refused.setTextFormat(Qt.TextFormat.PlainText)
        self.refused.setWordWrap(True)
        layout.addWidget(self.refused)
        self.cost = QLabel("\n".join(report.notes + report.cost_lines()))  # how the night ran and what it cost
        self.cost.setObjectName("sleepCost")
        self.cost.setTextFormat(Qt.TextFormat.PlainText)
        self.cost.setWordWrap(True)
        self.cost.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(_scrolled(self.cost, 140))
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        self.undo_button = QPushButton(self.tr("Undo this"))
        self.undo_all_button = QPushButton(self.tr("Undo all"))
        buttons.addButton(self.undo_button, QDialogButtonBox.ButtonRole.ActionRole)
        buttons.addButton(self.undo_all_button, QDialogButtonBox.ButtonRole.ActionRole)
        buttons.rejected.connect(self.close)
        self.undo_button.clicked.connect(self.undo_selected)
        self.undo_all_button.clicked.connect(self.undo_all)
        self.list.currentRowChanged.connect(lambda _row: self._update_buttons())
        layout.addWidget(buttons)
        self._fill()

    def _fill(self) -> None:
        self.list.clear()
        for index, outcome in self.report.applied():
            verb = VERBS.get(outcome.status, outcome.status.capitalize())
            done = self.tr(" (undone)") if index in self.report.undone else ""
            what = outcome.op.text
            if outcome.status in ("retired", "merged"):  # the audit marked an entry: say which and why
                what = f"{E.entry_text(outcome.old_line)} ({outcome.reason})"
            item = QListWidgetItem(f"{outcome.op.file} · {verb}: {what}{done}")
            item.setToolTip(self.tr("From ") + ", ".join(outcome.op.sources))
            item.setData(Qt.ItemDataRole.UserRole, index)
            self.list.addItem(item)
        refused = self.report.refused()
        self.refused.setText(
            self.tr("{n} proposal(s) were refused (duplicates, secrets, unsupported claims).").format(n=len(refused))
            if refused else ""
        )
        self._update_buttons()

    def _update_buttons(self) -> None:
        item = self.list.currentItem()
        index = item.data(Qt.ItemDataRole.UserRole) if item is not None else None
        undoable = index is not None and index not in self.report.undone and self.report.outcomes[index].status in APPLIED
        self.undo_button.setEnabled(bool(undoable))
        remaining = [i for i, _ in self.report.applied() if i not in self.report.undone]
        self.undo_all_button.setEnabled(bool(remaining))

    def _run(self, action: Any) -> None:
        try:
            result = action()
        except CompanionError as exc:
            self.summary.setText(str(exc))
            return
        self.reports.save(self.report)
        messages = result if isinstance(result, list) else [result]
        self.summary.setText("\n".join(messages) or self.report.summary())
        row = self.list.currentRow()
        self._fill()
        self.list.setCurrentRow(row)

    @Slot()
    def undo_selected(self) -> None:
        item = self.list.currentItem()
        if item is not None:
            index = item.data(Qt.ItemDataRole.UserRole)
            self._run(lambda: undo_entry(self.store, self.report, index))

    @Slot()
    def undo_all(self) -> None:
        self._run(lambda: undo_run(self.store, self.report))


def install(window: WindowAPI) -> SleepController:
    controller = SleepController(window)
    window.sleep_controller = controller
    return controller
