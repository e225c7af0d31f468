"""One message in the timeline: who, when, the text (Markdown for replies), copy."""

from __future__ import annotations

from datetime import datetime

from PySide6.QtCore import QCoreApplication, Qt, Signal
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QSizePolicy, QToolButton, QVBoxLayout, QWidget

from companion.memory.records import Record


class MessageWidget(QFrame):
    """A card; `role` is user, assistant, tool or event (the last two are shown small)."""

    copied = Signal(str)

    def __init__(self, role: str, text: str = "", when: datetime | None = None, record_id: str = "",
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.role = role
        self.record_id = record_id
        self._text = text
        self.setObjectName("message")
        self.setProperty("role", role)
        self.setProperty("found", False)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 6, 12, 8)
        layout.setSpacing(2)
        header = QHBoxLayout()
        header.setSpacing(6)
        self.who = QLabel(self._who_text(role))
        self.who.setObjectName("who")
        self.when = QLabel(when.strftime("%H:%M") if when else "")
        self.when.setObjectName("when")
        self.note = QLabel("")
        self.note.setObjectName("note")
        self.note.hide()
        header.addWidget(self.who)
        header.addWidget(self.when)
        header.addWidget(self.note)
        header.addStretch(1)
        self.copy_button = QToolButton()
        self.copy_button.setObjectName("copy")
        self.copy_button.setText(self.tr("Copy"))
        self.copy_button.setToolTip(self.tr("Copy this message"))
        self.copy_button.setAutoRaise(True)
        self.copy_button.setCursor(Qt.CursorShape.PointingHandCursor)
        self.copy_button.clicked.connect(self.copy)
        header.addWidget(self.copy_button)
        layout.addLayout(header)
        self.body = QLabel()
        self.body.setObjectName("body")
        self.body.setWordWrap(True)
        self.body.setTextInteractionFlags(Qt.TextInteractionFlag.TextBrowserInteraction)
        self.body.setOpenExternalLinks(True)
        self.body.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Minimum)
        self.body.setTextFormat(Qt.TextFormat.MarkdownText if role == "assistant" else Qt.TextFormat.PlainText)
        layout.addWidget(self.body)
        if role in ("tool", "event"):
            self.who.hide()
            self.copy_button.hide()
        self._render()

    def _who_text(self, role: str) -> str:
        return {"user": self.tr("You"), "assistant": self.tr("Companion")}.get(role, "")

    @classmethod
    def from_record(cls, record: Record) -> "MessageWidget":
        text = record.text
        if record.role == "tool":
            tool = record.extra.get("tool") or {}
            name = tool.get("name", "") if isinstance(tool, dict) else ""
            text = f"{name}: {record.text}" if name else record.text
        try:
            when = record.timestamp
        except ValueError:
            when = None
        widget = cls(record.role, text, when, record.id)
        if record.extra.get("cancelled"):
            widget.set_note(QCoreApplication.translate("MessageWidget", "stopped"))
        return widget

    def text(self) -> str:
        return self._text

    def append(self, text: str) -> None:
        self._text += text
        self._render()

    def set_text(self, text: str) -> None:
        self._text = text
        self._render()

    def _render(self) -> None:
        shown = self._text if self._text or self.role != "assistant" else "…"
        if self.role in ("tool", "event") and len(shown) > 300:
            shown = shown[:300] + "…"
        self.body.setText(shown)

    def set_note(self, note: str) -> None:
        self.note.setText(note)
        self.note.setVisible(bool(note))

    def mark_replaced(self) -> None:
        self.setProperty("replaced", True)
        self.set_note(self.tr("replaced"))
        self._repolish()

    def set_found(self, found: bool) -> None:
        self.setProperty("found", found)
        self._repolish()

    def _repolish(self) -> None:
        self.style().unpolish(self)
        self.style().polish(self)

    def copy(self) -> None:
        QGuiApplication.clipboard().setText(self._text)
        self.copied.emit(self._text)
