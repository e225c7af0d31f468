"""Settings > Model…: the model library, downloads, CPU/GPU settings and a model server."""

from __future__ import annotations

import logging
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable

from PySide6.QtCore import QCoreApplication, Signal
from PySide6.QtGui import QAction, QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QButtonGroup,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QRadioButton,
    QSizePolicy,
    QSpinBox,
    QStackedWidget,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from companion.errors import CompanionError
from companion.llm import devices, hardware, speed
from companion.llm.apikeys import KeyStore
from companion.llm.catalog import EMBEDDED_LABEL
from companion.llm.download import Downloader
from companion.llm.gguf import read_gguf
from companion.llm.hardware import GPU_LAYERS_ALL, GPU_LAYERS_AUTO, Capabilities
from companion.llm.library import ModelEntry, ModelLibrary
from companion.llm.llama import machine
from companion.settings import save_settings
from companion.ui.extensions import WindowAPI
from companion.ui.jobs import BackgroundJob
from companion.ui.model_catalog import CatalogPicker, speed_text
from companion.ui.model_offer import chinese_system

log = logging.getLogger(__name__)
COLUMNS = ("", "Name", "Architecture", "Parameters", "Quantization", "Size", "Context", "Template", "Status")
_KEYS = ("name", "architecture", "parameters", "quantization", "size", "context", "template", "status")
GPU_CHOICES = (("Auto: the GPU when there is one, as many layers as fit", GPU_LAYERS_AUTO), ("CPU only", 0),
               ("GPU: all layers", GPU_LAYERS_ALL), ("GPU: this many layers", 1))
CUSTOM = 3  # the index of "this many layers" in GPU_CHOICES
SCREEN_HEIGHT = 768  # the dialog fits a 1366x768 screen with a panel and a title bar
FIT_HEIGHT = SCREEN_HEIGHT - 40 - 32


def install(window: WindowAPI) -> None:
    """Settings > Model… (the window's own status bar already names the model and its device)."""
    action = QAction(QCoreApplication.translate("ModelDialog", "&Model…"), window.widget)
    action.setObjectName("modelSettingsAction")
    action.triggered.connect(lambda: open_dialog(window))
    window.menu("&Settings").addAction(action)


def open_dialog(window: WindowAPI, keystore: KeyStore | None = None) -> "ModelDialog":
    dialog = ModelDialog(window, keystore)
    dialog.open()
    return dialog


