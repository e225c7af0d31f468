"""The one renderer of rich text: Markdown and our own HTML into documents that never load a resource.

Every rich-text view (chat, recalled items, memory reading view, journal, history, report) goes
through here. Qt's documents fetch `<img src>`, Markdown images, `background` attributes and
`<link rel=stylesheet>` themselves, from disk or the network; `SafeDocument.loadResource` answers
nothing for every one of them, by construction, and images left in the text are shown as text.
Links are never followed by the widget: every anchor goes to `links.open_link`.
"""

from __future__ import annotations

import html
from PySide6.QtCore import QUrl, Signal
from PySide6.QtGui import QTextCharFormat, QTextCursor, QTextDocument, QTextFormat
from PySide6.QtWidgets import QTextBrowser, QWidget

from companion.ui.links import open_link

IMAGE_TEXT_CHARS = 80  # an image's description shown in its place, cut to this length


class SafeDocument(QTextDocument):
    """A text document that loads nothing: no file, no network address, no Qt resource."""

    def loadResource(self, type: int, name: QUrl) -> object:  # noqa: N802,A002 (Qt names)
        return None


def image_placeholder(name: str, alt: str = "") -> str:
    """What stands in the text where an image was: its description, never its content."""
    shown = (alt or name).strip().replace("\n", " ")
    if len(shown) > IMAGE_TEXT_CHARS:
        shown = shown[:IMAGE_TEXT_CHARS] + "…"
    return f"[image: {shown}]" if shown else "[image]"


def _images_to_text(document: QTextDocument) -> int:
    """Replace every image in `document` by a text placeholder; the number replaced."""
    found: list[tuple[int, int, str, str]] = []
    block = document.begin()
    while block.isValid():
        iterator = block.begin()
        while not iterator.atEnd():
            fragment = iterator.fragment()
            if fragment.isValid() and fragment.charFormat().isImageFormat():
                image = fragment.charFormat().toImageFormat()
                alt = image.property(QTextFormat.Property.ImageAltText) if hasattr(
                    QTextFormat.Property, "ImageAltText") else None
                found.append((fragment.position(), fragment.length(), image.name(), str(alt or "")))
            iterator += 1
        block = block.next()
    cursor = QTextCursor(document)
    for position, length, name, alt in reversed(found):
        cursor.setPosition(position)
        cursor.setPosition(position + length, QTextCursor.MoveMode.KeepAnchor)
        plain = QTextCharFormat()
        plain.setFontItalic(True)
        cursor.insertText(image_placeholder(name, alt), plain)
    return len(found)


MARKDOWN_FEATURES = QTextDocument.MarkdownFeature(
    QTextDocument.MarkdownFeature.MarkdownDialectGitHub.value | QTextDocument.MarkdownFeature.MarkdownNoHTML.value)


def fill_markdown(document: QTextDocument, text: str) -> QTextDocument:
    """`text` as Markdown (GitHub dialect) in `document`: HTML in it is shown as written, never
    interpreted, and Markdown images are shown as text."""
    document.setMarkdown(text, MARKDOWN_FEATURES)
    _images_to_text(document)
    return document


def fill_html(document: QTextDocument, markup: str) -> QTextDocument:
    """HTML that our own code built (untrusted parts escaped) in `document`, images shown as text."""
    document.setHtml(markup)
    _images_to_text(document)
    return document


def markdown_html(text: str) -> str:
    """Markdown as HTML for a rich-text label: parsed in a SafeDocument, images made text first, so
    the HTML the label parses again holds no resource to fetch."""
    document = fill_markdown(SafeDocument(), text)
    return document.toHtml()


def escape(text: str) -> str:
    """Untrusted text for inclusion in HTML we build (line breaks kept)."""
    return html.escape(text).replace("\n", "<br>")


class RichView(QTextBrowser):
    """A read-only rich-text view on a SafeDocument. Clicking a link never follows it here:
    `record:` links (citations) go to `on_record`, everything else to `open_link`."""

    record_clicked = Signal(str)  # a record id such as 2026-11-29#17
    entry_clicked = Signal(int)  # `entry:N` links: line N of the text shown (the memory reading view)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._safe = SafeDocument(self)
        self.setDocument(self._safe)
        self.setOpenLinks(False)
        self.setOpenExternalLinks(False)
        self.anchorClicked.connect(self._clicked)

    def loadResource(self, type: int, name: QUrl) -> object:  # noqa: N802,A002 (Qt names)
        return None

    def set_markdown(self, text: str) -> None:
        self.document().clear()
        fill_markdown(self.document(), text)

    def set_html(self, markup: str) -> None:
        self.document().clear()
        fill_html(self.document(), markup)

    # the plain Qt setters go through the safe path too, so no caller can bypass it
    def setMarkdown(self, text: str, *_args: object) -> None:  # noqa: N802 (Qt name)
        self.set_markdown(text)

    def setHtml(self, markup: str) -> None:  # noqa: N802 (Qt name)
        self.set_html(markup)

    def setSource(self, *_args: object) -> None:  # noqa: N802 (Qt name)
        return  # a view never navigates: its text is set by our code only

    def _clicked(self, url: QUrl) -> None:
        open_link(self, url.toString(), on_record=self.record_clicked.emit, local={"entry": self._entry})

    def _entry(self, url: QUrl) -> None:
        if url.path().isdigit():
            self.entry_clicked.emit(int(url.path()))


def citation_link(day_id: str, label: str | None = None) -> str:
    """An anchor to a day-log record (2026-11-29#17) for HTML we build."""
    return f'<a href="record:{html.escape(day_id, quote=True)}">{html.escape(label or day_id)}</a>'

