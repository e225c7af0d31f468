"""Preferences: names (shortcuts into USER.md / SOUL.md), the nightly sleep, appearance and replies;
saved to settings.toml."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QTime
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDoubleSpinBox,
    QDialogButtonBox,
    QFormLayout,
    QGroupBox,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPlainTextEdit,
    QPushButton,
    QTabWidget,
    QTimeEdit,
    QVBoxLayout,
    QWidget,
)

from companion.errors import CompanionError
from companion.settings import save_settings
from companion.curate.gate import MemoryWriter
from companion.curate.names import current_name, set_name
from companion.ui.appearance import FONT_SIZES, THEMES, apply_appearance

REPLY_LENGTHS = (128, 256, 512, 1024, 2048)  # max_reply_tokens choices

if TYPE_CHECKING:
    from companion.ui.main_window import MainWindow


class SettingsDialog(QDialog):
    def __init__(self, window: "MainWindow", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.window_ = window
        self.setWindowTitle(self.tr("Preferences"))
        self.setMinimumWidth(480)
        layout = QVBoxLayout(self)
        self.tabs = QTabWidget()
        layout.addWidget(self.tabs)
        self.tabs.addTab(self._general_tab(window), self.tr("General"))
        self.tabs.addTab(self._appearance_tab(window), self.tr("Appearance"))
        self.tabs.addTab(self._replies_tab(window), self.tr("Replies"))

        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)

    def _general_tab(self, window: "MainWindow") -> QWidget:
        page = QWidget()
        layout = QVBoxLayout(page)

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

        layout.addStretch(1)
        return page

    def _appearance_tab(self, window: "MainWindow") -> QWidget:
        page = QWidget()
        form = QFormLayout(page)
        self.theme = QComboBox()
        for key, label in zip(THEMES, (self.tr("Same as the system"), self.tr("Light"), self.tr("Dark"))):
            self.theme.addItem(label, key)
        self.theme.setCurrentIndex(max(0, self.theme.findData(window.settings.window.theme)))
        form.addRow(self.tr("Colours:"), self.theme)
        self.font_size = QComboBox()
        for size in FONT_SIZES:
            self.font_size.addItem(self.tr("System size") if size == 0 else self.tr("%1 pt").replace("%1", str(size)),
                                   size)
        self.font_size.setCurrentIndex(max(0, self.font_size.findData(window.settings.window.font_size)))
        form.addRow(self.tr("Text size:"), self.font_size)
        return page

    def _replies_tab(self, window: "MainWindow") -> QWidget:
        page = QWidget()
        form = QFormLayout(page)
        model = window.settings.model
        self.reply_length = QComboBox()
        labels = (self.tr("Very short"), self.tr("Short"), self.tr("Medium"), self.tr("Long"), self.tr("Very long"))
        for tokens, label in zip(REPLY_LENGTHS, labels):
            self.reply_length.addItem(self.tr("%1 (up to %2 tokens)").replace("%1", label).replace("%2", str(tokens)),
                                      tokens)
        if self.reply_length.findData(model.max_reply_tokens) < 0:
            self.reply_length.addItem(self.tr("Up to %1 tokens").replace("%1", str(model.max_reply_tokens)),
                                      model.max_reply_tokens)
        self.reply_length.setCurrentIndex(self.reply_length.findData(model.max_reply_tokens))
        form.addRow(self.tr("Reply length:"), self.reply_length)
        self.temperature = QDoubleSpinBox()
        self.temperature.setRange(0.0, 2.0)
        self.temperature.setSingleStep(0.1)
        self.temperature.setDecimals(2)
        self.temperature.setValue(model.temperature)
        self.temperature.setToolTip(self.tr("Lower: steadier, more literal replies. Higher: more varied ones."))
        form.addRow(self.tr("Temperature:"), self.temperature)
        self.system_prompt = QPlainTextEdit()
        self.system_prompt.setObjectName("systemPrompt")
        self.system_prompt.setReadOnly(True)
        self.system_prompt.setMinimumHeight(160)
        try:
            self.system_prompt.setPlainText(window.session.system_prompt())
        except CompanionError as exc:
            self.system_prompt.setPlainText(str(exc))
        form.addRow(QLabel(self.tr("What the model is told before every reply (read-only; built from your "
                                   "memory files):")))
        form.addRow(self.system_prompt)
        self.soul_button = QPushButton(self.tr("Edit the persona in SOUL.md…"))
        self.soul_button.clicked.connect(self.open_soul)
        form.addRow(self.soul_button)
        return page

    def open_soul(self) -> None:
        """The persona is the part of the prompt the user shapes: open SOUL.md in the memory pane."""
        self.window_.memory_pane.show()
        self.window_.memory_pane.open_file("SOUL.md")
        self.reject()

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
            window.settings.window.theme = str(self.theme.currentData())
            window.settings.window.font_size = int(self.font_size.currentData())
            window.settings.model.max_reply_tokens = int(self.reply_length.currentData())
            window.settings.model.temperature = round(float(self.temperature.value()), 2)
            save_settings(window.home.settings_file, window.settings)
        except CompanionError as exc:
            QMessageBox.warning(self, self.tr("Preferences not saved"), str(exc))
            return False
        apply_appearance(window.settings.window)
        window.settings_changed.emit()
        window.show_message(self.tr("Preferences saved."))
        return True

    def accept(self) -> None:
        if self.apply():
            super().accept()
