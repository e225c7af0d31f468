"""Markdown highlighting for the memory editor: frontmatter, headings, lists, comments, citations (as links)."""

from __future__ import annotations

import re

from PySide6.QtGui import QColor, QFont, QPalette, QSyntaxHighlighter, QTextCharFormat, QTextDocument
from PySide6.QtWidgets import QApplication

from companion.memory import entries as E

_IN_FRONT = 1
_AFTER_FRONT = 2
_HEADING = re.compile(r"^#{1,6}\s.*$")
COMMENT = re.compile(r"<!--.*?-->")


def _format(color: QColor, bold: bool = False, italic: bool = False) -> QTextCharFormat:
    fmt = QTextCharFormat()
    fmt.setForeground(color)
    if bold:
        fmt.setFontWeight(QFont.Weight.Bold)
    fmt.setFontItalic(italic)
    return fmt


class MarkdownHighlighter(QSyntaxHighlighter):
    def __init__(self, document: QTextDocument) -> None:
        super().__init__(document)
        dark = QApplication.palette().color(QPalette.ColorRole.Base).lightness() < 128
        self.front = _format(QColor("#8fa1b3" if dark else "#6a737d"), italic=True)
        self.heading = _format(QColor("#7cb7ff" if dark else "#1f5fbf"), bold=True)
        self.bullet = _format(QColor("#e0a458" if dark else "#b05a00"), bold=True)
        self.comment = _format(QColor("#7f8c8d" if dark else "#8a8a8a"), italic=True)
        self.cite = _format(QColor("#8fbf7f" if dark else "#3c7a2e"))
        self.cite.setFontUnderline(True)  # citations open the day log when clicked

    def highlightBlock(self, text: str) -> None:
        previous = self.previousBlockState()
        first = self.currentBlock().blockNumber() == 0
        if first and text.rstrip() == "---":
            self.setFormat(0, len(text), self.front)
            self.setCurrentBlockState(_IN_FRONT)
            return
        if previous == _IN_FRONT:
            self.setFormat(0, len(text), self.front)
            closing = text.rstrip() in ("---", "...")
            self.setCurrentBlockState(_AFTER_FRONT if closing else _IN_FRONT)
            return
        self.setCurrentBlockState(_AFTER_FRONT)
        if _HEADING.match(text):
            self.setFormat(0, len(text), self.heading)
        bullet = E.BULLET.match(text)
        if bullet:
            self.setFormat(0, bullet.end(), self.bullet)
        comments = [(m.start(), m.end()) for m in COMMENT.finditer(text)]
        for start, end in comments:
            self.setFormat(start, end - start, self.comment)
        for match in E.CITED.finditer(text):
            if not any(s <= match.start() < e for s, e in comments):
                self.setFormat(match.start(), match.end() - match.start(), self.cite)
