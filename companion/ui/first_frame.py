"""Start-up work that waits for the window's first frame, then runs one step per event-loop turn,
with the modules those steps need imported on a background thread meanwhile."""

from __future__ import annotations

import importlib
import logging
import threading
from dataclasses import dataclass
from functools import partial
from typing import Callable

from PySide6.QtCore import QEvent, QObject, QTimer, Signal
from PySide6.QtWidgets import QWidget

log = logging.getLogger(__name__)
FALLBACK_MS = 3000  # after the first show: a platform that never paints still starts
POLL_MS = 10  # a step waiting for its module looks again this often (input is served meanwhile)


class Preload:
    """Runs slow pure-Python warm-ups (importing modules, compiling a highlighter's rules) in order on a
    daemon thread. Python holds its lock on a module while importing it, so the GUI thread importing
    the same module meanwhile just waits for it: never twice, never half. Tasks touch no widget."""

    def __init__(self, tasks: dict[str, Callable[[], object]]) -> None:
        self.tasks = dict(tasks)
        self._done = {name: threading.Event() for name in tasks}
        self._thread = threading.Thread(target=self._run, name="preload", daemon=True)

    @classmethod
    def imports(cls, names: tuple[str, ...]) -> "Preload":
        return cls({name: partial(importlib.import_module, name) for name in names})

    def add(self, name: str, task: Callable[[], object]) -> None:
        """One more task (before `start`)."""
        self.tasks[name] = task
        self._done[name] = threading.Event()

    def start(self) -> None:
        if self._thread.ident is None:
            self._thread.start()

    def ready(self, name: str) -> bool:
        """`name` has run (or failed: the step that needs it does the work again and says why)."""
        done = self._done.get(name)
        return done is None or done.is_set()

    def _run(self) -> None:
        for name, task in self.tasks.items():
            try:
                task()
            except Exception:  # the GUI thread's own attempt reports it
                log.debug("preloading %s failed", name, exc_info=True)
            finally:
                self._done[name].set()


@dataclass(frozen=True)
class Step:
    run: Callable[[], object]
    ready: Callable[[], bool] = lambda: True  # False: not yet (its module is still being imported)


class AfterFirstFrame(QObject):
    """Runs `steps` once `widget` has painted for the first time: each in its own event-loop turn, so
    input and painting get their turn between them. A step that fails is logged and the rest run."""

    finished = Signal()  # every step has run

    def __init__(self, widget: QWidget, steps: list[Step]) -> None:
        super().__init__(widget)
        self._widget = widget
        self._steps = list(steps)
        self._armed = True
        self.done = False
        widget.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt name)
        kind = event.type()
        if watched is self._widget and self._armed:
            if kind == QEvent.Type.Paint:
                self._disarm()
                QTimer.singleShot(0, self, self._next)  # the frame reaches the screen before the first step
            elif kind == QEvent.Type.Show:
                QTimer.singleShot(FALLBACK_MS, self, self._fallback)
        return False

    def _disarm(self) -> None:
        if self._armed:
            self._armed = False
            self._widget.removeEventFilter(self)

    def _fallback(self) -> None:
        if self._armed:
            self._disarm()
            self._next()

    def _next(self) -> None:
        if self._steps and not self._steps[0].ready():
            QTimer.singleShot(POLL_MS, self, self._next)
            return
        if self._steps:
            self._run(self._steps.pop(0))
        if self._steps:
            QTimer.singleShot(0, self, self._next)
        else:
            self._finish()

    def run_now(self) -> None:
        """Run what is left at once (a caller that cannot wait for the first frame)."""
        self._disarm()
        while self._steps:
            self._run(self._steps.pop(0))
        self._finish()

    def cancel(self) -> None:
        """Drop what is left (the window is closing); `finished` is not emitted."""
        self._disarm()
        self._steps.clear()
        self.done = True

    @staticmethod
    def _run(step: Step) -> None:
        try:
            step.run()
        except Exception:  # one failed step must not keep the rest of the app from starting
            log.exception("start-up step %r failed", step.run)

    def _finish(self) -> None:
        if not self.done:
            self.done = True
            self.finished.emit()
