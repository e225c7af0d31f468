"""The one inference thread: loads the model and runs turns; talks to the GUI through signals only."""

from __future__ import annotations

import logging
import threading
import time
from typing import Callable, Iterator

from PySide6.QtCore import QObject, QThread, Signal, Slot

from companion.agent.session import ChatSession
from companion.agent.events import Delta, Failed, TurnEvent
from companion.errors import CompanionError
from companion.llm.base import Backend
from companion.settings import ModelSettings
from companion.ui.jobs import outlive

log = logging.getLogger(__name__)

FLUSH_SECONDS = 1 / 30  # the view repaints at most ~30 times a second while streaming
QUIT_WAIT_MS = 15_000  # quitting waits this long for the model to close (a reply stops within one token)


class ModelWorker(QObject):
    """Lives in the worker thread; every slot runs there, so the model is loaded, used for chat and
    closed by one thread (background work reaches it only through the session's views)."""

    loading = Signal()
    loaded = Signal(object)  # the Backend chat uses
    load_failed = Signal(str)
    deltas = Signal(str)  # batched reply text
    event = Signal(object)  # TurnEvent other than delta
    busy_changed = Signal(bool)
    closed = Signal()

    def __init__(self, session: ChatSession) -> None:
        super().__init__()
        self.session = session
        self.auto_warm = True  # warm the prompt prefix after loading and after each turn
        self.closing = False  # set from the GUI thread at quit: skip queued warm-ups
        self._draft: str | None = None  # set from the GUI thread: the text to read ahead
        self._draft_lock = threading.Lock()

    @Slot(object)
    def load(self, settings: ModelSettings) -> None:
        self.loading.emit()
        try:
            self.session.load(settings)  # the old model is closed first, background work stopped
        except CompanionError as exc:
            self.load_failed.emit(str(exc))
            return
        except Exception as exc:  # a native or unexpected failure must not kill the thread
            log.exception("model load failed")
            self.load_failed.emit(f"The model could not be loaded ({exc}). Choose another file in Settings.")
            return
        self.loaded.emit(self.session.backend)
        self._warm()

    @Slot(object, bool)
    def adopt(self, backend: Backend, owned: bool) -> None:
        """Use an already loaded backend (tests, demos)."""
        self.session.adopt(backend, owned=owned)
        self.loaded.emit(self.session.backend)

    @Slot(str)
    def run_turn(self, text: str) -> None:
        self._stream(lambda: self.session.run_turn(text))

    @Slot()
    def regenerate(self) -> None:
        self._stream(self.session.regenerate)

    def _warm(self) -> None:
        if self.auto_warm:
            self.warm()

    def _after_turn(self) -> None:
        if not self.closing:
            try:
                self.session.learn()  # learning does not depend on warming the cache
            except Exception:  # learning is a bonus: never lose the worker over it
                log.exception("daytime learning failed")
        self._warm()

    @Slot()
    def warm(self) -> None:
        if self.closing:
            return
        try:
            self.session.warm()
        except Exception:  # warming only saves time later; never surface it
            log.exception("warming the prompt failed")

    def set_draft(self, draft: str) -> None:
        """Any thread: the text the next read_ahead reads."""
        with self._draft_lock:
            self._draft = draft

    @Slot()
    def read_ahead(self) -> None:
        """The latest draft only: pauses queued while a reply was written collapse into one reading."""
        with self._draft_lock:
            draft, self._draft = self._draft, None
        if draft is None or self.closing:
            return
        try:
            self.session.read_ahead(draft)
        except Exception:  # reading ahead only saves time later; never surface it
            log.exception("reading the draft ahead failed")

    @Slot()
    def close(self) -> None:
        self.session.close_model()
        self.closed.emit()
        thread = QThread.currentThread()
        thread.quit()

    def _stream(self, make: Callable[[], Iterator[TurnEvent]]) -> None:
        self.busy_changed.emit(True)
        pending: list[str] = []
        last = time.monotonic()
        try:
            for event in make():
                if isinstance(event, Delta):
                    pending.append(event.text)
                    now = time.monotonic()
                    if now - last >= FLUSH_SECONDS:
                        self.deltas.emit("".join(pending))
                        pending.clear()
                        last = now
                    continue
                if pending:
                    self.deltas.emit("".join(pending))
                    pending.clear()
                self.event.emit(event)
        except CompanionError as exc:
            self.event.emit(Failed(str(exc)))
        except Exception as exc:
            log.exception("turn failed")
            self.event.emit(Failed(f"Something went wrong: {exc}"))
        finally:
            if pending:
                self.deltas.emit("".join(pending))
            self.busy_changed.emit(False)
        self._after_turn()


class ModelController(QObject):
    """GUI-side handle: owns the thread and the worker, forwards requests as queued signals."""

    _load = Signal(object)
    _adopt = Signal(object, bool)
    _turn = Signal(str)
    _regenerate = Signal()
    _warm = Signal()
    _read_ahead = Signal()
    _close = Signal()

    def __init__(self, session: ChatSession, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.thread = QThread()
        self.thread.setObjectName("model-worker")
        self.worker = ModelWorker(session)
        self.worker.moveToThread(self.thread)
        self._load.connect(self.worker.load)
        self._adopt.connect(self.worker.adopt)
        self._turn.connect(self.worker.run_turn)
        self._regenerate.connect(self.worker.regenerate)
        self._warm.connect(self.worker.warm)
        self._read_ahead.connect(self.worker.read_ahead)
        self._close.connect(self.worker.close)
        self.busy = False
        self.worker.busy_changed.connect(self._set_busy)
        self.thread.start()

    def _set_busy(self, busy: bool) -> None:
        self.busy = busy

    def load(self, settings: ModelSettings) -> None:
        self._load.emit(settings)

    def adopt(self, backend: Backend, owned: bool = True) -> None:
        self._adopt.emit(backend, owned)

    def send(self, text: str) -> None:
        self.busy = True
        self._turn.emit(text)

    def regenerate(self) -> None:
        self.busy = True
        self._regenerate.emit()

    def warm(self) -> None:
        self._warm.emit()

    def read_ahead(self, draft: str) -> None:
        """Read the prompt of what the user is writing, in the model's thread."""
        self.worker.set_draft(draft)
        self._read_ahead.emit()

    def cancel(self) -> None:
        """Thread-safe: the backend stops within one token."""
        self.session.cancel()

    def shutdown(self, timeout_ms: int | None = None) -> bool:
        """Cancel any reply, close the model in its thread, wait for the thread at most `timeout_ms`
        (QUIT_WAIT_MS by default). True if it stopped; otherwise the thread, the worker and the session
        are kept alive until the process ends (a load or a prompt stuck in llama.cpp cannot be interrupted)."""
        if not self.thread.isRunning():
            return True
        self.worker.closing = True
        self.cancel()
        self._close.emit()
        if self.thread.wait(QUIT_WAIT_MS if timeout_ms is None else timeout_ms):
            return True
        outlive(self.thread, self.worker, self.session)
        return False
