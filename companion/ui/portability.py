"""File > Export memory… and Import memory…: dialogs with the command-line options and a progress bar."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any, Callable

import platformdirs
from PySide6.QtCore import QCoreApplication, Qt, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QButtonGroup,
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QRadioButton,
    QVBoxLayout,
    QWidget,
)

from companion.errors import CompanionError, TransferCancelledError, UnrecognizedSourceError
from companion.memory.longterm import LongTermStore
from companion.portability.migrate import detect, migrate
from companion.portability.skill_export import ExportOptions, ExportResult, export_memory
from companion.portability.skill_import import import_memory, is_memory_source
from companion.paths import Home
from companion.ui.extensions import WindowAPI
from companion.ui.jobs import BackgroundJob

log = logging.getLogger(__name__)

Job = Callable[[Callable[[int, int, str], None], Callable[[], bool]], Any]


class _TransferDialog(QDialog):
    """Shared frame: a form, a status line, a progress bar, Start/Close buttons, one worker."""

    finished_job = Signal(object)  # the result, after success

    def __init__(self, title: str, start_text: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(title)
        self.setMinimumWidth(520)
        self.form = QVBoxLayout()
        self.status = QLabel()
        self.status.setWordWrap(True)
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.progress = QProgressBar()
        self.progress.setRange(0, 1)
        self.progress.setValue(0)
        self.buttons = QDialogButtonBox()
        self.start_button = self.buttons.addButton(start_text, QDialogButtonBox.ButtonRole.AcceptRole)
        self.close_button = self.buttons.addButton(QDialogButtonBox.StandardButton.Close)
        self.start_button.clicked.connect(self.start)
        self.close_button.clicked.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(self.form)
        layout.addWidget(self.progress)
        layout.addWidget(self.status)
        layout.addWidget(self.buttons)
        self.thread: BackgroundJob | None = None
        self.result: Any = None

    def job(self) -> Job | None:  # overridden
        raise NotImplementedError

    def describe(self, result: Any) -> str:  # overridden
        raise NotImplementedError

    def start(self) -> None:
        job = self.job()
        if job is None:
            return
        self.result = None
        self.thread = BackgroundJob(job, self, name="memory-transfer")
        self.thread.progressed.connect(lambda args: self._on_progress(*args))
        self.thread.succeeded.connect(self._on_success)
        self.thread.failed.connect(self._on_failure)
        self.thread.finished.connect(self._on_thread_done)
        self.start_button.setEnabled(False)
        self.close_button.setText(self.tr("Cancel"))
        self._set_form_enabled(False)
        self.progress.setRange(0, 0)  # busy until the first report says how much there is
        self.status.setStyleSheet("")
        self.status.setText(self.tr("Working…"))
        self.thread.start()

    def running(self) -> bool:
        return self.thread is not None and self.thread.isRunning()

    def _set_form_enabled(self, enabled: bool) -> None:
        for index in range(self.form.count()):
            item = self.form.itemAt(index)
            widget = item.widget() if item is not None else None
            if widget is not None:
                widget.setEnabled(enabled)
            elif item is not None and item.layout() is not None:
                layout = item.layout()
                for inner in range(layout.count()):
                    child = layout.itemAt(inner).widget()
                    if child is not None:
                        child.setEnabled(enabled)

    def _on_progress(self, done: int, total: int, what: str) -> None:
        self.progress.setRange(0, max(total, 1))
        self.progress.setValue(done)
        self.status.setText(what)

    def _on_success(self, result: Any) -> None:
        self.result = result
        self.progress.setRange(0, 1)
        self.progress.setValue(1)
        self.status.setText(self.describe(result))
        self.finished_job.emit(result)

    def _on_failure(self, message: str) -> None:
        self.progress.setRange(0, 1)
        self.progress.setValue(0)
        self.status.setStyleSheet("color: #b00020;")
        self.status.setText(message)

    def _on_thread_done(self) -> None:
        self.close_button.setText(self.tr("Close"))
        self._set_form_enabled(True)
        self.start_button.setEnabled(self.result is None)

    def reject(self) -> None:
        if self.running():
            assert self.thread is not None
            self.thread.cancel()  # the job stops at its next file
            self.status.setText(self.tr("Stopping…"))
            return
        super().reject()

    def done(self, code: int) -> None:
        if self.thread is not None:
            self.thread.cancel()
            self.thread.wait()
        super().done(code)


def _browse_row(edit: QLineEdit, *buttons: QPushButton) -> QHBoxLayout:
    row = QHBoxLayout()
    row.addWidget(edit, 1)
    for button in buttons:
        row.addWidget(button)
    return row


class ExportDialog(_TransferDialog):
    """Choose a destination and the options of `companion export`, then export with progress."""

    def __init__(self, home: Home, parent: QWidget | None = None) -> None:
        super().__init__(self_tr("Export memory"), self_tr("Export"), parent)
        self.home = home
        self.destination = QLineEdit(platformdirs.user_documents_dir())
        browse = QPushButton(self.tr("Browse…"))
        browse.clicked.connect(self._browse)
        intro = QLabel(self.tr(
            "Saves the memory as an Agent Skill (a folder named companion-memory) that other agents can load. "
            "Your memory here is not changed."
        ))
        intro.setWordWrap(True)
        self.as_zip = QCheckBox(self.tr("Save as a .zip file"))
        self.without_logs = QCheckBox(self.tr("Leave out the day logs (raw conversation)"))
        self.redact = QCheckBox(self.tr("Mask personal data: emails, phone numbers, card and IBAN numbers, secrets"))
        self.include_private = QCheckBox(self.tr("Include what was said while memory was paused (\"Don't remember this\")"))
        self.without_logs.toggled.connect(lambda off: self.include_private.setEnabled(not off))
        self.form.addWidget(intro)
        self.form.addWidget(QLabel(self.tr("Export into folder:")))
        self.form.addLayout(_browse_row(self.destination, browse))
        for box in (self.as_zip, self.without_logs, self.include_private, self.redact):
            self.form.addWidget(box)

    def _browse(self) -> None:
        chosen = QFileDialog.getExistingDirectory(self, self.tr("Export into folder"), self.destination.text())
        if chosen:
            self.destination.setText(chosen)

    def options(self) -> ExportOptions:
        return ExportOptions(
            as_zip=self.as_zip.isChecked(),
            include_logs=not self.without_logs.isChecked(),
            redact=self.redact.isChecked(),
            include_private=self.include_private.isChecked(),
        )

    def job(self) -> Job | None:
        text = self.destination.text().strip()
        if not text:
            self._on_failure(self.tr("Choose a folder to export into."))
            return None
        home, dest, options = self.home, Path(text).expanduser(), self.options()
        return lambda progress, cancelled: export_memory(home, dest, options, progress=progress, cancelled=cancelled)

    def describe(self, result: ExportResult) -> str:
        summary = result.summary
        text = self.tr("Exported to {path}: {files} files").format(path=result.path, files=result.files)
        if summary.logs_included:
            text += self.tr(", {days} days of conversation").format(days=len(summary.days))
        if result.private_left_out:
            text += self.tr(", {count} private records left out").format(count=result.private_left_out)
        if self.redact.isChecked():
            text += self.tr(", {count} values masked").format(count=result.redactions.total)
        return text + "."

    def _on_failure(self, message: str) -> None:
        if self.thread is not None and self.thread.cancelled:
            message = str(TransferCancelledError("Export cancelled; nothing was written."))
        super()._on_failure(message)


class ImportDialog(_TransferDialog):
    """Choose a folder, .zip or older-format file, merge or replace, then import with progress."""

    def __init__(self, home: Home, store: LongTermStore, parent: QWidget | None = None) -> None:
        super().__init__(self_tr("Import memory"), self_tr("Import"), parent)
        self.home = home
        self.store = store
        self.source = QLineEdit()
        self.source.setPlaceholderText(self.tr("A companion-memory folder or .zip, or an older file"))
        folder = QPushButton(self.tr("Folder…"))
        folder.clicked.connect(self._browse_folder)
        file = QPushButton(self.tr("File…"))
        file.clicked.connect(self._browse_file)
        self.found = QLabel()
        self.found.setWordWrap(True)
        self.merge = QRadioButton(self.tr("Merge: add what is new, skip what is already known"))
        self.replace = QRadioButton(self.tr("Replace: the memory becomes the imported one"))
        self.merge.setChecked(True)
        self.mode_group = QButtonGroup(self)
        self.mode_group.addButton(self.merge)
        self.mode_group.addButton(self.replace)
        note = QLabel(self.tr("A backup of the current memory is saved before anything changes."))
        note.setWordWrap(True)
        self.form.addWidget(QLabel(self.tr("Import from:")))
        self.form.addLayout(_browse_row(self.source, folder, file))
        self.form.addWidget(self.found)
        self.form.addWidget(self.merge)
        self.form.addWidget(self.replace)
        self.form.addWidget(note)
        self.source.textChanged.connect(self._inspect)
        self._inspect()

    def _browse_folder(self) -> None:
        chosen = QFileDialog.getExistingDirectory(self, self.tr("Import from folder"))
        if chosen:
            self.source.setText(chosen)

    def _browse_file(self) -> None:
        chosen, _ = QFileDialog.getOpenFileName(
            self, self.tr("Import from file"), "", self.tr("Memory or chat export (*.zip *.json *.jsonl);;All files (*)")
        )
        if chosen:
            self.source.setText(chosen)

    def _inspect(self) -> None:
        """Say what the chosen source is before anything runs; Replace only applies to a memory."""
        text = self.source.text().strip()
        path = Path(text).expanduser() if text else None
        kind = ""
        memory = False
        if path is not None and path.exists():
            try:
                memory = is_memory_source(path)
                if memory:
                    kind = self.tr("A memory to import (SOUL.md / USER.md / MEMORY.md, digests and day logs).")
                else:
                    sources = detect(path)
                    kind = (
                        self.tr("Older format: {what}.").format(what=", ".join(f"{s.path.name} ({s.detail})" for s in sources))
                        if sources
                        else self.tr("Nothing Companion can import was found here.")
                    )
            except OSError as exc:
                kind = str(exc)
        elif path is not None:
            kind = self.tr("This path does not exist.")
        self.found.setText(kind)
        self.replace.setEnabled(memory)
        if not memory:
            self.merge.setChecked(True)

    def mode(self) -> str:
        return "replace" if self.replace.isChecked() else "merge"

    def job(self) -> Job | None:
        text = self.source.text().strip()
        if not text:
            self._on_failure(self.tr("Choose a folder, .zip or file to import."))
            return None
        home, store, src, mode = self.home, self.store, Path(text).expanduser(), self.mode()

        def run(progress: Callable[[int, int, str], None], cancelled: Callable[[], bool]) -> list[str]:
            if is_memory_source(src):
                return import_memory(home, src, mode, store=store, progress=progress,  # type: ignore[arg-type]
                                     cancelled=cancelled).lines()
            sources = detect(src)
            if not sources:
                raise UnrecognizedSourceError(f"Found nothing to import in {src}.")
            progress(0, 1, src.name)
            report = migrate(home, sources, store=store)
            progress(1, 1, src.name)
            return report.lines()

        return run

    def describe(self, result: list[str]) -> str:
        return "\n".join(result)


def self_tr(text: str) -> str:
    """Translate a title before the dialog exists."""
    return QCoreApplication.translate("portability", text)


def _insert(window: WindowAPI, action: QAction) -> None:
    menu = window.menu("&File")
    quit_action = next((a for a in menu.actions() if a.menuRole() == QAction.MenuRole.QuitRole), None)
    if quit_action is not None:
        menu.insertAction(quit_action, action)
    else:
        menu.addAction(action)


def install(window: WindowAPI) -> None:
    """Add File > Export memory… and File > Import memory… to the main window."""

    def open_export() -> None:
        dialog = ExportDialog(window.home, window.widget)
        dialog.finished_job.connect(lambda result: window.show_message(f"Memory exported to {result.path}", 10_000))
        dialog.exec()

    def open_import() -> None:
        dialog = ImportDialog(window.home, window.store, window.widget)
        dialog.finished_job.connect(lambda _result: window.show_message("Memory imported; see the memory pane.", 10_000))
        dialog.exec()

    export_action = QAction(self_tr("Export memory…"), window.widget)
    export_action.triggered.connect(lambda _checked=False: open_export())
    import_action = QAction(self_tr("Import memory…"), window.widget)
    import_action.triggered.connect(lambda _checked=False: open_import())
    _insert(window, export_action)
    _insert(window, import_action)
    separator = QAction(window.widget)
    separator.setSeparator(True)
    _insert(window, separator)