class ModelDialog(QDialog):
    """Edits a copy of the model settings; OK saves settings.toml and reloads the model."""

    job_finished = Signal()

    def __init__(self, window: WindowAPI, keystore: KeyStore | None = None, caps: Capabilities | None = None) -> None:
        super().__init__(window.widget)
        self.window_ = window
        self.setWindowTitle(self.tr("Model"))
        self.model = replace(window.settings.model, library=list(window.settings.model.library))
        self.library = ModelLibrary(window.home, self.model)
        self.keystore = keystore or KeyStore(window.home)
        self.caps = caps or machine()
        self.bench = speed.known(window.home.state, self.caps)
        self.job: BackgroundJob | None = None
        self.downloader: Downloader | None = None
        self.entries: list[ModelEntry] = []
        layout = QVBoxLayout(self)
        layout.addWidget(self._build_source())
        self.pages = QStackedWidget()
        local = QWidget()
        column = QVBoxLayout(local)
        column.setContentsMargins(0, 0, 0, 0)
        self.tabs = QTabWidget()
        self.tabs.addTab(self._build_library(), self.tr("Models on this computer"))
        self.tabs.addTab(self._build_download(), self.tr("Download a model"))
        column.addWidget(self.tabs, 1)
        column.addWidget(self._build_performance())
        self.pages.addWidget(local)
        self.pages.addWidget(self._build_server())
        layout.addWidget(self.pages, 1)
        self.error_label = QLabel()
        self.error_label.setObjectName("modelError")
        self.error_label.setWordWrap(True)
        self.error_label.setStyleSheet("color: #b00020;")
        layout.addWidget(self.error_label)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout.addWidget(self.buttons)
        self.refresh()
        self._sync_source()
        self.resize(960, min(680, FIT_HEIGHT))

    # -- building -------------------------------------------------------------

    def _build_source(self) -> QWidget:
        box = QGroupBox(self.tr("Where the model runs"))
        row = QHBoxLayout(box)
        self.local_radio = QRadioButton(self.tr("On this computer (a GGUF file)"))
        self.server_radio = QRadioButton(self.tr("On a model server (OpenAI-compatible: llama-server, Ollama, LM Studio, vLLM)"))
        group = QButtonGroup(box)
        group.addButton(self.local_radio)
        group.addButton(self.server_radio)
        (self.server_radio if self.model.backend == "openai" else self.local_radio).setChecked(True)
        self.local_radio.toggled.connect(self._sync_source)
        row.addWidget(self.local_radio)
        row.addWidget(self.server_radio)
        return box

    def _build_library(self) -> QWidget:
        self.library_box = QWidget()
        column = QVBoxLayout(self.library_box)
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setHorizontalHeaderLabels([self.tr(c) for c in COLUMNS])
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        self.table.setMinimumHeight(110)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.itemSelectionChanged.connect(self._update_estimate)
        self.table.itemDoubleClicked.connect(lambda _item: self.use_selected())
        column.addWidget(self.table)
        buttons = QHBoxLayout()
        self.add_button = QPushButton(self.tr("Add file…"))
        self.add_button.clicked.connect(self._choose_file)
        self.use_button = QPushButton(self.tr("Use selected"))
        self.use_button.clicked.connect(self.use_selected)
        self.remove_button = QPushButton(self.tr("Remove"))
        self.remove_button.clicked.connect(self.remove_selected)
        for button in (self.add_button, self.use_button, self.remove_button):
            buttons.addWidget(button)
        buttons.addStretch(1)
        column.addLayout(buttons)
        return self.library_box

    def _build_download(self) -> QWidget:
        self.download_box = QWidget()
        form = QFormLayout(self.download_box)
        self.catalog = CatalogPicker(self.caps, self.bench, chinese_system())
        self.curated = self.catalog.models
        form.addRow(self.catalog)
        self.repo_edit = QLineEdit()
        self.repo_edit.setPlaceholderText("Qwen/Qwen2.5-1.5B-Instruct-GGUF")
        self.file_edit = QLineEdit()
        self.file_edit.setPlaceholderText("qwen2.5-1.5b-instruct-q4_k_m.gguf")
        source = QHBoxLayout()
        source.addWidget(self.repo_edit, 1)
        source.addWidget(QLabel("/"))
        source.addWidget(self.file_edit, 1)
        form.addRow(self.tr("From:"), source)
        row = QHBoxLayout()
        self.progress = QProgressBar()
        self.progress.setVisible(False)
        self.download_button = QPushButton(self.tr("Download"))
        self.download_button.clicked.connect(self.start_download)
        self.cancel_button = QPushButton(self.tr("Stop"))
        self.cancel_button.setEnabled(False)
        self.cancel_button.clicked.connect(self.cancel_job)
        row.addWidget(self.progress, 1)
        row.addStretch(0)
        for button in (self.download_button, self.cancel_button):
            button.setSizePolicy(QSizePolicy.Policy.Maximum, QSizePolicy.Policy.Fixed)
            row.addWidget(button)
        form.addRow(row)
        self.catalog.chosen.connect(self._curated_chosen)
        self._curated_chosen(self.catalog.current())
        return self.download_box

    def _build_performance(self) -> QWidget:
        self.performance_box = QGroupBox(self.tr("Performance"))
        form = QFormLayout(self.performance_box)
        self.gpu_label = QLabel(self._device_text())
        self.gpu_label.setObjectName("gpuCapability")
        self.gpu_label.setWordWrap(True)
        form.addRow(self.tr("Device:"), self.gpu_label)
        row = QHBoxLayout()
        self.gpu_mode = QComboBox()
        self.gpu_mode.setObjectName("runOn")
        for text, value in GPU_CHOICES:
            self.gpu_mode.addItem(self.tr(text), value)
        self.gpu_layers = QSpinBox()
        self.gpu_layers.setRange(1, 999)
        self.gpu_layers.setSuffix(self.tr(" layers"))
        layers = self.model.n_gpu_layers
        index = {GPU_LAYERS_AUTO: 0, 0: 1, GPU_LAYERS_ALL: 2}.get(layers, CUSTOM)
        self.gpu_mode.setCurrentIndex(index)
        if index == CUSTOM:
            self.gpu_layers.setValue(layers)
        self.gpu_mode.currentIndexChanged.connect(self._update_estimate)
        self.gpu_layers.valueChanged.connect(self._update_estimate)
        row.addWidget(self.gpu_mode, 1)
        row.addWidget(self.gpu_layers)
        self.gpu_mode.setEnabled(self.caps.gpu_offload)
        form.addRow(self.tr("Run on:"), row)
        numbers = QHBoxLayout()
        self.threads = QSpinBox()
        self.threads.setRange(0, 256)
        self.threads.setSpecialValueText(self.tr("Auto ({n} physical cores)").format(n=self.caps.physical_cores))
        self.threads.setValue(self.model.n_threads)
        self.context = QSpinBox()
        self.context.setRange(512, 262144)
        self.context.setSingleStep(1024)
        self.context.setValue(self.model.n_ctx)
        self.context.valueChanged.connect(self._update_estimate)
        numbers.addWidget(self.threads)
        numbers.addWidget(QLabel(self.tr("Context size (tokens):")))
        numbers.addWidget(self.context)
        numbers.addStretch(1)
        form.addRow(self.tr("CPU threads:"), numbers)
        self.estimate_label = QLabel()
        self.estimate_label.setObjectName("memoryEstimate")
        self.estimate_label.setWordWrap(True)
        form.addRow(self.tr("Memory needed:"), self.estimate_label)
        return self.performance_box

    def _device_text(self) -> str:
        """The GPU this machine offers and where the loaded model runs now (device and layers), or why there is no GPU."""
        gpu = self.caps.best_gpu
        if gpu is None:
            return self._no_gpu_text()
        if gpu.free_bytes is not None and gpu.total_bytes:
            found = self.tr("{name} ({backend}, {free:.1f} of {total:.1f} GB free)").format(
                name=gpu.name, backend=gpu.backend or "GPU", free=gpu.free_bytes / 2**30, total=gpu.total_bytes / 2**30)
        else:
            found = gpu.describe()
        info = self.window_.session.info
        if info is None or info.device.startswith("server"):
            return found
        if info.n_gpu_layers:
            now = self.tr("now: {n}/{total} layers on {device}").format(
                n=info.n_gpu_layers, total=info.total_layers or info.n_gpu_layers, device=info.gpu_name or self.tr("the GPU"))
        else:
            now = self.tr("now: on the CPU")
        return f"{found} — {now}"

    def _no_gpu_text(self) -> str:
        """Why there is no GPU, in the interface language (llm/devices.py says it in English)."""
        reason = self.caps.gpu_reason
        kind = reason.reason if reason is not None else ""
        cpu_type = [g.name for g in self.caps.gpus if g.cpu_type] if self.caps.gpu_offload else []
        if cpu_type:
            return self.tr("{name} is the processor behind a graphics interface, no faster than the CPU; "
                           "Auto runs on the CPU.").format(name=", ".join(cpu_type))
        if kind == devices.DRIVER_MISSING:
            return self.tr("No {backend} GPU: its driver library could not be loaded ({detail}); running on the CPU.").format(
                backend=reason.backend, detail=reason.detail)  # type: ignore[union-attr]
        if kind == devices.NO_DEVICE:
            return self.tr("{backend} found no usable graphics device (no driver, or one too old); running on the CPU.").format(
                backend=reason.backend)  # type: ignore[union-attr]
        if kind == devices.NO_GPU_BUILD or not self.caps.gpu_note:
            return self.tr("This llama.cpp build has no GPU support; running on the CPU.")
        return self.caps.gpu_note

    def _build_server(self) -> QWidget:
        self.server_box = QGroupBox(self.tr("Model server"))
        form = QFormLayout(self.server_box)
        self.url_edit = QLineEdit(self.model.base_url)
        self.url_edit.setPlaceholderText("http://127.0.0.1:8080/v1")
        self.name_edit = QLineEdit(self.model.model_name)
        self.name_edit.setPlaceholderText(self.tr("empty: the first model the server lists"))
        self.key_edit = QLineEdit(self.keystore.get(self.model.base_url) if self.model.base_url else "")
        self.key_edit.setEchoMode(QLineEdit.EchoMode.Password)
        self.key_edit.setPlaceholderText(self.tr("optional; kept in {where}").format(where=self.keystore.location))
        self.timeout_spin = QSpinBox()
        self.timeout_spin.setRange(5, 3600)
        self.timeout_spin.setSuffix(" s")
        self.timeout_spin.setValue(self.model.remote_timeout_s)
        form.addRow(self.tr("Base URL:"), self.url_edit)
        form.addRow(self.tr("Model name:"), self.name_edit)
        form.addRow(self.tr("API key:"), self.key_edit)
        form.addRow(self.tr("Timeout:"), self.timeout_spin)
        self.server_ctx = QSpinBox()
        self.server_ctx.setRange(0, 1_048_576)
        self.server_ctx.setSingleStep(1024)
        self.server_ctx.setSpecialValueText(self.tr("Ask the server (else 4096)"))
        self.server_ctx.setValue(self.model.remote_n_ctx)
        self.server_ctx.setToolTip(self.tr("The context size the server runs the model with; prompts are kept within it."))
        form.addRow(self.tr("Context size (tokens):"), self.server_ctx)
        row = QHBoxLayout()
        self.test_button = QPushButton(self.tr("Test connection"))
        self.test_button.clicked.connect(self.test_connection)
        self.server_status = QLabel()
        self.server_status.setObjectName("serverStatus")
        self.server_status.setWordWrap(True)
        row.addWidget(self.test_button)
        row.addWidget(self.server_status, 1)
        form.addRow(row)
        note = QLabel(self.tr("Only the prompt is sent to the server; your memory stays on this computer."))
        note.setWordWrap(True)
        form.addRow(note)
        return self.server_box

    # -- state ------------------------------------------------------------------

    def _sync_source(self) -> None:
        self.pages.setCurrentIndex(0 if self.local_radio.isChecked() else 1)

    def refresh(self) -> None:
        self.entries = self.library.entries()
        self.table.setRowCount(len(self.entries))
        active_row = 0
        for row, entry in enumerate(self.entries):
            summary = self._translated(entry.summary())
            cells = ["●" if entry.active else ""] + [summary[k] for k in _KEYS]
            for column, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setToolTip(entry.error or entry.warning or str(entry.path))
                if not entry.usable:
                    item.setForeground(QColor("#b00020"))
                elif entry.warning and column == len(cells) - 1:
                    item.setForeground(QColor("#a06000"))
                self.table.setItem(row, column, item)
            if entry.active:
                active_row = row
        if self.entries:
            self.table.selectRow(active_row)
        self._update_estimate()

    def _translated(self, summary: dict[str, str]) -> dict[str, str]:
        """The library's words in the interface language (file names, numbers and llama.cpp's messages stay)."""
        words = {"yes": self.tr("yes"), "no": self.tr("no"), "ok": self.tr("ok"), EMBEDDED_LABEL: self.tr("SmolLM2 135M (built-in)")}
        return {key: words.get(value, value) for key, value in summary.items()}

    def selected_entry(self) -> ModelEntry | None:
        rows = self.table.selectionModel().selectedRows()
        return self.entries[rows[0].row()] if rows else None

    def gpu_layers_value(self) -> int:
        value = self.gpu_mode.currentData()
        self.gpu_layers.setVisible(self.gpu_mode.currentIndex() == CUSTOM)
        self.gpu_layers.setEnabled(self.caps.gpu_offload)
        return int(self.gpu_layers.value()) if self.gpu_mode.currentIndex() == CUSTOM else int(value)

    def _update_estimate(self) -> None:
        entry = self.selected_entry()
        layers = self.gpu_layers_value()
        if entry is None or not entry.usable or entry.info is None:
            self.estimate_label.setText(entry.error if entry else "")
            return
        meta = entry.info
        n_ctx = min(self.context.value(), meta.context_length or self.context.value())
        resolved = hardware.resolve_gpu_layers(layers, meta, n_ctx, self.caps)
        need = hardware.estimate(meta, n_ctx, resolved)
        where = self.tr("on the CPU") if not need.gpu_layers else self.tr("{n}/{total} layers on the GPU").format(
            n=need.gpu_layers, total=need.total_layers)
        amount = (self.tr("about {ram:.1f} GB RAM + {vram:.1f} GB VRAM") if need.vram else self.tr("about {ram:.1f} GB RAM")
                  ).format(ram=need.ram / 2**30, vram=need.vram / 2**30)
        share = need.gpu_layers / need.total_layers if need.total_layers else 0.0
        rate = speed_text(speed.tokens_per_s(meta.file_size, self.bench, self.caps, share))
        text = self.tr("{need} with a {ctx}-token context, {where}; {speed}.").format(
            need=amount, ctx=n_ctx, where=where, speed=rate)
        try:
            hardware.check_fits(meta, n_ctx, resolved, self.caps)
            self.estimate_label.setStyleSheet("")
            if self.caps.ram_available is not None:
                text += " " + self.tr("{free:.1f} GB RAM available.").format(free=self.caps.ram_available / 2**30)
        except CompanionError as exc:
            self.estimate_label.setStyleSheet("color: #b00020;")
            text = str(exc)
        self.estimate_label.setText(text)

    def _set_error(self, text: str) -> None:
        self.error_label.setText(text)

    # -- library actions --------------------------------------------------------

    def _choose_file(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, self.tr("Add a GGUF model"), str(Path.home()), self.tr("GGUF models (*.gguf);;All files (*)"))
        if path:
            self.add_file(Path(path), copy=False)

    def add_file(self, path: Path, copy: bool = False) -> None:
        """Check the file and add it (copied into models/ in the background, or used where it is)."""
        self._set_error("")
        try:
            read_gguf(path)
        except CompanionError as exc:
            self._set_error(str(exc))
            return
        self._run(lambda progress: self.library.add(path, "copy" if copy else "reference", progress), self._added)

    def _added(self, entry: ModelEntry) -> None:
        self.refresh()
        for row, candidate in enumerate(self.entries):
            if candidate.path == entry.path:
                self.table.selectRow(row)
        if entry.warning:
            self._set_error(entry.warning)

    def use_selected(self) -> None:
        entry = self.selected_entry()
        if entry is None:
            return
        try:
            self.library.set_active(entry.path, probe=True)
        except CompanionError as exc:
            self._set_error(str(exc))
            return
        self._set_error(entry.warning)
        self.local_radio.setChecked(True)
        self.refresh()

    def remove_selected(self, delete_file: bool | None = None) -> None:
        entry = self.selected_entry()
        if entry is None:
            return
        if delete_file is None and entry.source == "models":
            from PySide6.QtWidgets import QMessageBox

            answer = QMessageBox.question(self, self.tr("Delete model"), self.tr(
                "{name} is stored in Companion's models folder. Delete the file ({size})?").format(
                name=entry.file_name, size=entry.summary()["size"]))
            delete_file = answer == QMessageBox.StandardButton.Yes
            if not delete_file:
                return
        try:
            self.library.remove(entry.path, delete_file=bool(delete_file))
        except CompanionError as exc:
            self._set_error(str(exc))
            return
        self.refresh()

    # -- downloads --------------------------------------------------------------

    def _curated_chosen(self, model: object) -> None:
        custom = model is None
        self.repo_edit.setReadOnly(not custom)
        self.file_edit.setReadOnly(not custom)
        if model is not None:
            self.repo_edit.setText(model.repo_id)  # type: ignore[attr-defined]
            self.file_edit.setText(model.filename)  # type: ignore[attr-defined]

    def start_download(self) -> None:
        repo, filename = self.repo_edit.text().strip(), self.file_edit.text().strip()
        if not repo or not filename:
            self._set_error(self.tr("Enter the repository (owner/name) and the .gguf file name."))
            return
        self._set_error("")
        self.downloader = Downloader(self.window_.home.models)
        downloader = self.downloader
        self._run(lambda progress: downloader.download(repo, filename, progress=progress), self._downloaded)

    def _downloaded(self, path: Path) -> None:
        self.refresh()
        for row, entry in enumerate(self.entries):
            if entry.path == path:
                self.table.selectRow(row)
        verified = self.downloader is not None and self.downloader.verified
        message = (self.tr("Downloaded {name}; checksum verified.") if verified
                   else self.tr("Downloaded {name}; the Hub sent no checksum, so only its size and header were checked."))
        self.window_.show_message(message.format(name=path.name))

    def cancel_job(self) -> None:
        if self.downloader is not None:
            self.downloader.cancel()

    def _run(
        self,
        work: Callable[[Callable[[int, int], None]], Any],
        done: Callable[[Any], None],
        on_error: Callable[[str], None] | None = None,
    ) -> None:
        if self.job is not None:
            self._set_error(self.tr("Wait for the current copy or download to finish, or stop it."))
            return
        self.job = BackgroundJob(lambda report, _cancelled: work(report), self, name="model-file")
        self.job.progressed.connect(lambda args: self._progress(*args))
        self.job.succeeded.connect(done)
        self.job.failed.connect(on_error or self._set_error)
        self.job.finished.connect(self._job_done)
        self.progress.setVisible(True)
        self.progress.setRange(0, 0)
        for button in (self.download_button, self.add_button, self.test_button):
            button.setEnabled(False)
        self.cancel_button.setEnabled(True)
        self.job.start()

    def _progress(self, done: int, total: int) -> None:
        if total:
            self.progress.setRange(0, 1000)
            self.progress.setValue(int(1000 * done / total))
            self.progress.setFormat(f"{done / 2**20:.0f} / {total / 2**20:.0f} MB (%p%)")

    def _job_done(self) -> None:
        if self.job is not None:
            self.job.wait()
            self.job.deleteLater()
        self.job = None
        self.downloader = None
        self.progress.setVisible(False)
        for button in (self.download_button, self.add_button, self.test_button):
            button.setEnabled(True)
        self.cancel_button.setEnabled(False)
        self.job_finished.emit()

    def stop_jobs(self) -> None:
        """Stop a download and wait for the thread (a copy finishes first)."""
        self.cancel_job()
        if self.job is not None:
            self.job.wait()
            self._job_done()

    # -- model server -----------------------------------------------------------

    def test_connection(self) -> None:
        """Ask the server for its models in the background and say what it offers."""
        url, name, key = self.url_edit.text().strip(), self.name_edit.text().strip(), self.key_edit.text().strip()
        self.server_status.setText(self.tr("Connecting…"))

        def probe(_progress: Callable[[int, int], None]) -> str:
            from companion.llm.loader import connect_server

            backend = connect_server(url, name, key)
            backend.close()
            return self.tr("Connected: {model}, context {ctx} tokens.").format(model=backend.model, ctx=backend.info.n_ctx)

        self._run(probe, self.server_status.setText, on_error=self.server_status.setText)

    # -- apply ------------------------------------------------------------------

    def apply(self) -> bool:
        """Write the settings and reload the model; False (with the reason shown) if something is invalid."""
        model = self.model
        if self.server_radio.isChecked():
            url = self.url_edit.text().strip()
            if not url.startswith(("http://", "https://")):
                self._set_error(self.tr("Enter the server's address, e.g. http://127.0.0.1:8080/v1"))
                return False
            model.backend, model.base_url = "openai", url
            model.model_name = self.name_edit.text().strip()
            model.remote_timeout_s = self.timeout_spin.value()
            model.remote_n_ctx = self.server_ctx.value()
            try:
                self.keystore.set(url, self.key_edit.text().strip())
            except CompanionError as exc:
                self._set_error(str(exc))
                return False
        else:
            model.backend = "llama"
        model.n_gpu_layers = self.gpu_layers_value()
        model.n_threads = self.threads.value()
        model.n_ctx = self.context.value()
        self.window_.settings.model = replace(model, library=list(model.library))
        try:
            save_settings(self.window_.home.settings_file, self.window_.settings)
        except CompanionError as exc:
            self._set_error(str(exc))
            return False
        self.window_.reload_model()
        return True

    def accept(self) -> None:
        if self.job is not None:
            self._set_error(self.tr("Wait for the current copy or download to finish, or stop it."))
            return
        if self.apply():
            super().accept()

    def reject(self) -> None:
        self.stop_jobs()
        super().reject()

    def done(self, result: int) -> None:
        if self.job is not None and result == QDialog.DialogCode.Rejected:
            self.stop_jobs()
        super().done(result)
