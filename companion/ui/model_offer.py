"""While the tiny built-in model runs: offer the best recommended model for this machine, download it
in the background, and switch to it with one click."""

from __future__ import annotations

import html
import logging
import time
from pathlib import Path
from typing import Callable

from PySide6.QtCore import QLocale, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QApplication,
    QFrame,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QStyle,
    QVBoxLayout,
    QWidget,
)

from companion.errors import CompanionError
from companion.llm import speed
from companion.llm.base import Backend
from companion.llm.catalog import CuratedModel, recommend
from companion.llm.download import Downloader
from companion.llm.hardware import Capabilities
from companion.llm.library import ModelLibrary
from companion.llm.llama import machine
from companion.llm.loader import load_backend
from companion.settings import ModelSettings, save_settings
from companion.ui.extensions import WindowAPI
from companion.ui.jobs import BackgroundJob
from companion.ui.model_catalog import good_for, speed_text

log = logging.getLogger(__name__)
OFFER, DOWNLOADING, STOPPED, READY, SWITCHING, DONE = "offer", "downloading", "stopped", "ready", "switching", "done"
_GB = 10**9


def chinese_system() -> bool:
    return QLocale.system().language() == QLocale.Language.Chinese


def should_offer(window: WindowAPI) -> bool:
    """Only while the built-in model is in use and the user has not said no."""
    model = window.settings.model
    return model.backend == "llama" and not model.path and not model.offer_declined


PROBE_WAIT_MS = 3_000  # quitting waits this long for the probe: it saves only a speed measurement
Detect = Callable[[bool], Capabilities]  # gpu_offload -> this machine
Measure = Callable[[Capabilities], speed.Benchmark]  # this machine -> the built-in model's speed here


def measured_speed(home_state: Path, caps: Capabilities) -> speed.Benchmark:
    """The built-in model's speed here: a short benchmark now (the loader loads a copy of the built-in model
    with a small context, on the CPU and on the GPU), or the faster of it and the last one on this machine
    (other programs only ever slow a measurement down)."""
    cached = speed.load_cached(home_state, caps)

    def load(layers: int) -> Backend:
        return load_backend(ModelSettings(n_ctx=512, n_gpu_layers=layers), caps=caps)

    try:
        bench = speed.benchmark(load, caps, speed.embedded_bytes())
    except (CompanionError, ValueError, KeyError) as exc:  # no built-in model, or an answer too short to time
        log.info("Speed benchmark skipped: %s", exc)
        return cached or speed.first_guess(caps)
    bench = speed.fastest(cached, bench)
    try:
        speed.save(home_state, bench)
    except CompanionError as exc:
        log.info("Speed measurement not saved: %s", exc)
    return bench


def install(window: WindowAPI, caps: Capabilities | None = None, chinese: bool | None = None,
            detect: Detect | None = None, measure: Measure | None = None) -> "ModelOffer | None":
    """Show the offer above the conversation when it applies. With `caps` at once (and return it);
    otherwise once the model has loaded: llama.cpp is imported by then (nothing added to the start-up
    time), the loaded model says whether this build can use a GPU, and the machine is probed and the
    built-in model's speed measured off the GUI thread (about a second, once per machine)."""
    if not should_offer(window):
        return None
    if chinese is None:
        chinese = chinese_system()
    if caps is not None:
        return _show(window, caps, chinese, (measure or speed.first_guess)(caps))
    probe: Detect = detect or (lambda offload: machine(gpu_offload=offload))
    timing: Measure = measure or (lambda found: measured_speed(window.home.state, found))
    jobs: list[BackgroundJob] = []

    def work(offload: bool) -> tuple[Capabilities, speed.Benchmark]:
        found = probe(offload)
        return found, timing(found)

    def loaded(backend: Backend | None) -> None:
        if backend is None or jobs or not should_offer(window):
            return
        offload = backend.info.gpu_offload_supported
        job = BackgroundJob(lambda _report, _cancelled: work(offload), window.widget, name="machine-probe",
                            stop_wait_ms=PROBE_WAIT_MS)
        job.succeeded.connect(lambda result: _show(window, result[0], bool(chinese), result[1]))
        job.finished.connect(job.deleteLater)
        window.closing.connect(job.stop)
        jobs.append(job)
        job.start()

    window.backend_changed.connect(loaded)
    return None


def _show(window: WindowAPI, caps: Capabilities, chinese: bool, bench: speed.Benchmark) -> "ModelOffer | None":
    model = recommend(caps, chinese, bench)
    if model is None or not should_offer(window):
        return None
    offer = ModelOffer(window, model, speed.tokens_per_s(model.size_bytes, bench, caps))
    window.add_banner(offer)
    return offer


