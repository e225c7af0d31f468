"""The message box under the timeline: Enter sends, Shift+Enter breaks the line; Send/Stop, Regenerate."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QHBoxLayout, QPlainTextEdit, QPushButton, QVBoxLayout, QWidget


class MessageEdit(QPlainTextEdit):
    submitted = Signal()

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 (Qt name)
        enter = event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter)
        if enter and not event.modifiers() & Qt.KeyboardModifier.ShiftModifier:
            self.submitted.emit()
            return
        super().keyPressEvent(event)


class Composer(QWidget):
    send_requested = Signal(str)
    stop_requested = Signal()
    regenerate_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("composer")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(12, 6, 12, 10)
        self.edit = MessageEdit()
        self.edit.setObjectName("messageEdit")
        self.edit.setPlaceholderText(self.tr("Write a message… (Enter sends, Shift+Enter for a new line)"))
        self.edit.setTabChangesFocus(True)
        self.edit.setFixedHeight(72)
        self.edit.submitted.connect(self._submit)
        layout.addWidget(self.edit, 1)
        buttons = QVBoxLayout()
        self.send_button = QPushButton(self.tr("Send"))
        self.send_button.setObjectName("sendButton")
        self.send_button.setDefault(True)
        self.send_button.clicked.connect(self._send_or_stop)
        self.regenerate_button = QPushButton(self.tr("Regenerate"))
        self.regenerate_button.setToolTip(self.tr("Answer the last message again (the old reply stays in the log)"))
        self.regenerate_button.clicked.connect(self.regenerate_requested)
        buttons.addWidget(self.send_button)
        buttons.addWidget(self.regenerate_button)
        layout.addLayout(buttons)
        self._busy = False

    def _submit(self) -> None:
        if not self._busy:
            self._send_or_stop()

    def _send_or_stop(self) -> None:
        if self._busy:
            self.stop_requested.emit()
            return
        text = self.edit.toPlainText().strip()
        if text:
            self.edit.clear()
            self.send_requested.emit(text)

    def set_busy(self, busy: bool) -> None:
        self._busy = busy
        self.send_button.setText(self.tr("Stop") if busy else self.tr("Send"))
        self.send_button.setToolTip(self.tr("Stop the reply (Esc)") if busy else self.tr("Send (Enter)"))
        self.send_button.setProperty("stop", busy)
        self.send_button.style().unpolish(self.send_button)
        self.send_button.style().polish(self.send_button)
        self.regenerate_button.setEnabled(not busy)
