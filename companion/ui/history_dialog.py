"""Earlier versions of one long-term file: when, who changed it, the diff, restore."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QLocale, Qt, Signal
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMessageBox,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from companion.errors import CompanionError
from companion.curate.gate import MemoryWriter
from companion.memory.document import content_hash
from companion.memory.history import Version
from companion.memory.longterm import LongTermStore
from companion.ui.diff_view import DiffView


def actor_label(actor: str) -> str:
    labels = {
        "user": "you",
        "editor": "you, in the editor",
        "chat": "chat",
        "remember": "\u201cremember\u201d",
        "forget": "\u201cforget\u201d",
        "reminder": "reminder",
        "bootstrap": "first conversation",
        "tool": "chat tool",
        "approved": "chat tool (approved)",
        "agent": "another agent",
        "sleep": "sleep job",
        "learn": "auto-learn",
        "restore": "restore",
        "import": "import",
        "migrate": "migration",
    }
    return QCoreApplication.translate("HistoryDialog", labels.get(actor, actor))


class HistoryDialog(QDialog):
    """Each entry is the content the file had before a change by `actor`; restore puts it back."""

    restored = Signal(str)

    def __init__(self, store: LongTermStore, name: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.store = store
        self.name = name
        self.setWindowTitle(self.tr("History of %1").replace("%1", name))
        self.resize(860, 560)
        layout = QVBoxLayout(self)
        hint = QLabel(self.tr("Each version is what the file held before the change listed. "
                              "The diff shows what restoring it would change."))
        hint.setWordWrap(True)
        layout.addWidget(hint)
        splitter = QSplitter(Qt.Orientation.Horizontal)
        self.list = QListWidget()
        self.list.setWordWrap(True)  # "12/1/26 10:11 — before a change by auto-learn" in full
        self.list.currentItemChanged.connect(self._selected)
        self.diff = DiffView()
        splitter.addWidget(self.list)
        splitter.addWidget(self.diff)
        splitter.setSizes([300, 560])
        layout.addWidget(splitter, 1)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        self.restore_button = QPushButton(self.tr("Restore this version"))
        self.restore_button.setEnabled(False)
        self.restore_button.clicked.connect(self.restore_selected)
        buttons.addButton(self.restore_button, QDialogButtonBox.ButtonRole.ActionRole)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self.refresh()

    def refresh(self) -> None:
        self.list.clear()
        locale = QLocale()
        for version in self.store.history.versions(self.name):
            when = locale.toString(version.when, QLocale.FormatType.ShortFormat)
            item = QListWidgetItem(self.tr("%1 — before a change by %2").replace("%1", when)
                                   .replace("%2", actor_label(version.actor)))
            item.setData(Qt.ItemDataRole.UserRole, version)
            self.list.addItem(item)
        if self.list.count() == 0:
            self.diff.set_html("<p><i>" + self.tr("No earlier versions yet.") + "</i></p>")
        else:
            self.list.setCurrentRow(0)

    def selected(self) -> Version | None:
        item = self.list.currentItem()
        return item.data(Qt.ItemDataRole.UserRole) if item else None

    def _selected(self) -> None:
        version = self.selected()
        self.restore_button.setEnabled(version is not None)
        if version is not None:
            when = QLocale().toString(version.when, QLocale.FormatType.ShortFormat)
            self.diff.show_diff(self.store.read_raw(self.name), version.read(), self.tr("Now"),
                                self.tr("That version: before the change by %1 (%2)")
                                .replace("%1", actor_label(version.actor)).replace("%2", when))

    def restore_selected(self) -> bool:
        version = self.selected()
        if version is None:
            return False
        try:
            current = content_hash(self.store.read_raw(self.name))
            MemoryWriter(self.store).restore(self.name, version, expected_sha=current)
        except CompanionError as exc:
            QMessageBox.warning(self, self.tr("Restore failed"), str(exc))
            return False
        self.restored.emit(self.name)
        self.refresh()
        return True