class ModelOffer(QFrame):
    """The banner: offer -> downloading (keep chatting) -> ready -> switching -> done."""

    state_changed = Signal(str)

    def __init__(self, window: WindowAPI, model: CuratedModel, tokens_per_s: float | None = None,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.window_ = window
        self.model = model
        self.tokens_per_s = tokens_per_s
        self.state = ""
        self.path: Path | None = None
        self.downloader = Downloader(window.home.models)
        self.job: BackgroundJob | None = None
        self._started = 0.0
        self._resumed_from = 0
        self.setObjectName("modelOffer")
        self._build()
        window.backend_changed.connect(self._backend_changed)
        window.model_failed.connect(self._load_failed)
        window.closing.connect(self.stop)
        existing = window.home.models / model.filename
        if existing.is_file():
            self.path = existing
            self._set_state(READY)
        else:
            self._set_state(STOPPED if self.downloader.partial_path(model.filename).exists() else OFFER)

    # -- building ---------------------------------------------------------------

    def _build(self) -> None:
        outer = QHBoxLayout(self)
        outer.setContentsMargins(14, 10, 14, 10)
        outer.setSpacing(12)
        self.icon = QLabel()
        self.icon.setObjectName("offerIcon")
        self.icon.setAlignment(Qt.AlignmentFlag.AlignTop)
        icon = QApplication.windowIcon()
        if icon.isNull():
            icon = self.style().standardIcon(QStyle.StandardPixmap.SP_MessageBoxInformation)
        self.icon.setPixmap(icon.pixmap(32, 32))
        outer.addWidget(self.icon)
        text = QVBoxLayout()
        text.setSpacing(4)
        self.title = QLabel()
        self.title.setObjectName("offerTitle")
        self.title.setWordWrap(True)
        self.body = QLabel()
        self.body.setObjectName("offerBody")
        self.body.setWordWrap(True)
        self.bar = QProgressBar()
        self.bar.setObjectName("offerProgress")
        self.bar.setRange(0, 1000)
        self.bar.setTextVisible(False)
        self.bar.setMaximumHeight(8)
        self.detail = QLabel()
        self.detail.setObjectName("offerDetail")
        text.addWidget(self.title)
        text.addWidget(self.body)
        text.addWidget(self.bar)
        text.addWidget(self.detail)
        outer.addLayout(text, 1)
        buttons = QVBoxLayout()
        buttons.setSpacing(6)
        self.primary = QPushButton()
        self.primary.setObjectName("offerPrimary")
        self.primary.setDefault(True)
        self.primary.clicked.connect(self._primary_clicked)
        self.secondary = QPushButton()
        self.secondary.setObjectName("offerSecondary")
        self.secondary.setFlat(True)
        self.secondary.clicked.connect(self._secondary_clicked)
        buttons.addWidget(self.primary)
        buttons.addWidget(self.secondary)
        buttons.addStretch(1)
        outer.addLayout(buttons)

    def _size_text(self) -> str:
        return self.tr("%1 GB").replace("%1", f"{self.model.size_gb:.1f}")

    def _set_state(self, state: str, detail: str = "") -> None:
        self.state = state
        self.setProperty("state", state)
        self.style().unpolish(self)
        self.style().polish(self)
        name = self.model.label
        self.bar.setVisible(state in (DOWNLOADING, SWITCHING))
        self.detail.setVisible(state == DOWNLOADING)
        self.detail.setText("")
        self.primary.setEnabled(state not in (SWITCHING, DONE))
        self.primary.setVisible(state != DONE)
        self.secondary.setVisible(state not in (SWITCHING, DONE))
        if state == OFFER:
            self.title.setText(self.tr("You're chatting with a tiny built-in model"))
            body = self.tr(
                "It is only a demo: its answers are simple and often wrong. For this computer I recommend <b>%1</b>. "
                "%2<br>%3 download, runs offline; it downloads in the background while we keep talking."
            ).replace("%1", html.escape(name)).replace("%2", html.escape(good_for(self.model))).replace("%3", self._size_text())
            if self.tokens_per_s is not None:
                body += "<br>" + html.escape(self.tr("It should answer at %1.").replace("%1", speed_text(self.tokens_per_s)))
            self.body.setText(body)
            self.primary.setText(self.tr("Download %1").replace("%1", self._size_text()))
            self.secondary.setText(self.tr("No thanks"))
        elif state == DOWNLOADING:
            self.title.setText(self.tr("Downloading %1…").replace("%1", name))
            self.body.setText(self.tr("Keep chatting: the built-in model answers until the new one is ready."))
            self.bar.setRange(0, 0)
            self.primary.setText(self.tr("Stop"))
            self.secondary.setText(self.tr("No thanks"))
        elif state == STOPPED:
            self.title.setText(self.tr("The download of %1 stopped").replace("%1", name))
            self.body.setText(detail or self.tr("What was downloaded is kept; resuming continues where it stopped."))
            self.primary.setText(self.tr("Resume download"))
            self.secondary.setText(self.tr("No thanks"))
        elif state == READY:
            self.title.setText(self.tr("%1 is ready").replace("%1", name))
            self.body.setText(detail or self.tr("Downloaded and checked. Switch now? Our conversation and your memory stay as they are."))
            self.primary.setText(self.tr("Use this model"))
            self.secondary.setText(self.tr("Later"))
        elif state == SWITCHING:
            self.title.setText(self.tr("Switching to %1…").replace("%1", name))
            self.body.setText(self.tr("Loading the model; this takes a few seconds."))
            self.bar.setRange(0, 0)
        elif state == DONE:
            self.title.setText(self.tr("Now using %1").replace("%1", name))
            self.body.setText(self.tr("Replies come from it from now on. Settings > Model lists other models."))
            QTimer.singleShot(8000, self.hide)
        self.state_changed.emit(state)

    # -- actions ------------------------------------------------------------------

    def _primary_clicked(self) -> None:
        if self.state in (OFFER, STOPPED):
            self.start_download()
        elif self.state == DOWNLOADING and self.job is not None:
            self.job.cancel()
        elif self.state == READY:
            self.use_model()

    def _secondary_clicked(self) -> None:
        if self.state == READY:
            self.hide()  # "Later": asked again at the next start
            return
        self.decline()

    def decline(self) -> None:
        """No thanks: stop any download and never offer again (Settings > Model still lists the models)."""
        self.stop()
        settings = self.window_.settings
        settings.model.offer_declined = self.model.key
        try:
            save_settings(self.window_.home.settings_file, settings)
        except CompanionError as exc:
            self.window_.show_message(str(exc), 10000)
        self.hide()
        self.window_.show_message(self.tr("Understood. Settings > Model has other models whenever you want one."), 8000)

    def start_download(self) -> None:
        if self.job is not None:
            return
        partial = self.downloader.partial_path(self.model.filename)
        self._resumed_from = partial.stat().st_size if partial.exists() else 0
        self._started = time.monotonic()
        self._set_state(DOWNLOADING)
        downloader, model = self.downloader, self.model

        def work(report: Callable[..., None], _cancelled: Callable[[], bool]) -> Path:
            return downloader.download(model.repo_id, model.filename, progress=report)

        self.job = BackgroundJob(work, self, name="model-download", on_cancel=downloader.cancel)
        self.job.progressed.connect(lambda args: self._progress(*args))
        self.job.succeeded.connect(self._downloaded)
        self.job.failed.connect(self._failed)
        self.job.finished.connect(self._job_done)
        self.job.start()

    def stop(self) -> None:
        """Stop a download (the part is kept for a resume) and wait for its thread."""
        if self.job is not None:
            self.job.stop()
            self._job_done()

    def _job_done(self) -> None:
        if self.job is not None:
            self.job.wait()
            self.job.deleteLater()
            self.job = None

    def use_model(self) -> None:
        """Make the downloaded file the active model, save settings and load it (the chat keeps going)."""
        if self.path is None:
            return
        window = self.window_
        library = ModelLibrary(window.home, window.settings.model)
        try:
            library.set_active(self.path, probe=True)
            window.settings.model.backend = "llama"
            save_settings(window.home.settings_file, window.settings)
        except CompanionError as exc:
            self._set_state(READY, str(exc))
            return
        self._set_state(SWITCHING)
        window.reload_model()

    # -- news from the download and the loader -----------------------------------

    def _progress(self, done: int, total: int) -> None:
        if self.state != DOWNLOADING or not total:
            return
        self.bar.setRange(0, 1000)
        self.bar.setValue(int(1000 * done / total))
        elapsed = time.monotonic() - self._started
        fetched = done - self._resumed_from
        text = self.tr("%1 of %2 GB").replace("%1", f"{done / _GB:.2f}").replace("%2", f"{total / _GB:.2f}")
        if elapsed > 3 and fetched > 0:
            left = (total - done) / (fetched / elapsed)
            text += " · " + (self.tr("about %1 min left").replace("%1", str(round(left / 60))) if left >= 90
                             else self.tr("less than 2 min left"))
        self.detail.setText(f"{text} · {100 * done // total}%")

    def _downloaded(self, path: Path) -> None:
        self.path = path
        self._set_state(READY)

    def _failed(self, message: str) -> None:
        if self.isHidden():  # declined meanwhile
            return
        stopped = self.job is not None and self.job.cancelled
        self._set_state(STOPPED, "" if stopped else message)

    def _backend_changed(self, backend: Backend | None) -> None:
        if self.state != SWITCHING or backend is None or self.path is None:
            return
        if Path(backend.info.path) != self.path:
            return
        self._set_state(DONE)
        self.window_.add_notice(self.tr("Switched to %1. Replies come from it from now on.").replace("%1", self.model.label))

    def _load_failed(self, message: str) -> None:
        if self.state != SWITCHING:
            return
        window = self.window_
        window.settings.model.path = ""  # back to the built-in model, so the chat keeps working
        try:
            save_settings(window.home.settings_file, window.settings)
        except CompanionError as exc:
            window.show_message(str(exc), 10000)
        self._set_state(READY, self.tr("%1 could not be loaded (%2). The built-in model stays in use.")
                        .replace("%1", self.model.label).replace("%2", message))
        window.reload_model()
