"""The memory editor's text box: Markdown highlighting, hints under empty sections, citations that act as links."""

from __future__ import annotations

import re

from PySide6.QtCore import QPoint, QRectF, Qt, Signal
from PySide6.QtGui import QFont, QFontDatabase, QFontMetrics, QMouseEvent, QPainter, QPaintEvent, QPalette
from PySide6.QtWidgets import QPlainTextEdit, QWidget

from companion.memory.section_names import file_language, hint
from companion.memory.sections import empty_sections, headings
from companion.memory import entries as E
from companion.ui.highlighter import COMMENT, MarkdownHighlighter

HINT_GAP = 18  # pixels between a heading and its hint


def citation_at(text: str, column: int) -> str | None:
    """The record id of the citation `(2026-11-29#17)` under `column` of a line, if any."""
    if any(c.start() <= column <= c.end() for c in COMMENT.finditer(text)):
        return None  # an example in a comment is not a link
    for match in E.CITED.finditer(text):
        if match.start() <= column <= match.end():
            return f"{match.group(1)}#{match.group(2)}"
    return None


class MarkdownEdit(QPlainTextEdit):
    """Plain text editing (the file stays byte-for-byte what the user typed); hints are painted, never inserted."""

    citation_clicked = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        font = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        font.setStyleHint(QFont.StyleHint.Monospace)
        self.setFont(font)
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.setMouseTracking(True)
        self.highlighter = MarkdownHighlighter(self.document())
        self._hints: dict[int, str] = {}  # block number of an empty section's heading -> its hint
        self.textChanged.connect(self._update_hints)

    def hints(self) -> dict[int, str]:
        """What is painted now: heading line -> hint."""
        return dict(self._hints)

    def _update_hints(self) -> None:
        body = self.toPlainText()
        language = file_language(h.title for h in headings(body))
        self._hints = {h.line: text for h in empty_sections(body) if (text := hint(h.title, language))}
        self.viewport().update()

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 (Qt name)
        super().paintEvent(event)
        if not self._hints:
            return
        painter = QPainter(self.viewport())
        font = QFont(self.font())
        font.setItalic(True)
        painter.setFont(font)
        painter.setPen(self.palette().color(QPalette.ColorRole.PlaceholderText))
        bold = QFont(self.font())
        bold.setBold(True)
        heading_metrics = QFontMetrics(bold)
        metrics = QFontMetrics(font)
        offset = self.contentOffset()
        block = self.firstVisibleBlock()
        bottom = self.viewport().height()
        while block.isValid():
            box = self.blockBoundingGeometry(block).translated(offset)
            if box.top() > bottom:
                break
            text = self._hints.get(block.blockNumber())
            if text and block.isVisible():
                left = box.left() + self.document().documentMargin() + heading_metrics.horizontalAdvance(block.text()) + HINT_GAP
                width = self.viewport().width() - left - 4
                if width > 40:
                    line = QRectF(left, box.top(), width, metrics.height() + 2)
                    painter.drawText(line, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                                     metrics.elidedText(text, Qt.TextElideMode.ElideRight, int(width)))
            block = block.next()
        painter.end()

    # -- citations as links --------------------------------------------------------------

    def citation_at(self, pos: QPoint) -> str | None:
        cursor = self.cursorForPosition(pos)
        if cursor.atBlockEnd() and pos.x() > self.cursorRect(cursor).right() + 2:
            return None  # past the end of the line: a click to place the cursor, not on the citation
        return citation_at(cursor.block().text(), cursor.positionInBlock())

    def mouseMoveEvent(self, event: QMouseEvent) -> None:  # noqa: N802 (Qt name)
        super().mouseMoveEvent(event)
        over = event.buttons() == Qt.MouseButton.NoButton and self.citation_at(event.position().toPoint()) is not None
        self.viewport().setCursor(Qt.CursorShape.PointingHandCursor if over else Qt.CursorShape.IBeamCursor)
        self.viewport().setToolTip(self.tr("Open the day log at this message") if over else "")

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:  # noqa: N802 (Qt name)
        super().mouseReleaseEvent(event)
        if event.button() != Qt.MouseButton.LeftButton or self.textCursor().hasSelection():
            return
        record = self.citation_at(event.position().toPoint())
        if record is not None:
            self.citation_clicked.emit(record)




_SOURCE_COMMENT = re.compile(r"<!--\s*src:\s*(\d{4}-\d{2}-\d{2})#(\d+)\s*-->")
_ANY_COMMENT = re.compile(r"<!--.*?-->", re.S)


def preview_markdown(body: str) -> str:
    """The body for the reading view: each entry ends in a link to its line in the editor
    (entry:N), citations (also `<!-- src: ... -->`) become links (record:DAY#N), other HTML
    comments are left out, empty sections get their hint."""
    body = "\n".join(f"{line} [✎](entry:{number})" if E.is_entry(line) else line
                     for number, line in enumerate(body.splitlines(), start=1))
    body = _ANY_COMMENT.sub("", _SOURCE_COMMENT.sub(lambda m: f"({m.group(1)}#{m.group(2)})", body))
    language = file_language(h.title for h in headings(body))
    lines = body.splitlines()
    for head in reversed(empty_sections(body)):
        text = hint(head.title, language)
        if text:
            lines.insert(head.line + 1, f"\n*{text}*\n")
    linked = "\n".join(lines)
    return E.CITED.sub(lambda m: f"([{m.group(1)}#{m.group(2)}](record:{m.group(1)}#{m.group(2)}))", linked)
