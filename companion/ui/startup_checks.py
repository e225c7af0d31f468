"""Bad state on disk found at start-up, each shown with what the user can do; the app keeps running.

A memory file whose frontmatter is broken (hand-edited, synced half-way, hostile) gets a dialog that
offers to open it in the editor or to restore its last version that reads; chat meanwhile uses its
body without its settings.
"""

from __future__ import annotations

import logging
from typing import Callable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox, QPushButton, QWidget

from companion.curate.gate import MemoryWriter
from companion.errors import CompanionError, FrontmatterError
from companion.memory.document import content_hash, parse_document
from companion.memory.history import Version
from companion.memory.longterm import LongTermStore

log = logging.getLogger(__name__)
MEMORY_FILES = ("SOUL.md", "USER.md", "MEMORY.md")


def broken_files(store: LongTermStore) -> dict[str, FrontmatterError]:
    """The long-term files whose frontmatter does not read, with why."""
    broken: dict[str, FrontmatterError] = {}
    for name in MEMORY_FILES:
        try:
            store.read(name)
        except FrontmatterError as exc:
            broken[name] = exc
        except CompanionError as exc:  # unreadable for another reason: the editor says so when opened
            log.warning("%s cannot be read: %s", name, exc)
    return broken


def last_good_version(store: LongTermStore, name: str) -> Version | None:
    """The newest snapshot of `name` whose frontmatter reads."""
    for version in store.history.versions(name):
        try:
            parse_document(name, version.read())
        except CompanionError:
            continue
        return version
    return None


class BrokenFileDialog(QMessageBox):
    """One broken memory file: open it, restore its last good version, or decide later."""

    def __init__(self, parent: QWidget | None, store: LongTermStore, name: str, error: FrontmatterError,
                 open_file: Callable[[str], object]) -> None:
        super().__init__(parent)
        self.store, self.name, self._open_file = store, name, open_file
        self.version = last_good_version(store, name)
        self.setIcon(QMessageBox.Icon.Warning)
        self.setWindowTitle(self.tr("A memory file cannot be read"))
        where = self.tr(" (line %1)").replace("%1", str(error.line)) if error.line else ""
        self.setText(self.tr("The settings at the top of %1 are broken%2. Chat keeps working with the rest of the "
                             "file meanwhile.").replace("%1", name).replace("%2", where))
        self.setInformativeText(str(error))
        self.open_button: QPushButton = self.addButton(self.tr("Open the file"), QMessageBox.ButtonRole.ActionRole)
        self.restore_button: QPushButton | None = None
        if self.version is not None:
            self.restore_button = self.addButton(self.tr("Restore the version of %1").replace("%1", self.version.when.strftime("%Y-%m-%d %H:%M")),
                                                 QMessageBox.ButtonRole.ActionRole)
        self.later_button = self.addButton(self.tr("Later"), QMessageBox.ButtonRole.RejectRole)
        self.buttonClicked.connect(self._clicked)

    def _clicked(self, button: object) -> None:
        if button is self.open_button:
            self._open_file(self.name)
        elif button is self.restore_button:
            self.restore()

    def restore(self) -> bool:
        """Put the last good version back (the broken text stays in History)."""
        if self.version is None:
            return False
        try:
            current = content_hash(self.store.read_raw(self.name))
            MemoryWriter(self.store).restore(self.name, self.version, expected_sha=current)
        except CompanionError as exc:
            QMessageBox.warning(self.parentWidget(), self.tr("Restore failed"), str(exc))
            return False
        return True


def check_at_start(parent: QWidget | None, store: LongTermStore, open_file: Callable[[str], object]) -> list[BrokenFileDialog]:
    """Show one dialog per broken memory file, not modal: the user can chat while deciding."""
    dialogs = []
    for name, error in broken_files(store).items():
        dialog = BrokenFileDialog(parent, store, name, error, open_file)
        dialog.setWindowModality(Qt.WindowModality.NonModal)
        dialog.show()
        dialogs.append(dialog)
    return dialogs
