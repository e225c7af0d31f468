"""Fenced code in a reply: cut from the Markdown around it, highlighted with Pygments, shown in a
monospace block with a background and a Copy button; long lines scroll inside the block."""

from __future__ import annotations

import html
import re
from dataclasses import dataclass

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFont, QFontDatabase, QGuiApplication, QPalette, QResizeEvent, QTextCursor
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QTextEdit, QToolButton, QVBoxLayout, QWidget

from companion.ui.render import RichView

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})[ \t]*([^\s`{]*)[^\n]*$")
HIGHLIGHT_LIMIT = 40_000  # longer code is shown plain (highlighting it on every streamed token would lag)
LIGHT_STYLE, DARK_STYLE = "default", "monokai"


@dataclass(frozen=True)
class Segment:
    """A run of a reply: Markdown (one block, up to a blank line) or one fenced code block."""

    kind: str  # "markdown" or "code"
    text: str
    language: str = ""
    closed: bool = True  # False for a code block still streaming in


def segments(text: str) -> list[Segment]:
    """Cut a reply into Markdown blocks and fenced code blocks, in order."""
    out: list[Segment] = []
    lines = text.split("\n")
    prose: list[str] = []

    def flush() -> None:
        block: list[str] = []
        for line in [*prose, ""]:
            if line.strip():
                block.append(line)
            elif block:
                out.append(Segment("markdown", "\n".join(block)))
                block = []
        prose.clear()

    index = 0
    while index < len(lines):
        opening = _FENCE.match(lines[index])
        if opening is None:
            prose.append(lines[index])
            index += 1
            continue
        flush()
        fence = opening.group(1)
        closing = re.compile(rf"^ {{0,3}}{re.escape(fence[0])}{{{len(fence)},}}[ \t]*$")
        body: list[str] = []
        index += 1
        closed = False
        while index < len(lines):
            if closing.match(lines[index]):
                closed = True
                index += 1
                break
            body.append(lines[index])
            index += 1
        out.append(Segment("code", "\n".join(body), opening.group(2).lower(), closed))
    flush()
    return out


def _style_name(dark: bool) -> str:
    return DARK_STYLE if dark else LIGHT_STYLE


def _colours(dark: bool) -> tuple[str, str]:
    """Background and text colour of a code block (the Pygments styles' own backgrounds)."""
    return ("#272822", "#f8f8f2") if dark else ("#f8f8f8", "#1a1a1a")


def plain_html(code: str, dark: bool = False) -> tuple[str, str, str]:
    """(HTML, background colour, text colour) of `code` without colours, Pygments not needed."""
    background, foreground = _colours(dark)
    return f'<pre style="margin:0; color:{foreground}">{html.escape(code)}</pre>', background, foreground


def highlight_html(code: str, language: str, dark: bool = False) -> tuple[str, str, str]:
    """(HTML, background colour, text colour) of `code`: Pygments spans with inline styles, all text escaped."""
    if len(code) > HIGHLIGHT_LIMIT:
        return plain_html(code, dark)
    from pygments import highlight
    from pygments.formatters import HtmlFormatter
    from pygments.lexers import TextLexer, get_lexer_by_name
    from pygments.styles import get_style_by_name
    from pygments.util import ClassNotFound

    style = get_style_by_name(_style_name(dark))
    fallback, foreground = _colours(dark)
    background = style.background_color or fallback
    try:
        lexer = get_lexer_by_name(language) if language else TextLexer()
    except ClassNotFound:
        lexer = TextLexer()
    formatter = HtmlFormatter(noclasses=True, nowrap=True, style=style)
    body = highlight(code, lexer, formatter).rstrip("\n")
    return f'<pre style="margin:0; color:{foreground}">{body}</pre>', background, foreground


def warm_highlighter(languages: set[str]) -> None:
    """Import Pygments and compile the rules of `languages` and of both styles (slow the first time;
    pure Python, so a background thread may do it while the window is already up)."""
    from pygments.formatters import HtmlFormatter  # noqa: F401 (imported for its cost)
    from pygments.lexers import get_lexer_by_name
    from pygments.styles import get_style_by_name
    from pygments.util import ClassNotFound

    for name in (LIGHT_STYLE, DARK_STYLE):
        get_style_by_name(name)
    for language in sorted(languages):
        try:
            get_lexer_by_name(language)  # a lexer's rules compile when the first one is made
        except ClassNotFound:
            continue
    highlight_html("x = 1", "")


class _CodeView(RichView):
    """No wrapping; as tall as its lines (plus the horizontal scroll bar when a line is too long)."""

    def __init__(self) -> None:
        super().__init__()
        self.setObjectName("codeView")
        self.setLineWrapMode(QTextEdit.LineWrapMode.NoWrap)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse
                                     | Qt.TextInteractionFlag.TextSelectableByKeyboard)
        font = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        font.setStyleHint(QFont.StyleHint.Monospace)
        self.setFont(font)
        self.document().setDocumentMargin(8)

    def fit(self) -> None:
        """Height from the lines themselves (the document may not be laid out yet)."""
        text = self.toPlainText()
        lines = text.split("\n") if text else [""]
        metrics = self.fontMetrics()
        margin = 2 * int(self.document().documentMargin()) + 2 * self.frameWidth()
        height = len(lines) * metrics.lineSpacing() + margin + 2
        widest = max(metrics.horizontalAdvance(line) for line in lines) + margin
        if widest > self.viewport().width():
            height += self.horizontalScrollBar().sizeHint().height()
        if self.height() != height:
            self.setFixedHeight(height)

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 (Qt name)
        super().resizeEvent(event)
        self.fit()


class CodeBlock(QFrame):
    """One fenced code block: the language, a Copy button, the highlighted code.

    colour_later=True: shown plain until `colour()` (the app's first frame does not wait for Pygments)."""

    copied = Signal(str)

    def __init__(self, code: str = "", language: str = "", parent: QWidget | None = None, *,
                 colour_later: bool = False) -> None:
        super().__init__(parent)
        self.setObjectName("codeBlock")
        self._code = ""
        self._language = ""
        self.coloured = False
        self._colour_later = colour_later
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        header = QHBoxLayout()
        header.setContentsMargins(8, 2, 4, 0)
        self.language_label = QLabel()
        self.language_label.setObjectName("codeLanguage")
        self.language_label.setTextFormat(Qt.TextFormat.PlainText)
        self.copy_button = QToolButton()
        self.copy_button.setObjectName("copyCode")
        self.copy_button.setText(self.tr("Copy"))
        self.copy_button.setToolTip(self.tr("Copy this code"))
        self.copy_button.setAutoRaise(True)
        self.copy_button.setCursor(Qt.CursorShape.PointingHandCursor)
        self.copy_button.clicked.connect(self.copy)
        header.addWidget(self.language_label)
        header.addStretch(1)
        header.addWidget(self.copy_button)
        layout.addLayout(header)
        self.view = _CodeView()
        layout.addWidget(self.view)
        self.set_code(code, language)

    def code(self) -> str:
        return self._code

    def language(self) -> str:
        return self._language

    def set_code(self, code: str, language: str = "") -> None:
        if code == self._code and language == self._language and self.view.document().characterCount() > 1:
            return
        self._code, self._language = code, language
        self.language_label.setText(language or self.tr("code"))
        dark = self.palette().color(QPalette.ColorRole.Window).lightness() < 128
        self.coloured = not self._colour_later
        markup, background, foreground = highlight_html(code, language, dark) if self.coloured else plain_html(code, dark)
        self.setStyleSheet(f"#codeBlock {{ background: {background}; border-radius: 6px; }}"
                           f"#codeBlock QLabel {{ color: {foreground}; }}"
                           f"#codeBlock QToolButton {{ color: {foreground}; }}"
                           f"#codeView {{ background: {background}; color: {foreground}; }}")
        self.view.set_html(markup)
        self.view.moveCursor(QTextCursor.MoveOperation.Start)  # from the first line and column
        self.view.fit()

    def colour(self) -> None:
        """Highlight a block shown plain so far (and everything it shows from now on)."""
        self._colour_later = False
        if not self.coloured:
            code, self._code = self._code, ""
            self.set_code(code, self._language)

    def copy(self) -> None:
        QGuiApplication.clipboard().setText(self._code)
        self.copied.emit(self._code)
