"""The one inference thread: loads the model and runs turns; talks to the GUI through signals only."""

from __future__ import annotations

import functools
import logging
import time
from typing import Callable, Iterator

from PySide6.QtCore import QObject, QThread, Signal, Slot

from companion.agent.turn import Agent, TurnEvent
from companion.errors import CompanionError
from companion.llm.base import Backend
from companion.paths import Home
from companion.settings import ModelSettings

log = logging.getLogger(__name__)

FLUSH_SECONDS = 1 / 30  # the view repaints at most ~30 times a second while streaming
Loader = Callable[[ModelSettings], Backend]


def _default_loader(settings: ModelSettings, home: Home | None = None) -> Backend:
    from companion.llm.loader import load_backend

    return load_backend(settings, home=home)  # type: ignore[no-any-return]


class ModelWorker(QObject):
    """Lives in the worker thread; every slot runs there, so the backend has one owner thread."""

    loading = Signal()
    loaded = Signal(object)  # Backend
    load_failed = Signal(str)
    deltas = Signal(str)  # batched reply text
    event = Signal(object)  # TurnEvent other than delta
    busy_changed = Signal(bool)
    closed = Signal()

    def __init__(self, agent: Agent, loader: Loader) -> None:
        super().__init__()
        self.agent = agent
        self.loader = loader
        self.auto_prefill = True  # warm the prompt prefix after loading and after each turn
        self.closing = False  # set from the GUI thread at quit: skip queued warm-ups

    @Slot(object)
    def load(self, settings: ModelSettings) -> None:
        self._close_backend()
        self.loading.emit()
        try:
            backend = self.loader(settings)
        except CompanionError as exc:
            self.load_failed.emit(str(exc))
            return
        except Exception as exc:  # a native or unexpected failure must not kill the thread
            log.exception("model load failed")
            self.load_failed.emit(f"The model could not be loaded ({exc}). Choose another file in Settings.")
            return
        self.agent.backend = backend
        self.loaded.emit(backend)
        self._warm()

    @Slot(object)
    def adopt(self, backend: Backend) -> None:
        """Use an already loaded backend (tests, demos)."""
        self._close_backend()
        self.agent.backend = backend
        self.loaded.emit(backend)

    @Slot(str)
    def run_turn(self, text: str) -> None:
        self._stream(lambda: self.agent.run_turn(text))

    @Slot()
    def regenerate(self) -> None:
        self._stream(self.agent.regenerate)

    def _warm(self) -> None:
        if self.auto_prefill:
            self.prefill()

    @Slot()
    def prefill(self) -> None:
        if self.closing:
            return
        try:
            self.agent.prefill()
        except Exception:  # prefill only saves time later; never surface it
            log.exception("prefill failed")

    @Slot()
    def close(self) -> None:
        self._close_backend()
        self.closed.emit()
        thread = QThread.currentThread()
        thread.quit()

    def _close_backend(self) -> None:
        self.agent.stop_background()  # daytime learning may be using the model
        backend = self.agent.backend
        self.agent.backend = None
        if backend is not None:
            try:
                backend.close()
            except Exception:
                log.exception("closing the model failed")

    def _stream(self, make: Callable[[], Iterator[TurnEvent]]) -> None:
        self.busy_changed.emit(True)
        pending: list[str] = []
        last = time.monotonic()
        try:
            for event in make():
                if event.kind == "delta":
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
            self.event.emit(TurnEvent("error", text=str(exc)))
        except Exception as exc:
            log.exception("turn failed")
            self.event.emit(TurnEvent("error", text=f"Something went wrong: {exc}"))
        finally:
            if pending:
                self.deltas.emit("".join(pending))
            self.busy_changed.emit(False)
        self._warm()


class ModelController(QObject):
    """GUI-side handle: owns the thread and the worker, forwards requests as queued signals."""

    _load = Signal(object)
    _adopt = Signal(object)
    _turn = Signal(str)
    _regenerate = Signal()
    _prefill = Signal()
    _close = Signal()

    def __init__(self, agent: Agent, loader: Loader | None = None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.agent = agent
        self.thread = QThread()
        self.thread.setObjectName("model-worker")
        # The home matters for a model server's API key kept under this home's state/.
        self.worker = ModelWorker(agent, loader or functools.partial(_default_loader, home=agent.home))
        self.worker.moveToThread(self.thread)
        self._load.connect(self.worker.load)
        self._adopt.connect(self.worker.adopt)
        self._turn.connect(self.worker.run_turn)
        self._regenerate.connect(self.worker.regenerate)
        self._prefill.connect(self.worker.prefill)
        self._close.connect(self.worker.close)
        self.busy = False
        self.worker.busy_changed.connect(self._set_busy)
        self.thread.start()

    def _set_busy(self, busy: bool) -> None:
        self.busy = busy

    def load(self, settings: ModelSettings) -> None:
        self._load.emit(settings)

    def adopt(self, backend: Backend) -> None:
        self._adopt.emit(backend)

    def send(self, text: str) -> None:
        self.busy = True
        self._turn.emit(text)

    def regenerate(self) -> None:
        self.busy = True
        self._regenerate.emit()

    def prefill(self) -> None:
        self._prefill.emit()

    def cancel(self) -> None:
        """Thread-safe: the backend stops within one token."""
        self.agent.cancel()

    def shutdown(self, timeout_ms: int = 30_000) -> bool:
        """Cancel any reply, close the model in its thread, wait for the thread. True if it stopped."""
        if not self.thread.isRunning():
            return True
        self.worker.closing = True
        self.cancel()
        self._close.emit()
        stopped = self.thread.wait(timeout_ms)
        if not stopped:
            log.warning("the model thread did not stop in time")
        return bool(stopped)
