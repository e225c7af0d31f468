"""The one way the app runs blocking work off the GUI thread: a QThread that reports through signals."""

from __future__ import annotations

import logging
import os
import sys
import threading
from typing import Any, Callable

from PySide6.QtCore import QObject, QThread, Signal

from companion.errors import CompanionError

log = logging.getLogger(__name__)

Report = Callable[..., None]  # what the work calls with its progress (any arguments, passed on as a tuple)
Work = Callable[[Report, Callable[[], bool]], Any]  # work(report, cancelled) -> result
STOP_WAIT_MS = 60_000  # how long stopping waits for a job (by default) before leaving it to the process exit

_outliving: list[tuple[QThread, tuple[object, ...]]] = []  # threads that did not stop, with what they run


def outlive(thread: QThread, *keep: object) -> None:
    """Keep a thread that did not stop in time (stuck in a C call that cannot be interrupted) and the
    objects it runs on alive until the process ends: Qt aborts the process when a running QThread is
    destroyed, so nothing may own it any more (no parent) and nothing may delete it."""
    thread.setParent(None)
    _outliving.append((thread, keep))
    log.warning("%s did not stop in time; it ends with the process", thread.objectName())


def still_running() -> list[str]:
    """The names of the threads kept by `outlive` that are still running."""
    names: list[str] = []
    for thread, _keep in _outliving:
        try:
            if thread.isRunning():
                names.append(thread.objectName())
        except RuntimeError:  # finished after all and deleted by Qt
            continue
    return names


def exit_if_stuck(code: int) -> None:
    """Called last, after everything is saved: when a thread is still stuck, end the process now
    (interpreter teardown would destroy the running QThread, and Qt would abort)."""
    stuck = still_running()
    if not stuck:
        return
    log.warning("leaving while %s still runs", ", ".join(stuck))
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError, AttributeError):
            pass
    os._exit(code)


class BackgroundJob(QThread):
    """Runs `work(report, cancelled)` once. Never touches widgets: `progressed` carries the arguments
    of each report as a tuple, then `succeeded` (the result) or `failed` (a message for the user)."""

    progressed = Signal(object)
    succeeded = Signal(object)
    failed = Signal(str)

    def __init__(
        self, work: Work, parent: QObject | None = None, *, name: str = "job", on_cancel: Callable[[], None] | None = None,
        stop_wait_ms: int | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName(name)
        self._work = work
        self._cancelled = threading.Event()
        self._on_cancel = on_cancel
        self.stop_wait_ms = stop_wait_ms  # None: STOP_WAIT_MS; shorter for work that saves nothing

    @property
    def cancelled(self) -> bool:
        return self._cancelled.is_set()

    def cancel(self) -> None:
        """Ask the work to stop (it checks `cancelled()`); thread-safe."""
        self._cancelled.set()
        if self._on_cancel is not None:
            self._on_cancel()

    def stop(self, timeout_ms: int | None = None) -> bool:
        """Cancel and wait for the thread, at most `timeout_ms` (`stop_wait_ms` by default). True if it
        stopped; otherwise it is kept alive (`outlive`) so that its owner can go without an abort."""
        if not self.isRunning():
            return True
        self.cancel()
        if timeout_ms is None:
            timeout_ms = STOP_WAIT_MS if self.stop_wait_ms is None else self.stop_wait_ms
        if self.wait(timeout_ms):
            return True
        outlive(self)
        return False

    def run(self) -> None:
        try:
            result = self._work(lambda *args: self.progressed.emit(args), self._cancelled.is_set)
        except CompanionError as exc:
            self.failed.emit(str(exc))
        except Exception as exc:  # shown to the user instead of killing the thread silently
            log.exception("%s failed", self.objectName())
            self.failed.emit(f"Something went wrong ({exc}).")
        else:
            self.succeeded.emit(result)
