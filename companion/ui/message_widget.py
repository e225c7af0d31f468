"""One message in the timeline: who, when, the text (Markdown for replies), copy."""

from __future__ import annotations

from datetime import datetime

from typing import Callable

from PySide6.QtCore import QCoreApplication, Qt, Signal
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QSizePolicy, QToolButton, QVBoxLayout, QWidget

from companion.memory.records import Record
from companion.ui.links import open_link


class _Label(QLabel):
    """QLabel re-lays out its whole document on every heightForWidth call; remember the answers."""

    def __init__(self) -> None:
        super().__init__()
        self._heights: dict[int, int] = {}

    def setText(self, text: str) -> None:  # noqa: N802 (Qt name)
        self._heights.clear()
        super().setText(text)

    def heightForWidth(self, width: int) -> int:  # noqa: N802 (Qt name)
        height = self._heights.get(width)
        if height is None:
            height = self._heights[width] = super().heightForWidth(width)
        return height

    def changeEvent(self, event: object) -> None:  # noqa: N802 (Qt name)
        self._heights.clear()  # font or style changed
        super().changeEvent(event)  # type: ignore[arg-type]


def block_end(text: str, start: int) -> int | None:
    """End of the first complete Markdown block after `start` (a blank line outside code fences)."""
    position = start
    while (found := text.find("\n\n", position)) != -1:
        if text.count("```", start, found) % 2 == 0:
            return found + 2
        position = found + 2
    return None


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
        self._header = header
        self.copy_button = QToolButton()
        self.copy_button.setObjectName("copy")
        self.copy_button.setText(self.tr("Copy"))
        self.copy_button.setToolTip(self.tr("Copy this message"))
        self.copy_button.setAutoRaise(True)
        self.copy_button.setCursor(Qt.CursorShape.PointingHandCursor)
        self.copy_button.clicked.connect(self.copy)
        header.addWidget(self.copy_button)
        layout.addLayout(header)
        self._blocks = QVBoxLayout()
        self._blocks.setSpacing(4)
        layout.addLayout(self._blocks)
        self._frozen: list[QLabel] = []  # finished Markdown blocks of a reply, never re-rendered
        self._frozen_len = 0
        self.body = self._label()  # the text, or the unfinished last block of a reply
        self._blocks.addWidget(self.body)
        if role in ("tool", "event"):
            self.who.hide()
            self.copy_button.hide()
        self._render()

    def _label(self) -> QLabel:
        label = _Label()
        label.setObjectName("body")
        label.setWordWrap(True)
        label.setTextInteractionFlags(Qt.TextInteractionFlag.TextBrowserInteraction)
        label.setOpenExternalLinks(False)  # links open only through open_link: http(s), after showing the URL
        label.linkActivated.connect(lambda url: open_link(self, url))
        label.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Minimum)
        label.setTextFormat(Qt.TextFormat.MarkdownText if self.role == "assistant" else Qt.TextFormat.PlainText)
        return label

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
        recalled = record.extra.get("recalled")
        if isinstance(recalled, list) and recalled:
            widget.set_recalled([{"where": str(w)} for w in recalled])
        if record.extra.get("cancelled"):
            widget.set_note(QCoreApplication.translate("MessageWidget", "stopped"))
        elif record.private:
            widget.set_note(QCoreApplication.translate("MessageWidget", "private: not remembered"))
        return widget

    def text(self) -> str:
        return self._text

    def append(self, text: str) -> None:
        self._text += text
        self._render()

    def set_text(self, text: str) -> None:
        if not text.startswith(self._text[: self._frozen_len]):
            for label in self._frozen:
                label.deleteLater()
            self._frozen.clear()
            self._frozen_len = 0
        self._text = text
        self._render()

    def _render(self) -> None:
        if self.role != "assistant":
            shown = self._text
            if self.role in ("tool", "event") and len(shown) > 300:
                shown = shown[:300] + "…"
            self.body.setText(shown)
            return
        # Re-rendering a long Markdown label costs O(length) per update: freeze finished blocks.
        while (cut := block_end(self._text, self._frozen_len)) is not None:
            block = self._text[self._frozen_len:cut].strip("\n")
            self._frozen_len = cut
            if block.strip():
                label = self._label()
                label.setText(block)
                self._blocks.insertWidget(len(self._frozen), label)
                self._frozen.append(label)
        tail = self._text[self._frozen_len:].strip("\n")
        self.body.setText(tail if tail or self._frozen else "…")
        self.body.setVisible(bool(tail) or not self._frozen)

    def set_recalled(self, hits: list[dict[str, object]]) -> None:
        """An expandable list, under a reply, of the memories recalled for it."""
        if not hits:
            return
        lines = []
        for hit in hits:
            where = hit.get("where") or hit.get("id") or hit.get("file") or ""
            date = hit.get("date") or ""
            text = str(hit.get("text") or "")
            snippet = (text[:160] + "…") if len(text) > 160 else text
            lines.append(" · ".join(str(p) for p in (date, where) if p) + (f": {snippet}" if snippet else ""))
        if getattr(self, "recalled_button", None) is None:
            self.recalled_button = QToolButton()
            self.recalled_button.setObjectName("recalled")
            self.recalled_button.setCheckable(True)
            self.recalled_button.setAutoRaise(True)
            self.recalled_button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
            self.recalled_button.setArrowType(Qt.ArrowType.RightArrow)
            self.recalled_list = QLabel()
            self.recalled_list.setObjectName("recalledList")
            self.recalled_list.setWordWrap(True)
            self.recalled_list.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            self.recalled_list.hide()
            self.recalled_button.toggled.connect(self._toggle_recalled)
            self.layout().addWidget(self.recalled_button)
            self.layout().addWidget(self.recalled_list)
        self.recalled_button.setText(self.tr("Recalled %n memories", "", len(hits)).replace("%n", str(len(hits))))
        self.recalled_list.setText("\n".join(f"• {line}" for line in lines))

    def _toggle_recalled(self, shown: bool) -> None:
        self.recalled_button.setArrowType(Qt.ArrowType.DownArrow if shown else Qt.ArrowType.RightArrow)
        self.recalled_list.setVisible(shown)

    def add_action(self, text: str, tip: str, callback: Callable[[], None]) -> QToolButton:
        """A small button in the header (Apply, Undo) next to the note."""
        button = QToolButton()
        button.setObjectName("action")
        button.setText(text)
        button.setToolTip(tip)
        button.setCursor(Qt.CursorShape.PointingHandCursor)
        button.clicked.connect(callback)
        self._header.insertWidget(self._header.count() - 1, button)
        return button

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
