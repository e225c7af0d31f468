"""Preferences: names (shortcuts into USER.md / SOUL.md) and the nightly sleep; saved to settings.toml."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QTime
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QGroupBox,
    QLabel,
    QLineEdit,
    QMessageBox,
    QTimeEdit,
    QVBoxLayout,
    QWidget,
)

from companion.errors import CompanionError
from companion.settings import save_settings
from companion.curate.gate import MemoryWriter
from companion.curate.names import current_name, set_name

if TYPE_CHECKING:
    from companion.ui.main_window import MainWindow


class SettingsDialog(QDialog):
    def __init__(self, window: "MainWindow", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.window_ = window
        self.setWindowTitle(self.tr("Preferences"))
        self.setMinimumWidth(440)
        layout = QVBoxLayout(self)

        names = QGroupBox(self.tr("Names"))
        form = QFormLayout(names)
        self.user_name = QLineEdit(self._name("USER.md"))
        self.user_name.setPlaceholderText(self.tr("How the companion calls you"))
        self.companion_name = QLineEdit(self._name("SOUL.md"))
        self.companion_name.setPlaceholderText(self.tr("Companion"))
        form.addRow(self.tr("Your name:"), self.user_name)
        form.addRow(self.tr("Companion's name:"), self.companion_name)
        hint = QLabel(self.tr("Saved into USER.md and SOUL.md, where you can edit them too."))
        hint.setWordWrap(True)
        hint.setObjectName("hint")
        form.addRow(hint)
        layout.addWidget(names)

        sleep = QGroupBox(self.tr("Sleep"))
        form = QFormLayout(sleep)
        self.sleep_enabled = QCheckBox(self.tr("Distill the day into long-term memory every night"))
        self.sleep_enabled.setChecked(window.settings.sleep.enabled)
        self.sleep_time = QTimeEdit(QTime.fromString(window.settings.sleep.time, "HH:mm"))
        self.sleep_time.setDisplayFormat("HH:mm")
        self.sleep_enabled.toggled.connect(self.sleep_time.setEnabled)
        self.sleep_time.setEnabled(window.settings.sleep.enabled)
        form.addRow(self.sleep_enabled)
        form.addRow(self.tr("Sleep at:"), self.sleep_time)
        self.auto_learn = QCheckBox(self.tr("Also learn from our conversations during the day"))
        self.auto_learn.setToolTip(self.tr("After a reply, facts you tell about yourself go to USER.md / MEMORY.md"))
        self.auto_learn.setChecked(window.settings.memory.auto_learn)
        form.addRow(self.auto_learn)
        self.keep_in_tray = QCheckBox(self.tr("Keep running in the system tray when the window is closed"))
        self.keep_in_tray.setToolTip(self.tr("So the nightly sleep and reminders happen while the window is closed"))
        self.keep_in_tray.setChecked(window.settings.window.keep_in_tray)
        form.addRow(self.keep_in_tray)
        layout.addWidget(sleep)

        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)

    def _name(self, file: str) -> str:
        try:
            return current_name(self.window_.store, file)
        except CompanionError:
            return ""

    def apply(self) -> bool:
        """Write names into memory and the rest into settings.toml; errors are shown, not raised."""
        window = self.window_
        try:
            writer = MemoryWriter(window.store)
            set_name(writer, "USER.md", "## Profile", self.user_name.text())
            set_name(writer, "SOUL.md", "## Identity", self.companion_name.text())
            window.settings.sleep.enabled = self.sleep_enabled.isChecked()
            window.settings.sleep.time = self.sleep_time.time().toString("HH:mm")
            window.settings.memory.auto_learn = self.auto_learn.isChecked()
            window.settings.window.keep_in_tray = self.keep_in_tray.isChecked()
            window.settings.window.tray_asked = True
            save_settings(window.home.settings_file, window.settings)
        except CompanionError as exc:
            QMessageBox.warning(self, self.tr("Preferences not saved"), str(exc))
            return False
        window.settings_changed.emit()
        window.show_message(self.tr("Preferences saved."))
        return True

    def accept(self) -> None:
        if self.apply():
            super().accept()
