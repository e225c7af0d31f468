"""The one way the app runs blocking work off the GUI thread: a QThread that reports through signals."""

from __future__ import annotations

import logging
import threading
from typing import Any, Callable

from PySide6.QtCore import QObject, QThread, Signal

from companion.errors import CompanionError

log = logging.getLogger(__name__)

Report = Callable[..., None]  # what the work calls with its progress (any arguments, passed on as a tuple)
Work = Callable[[Report, Callable[[], bool]], Any]  # work(report, cancelled) -> result


class BackgroundJob(QThread):
    """Runs `work(report, cancelled)` once. Never touches widgets: `progressed` carries the arguments
    of each report as a tuple, then `succeeded` (the result) or `failed` (a message for the user)."""

    progressed = Signal(object)
    succeeded = Signal(object)
    failed = Signal(str)

    def __init__(
        self, work: Work, parent: QObject | None = None, *, name: str = "job", on_cancel: Callable[[], None] | None = None
    ) -> None:
        super().__init__(parent)
        self.setObjectName(name)
        self._work = work
        self._cancelled = threading.Event()
        self._on_cancel = on_cancel

    @property
    def cancelled(self) -> bool:
        return self._cancelled.is_set()

    def cancel(self) -> None:
        """Ask the work to stop (it checks `cancelled()`); thread-safe."""
        self._cancelled.set()
        if self._on_cancel is not None:
            self._on_cancel()

    def stop(self, timeout_ms: int = 60_000) -> bool:
        """Cancel and wait for the thread (a QThread must not outlive its owner). True if it stopped."""
        if not self.isRunning():
            return True
        self.cancel()
        return bool(self.wait(timeout_ms))

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
