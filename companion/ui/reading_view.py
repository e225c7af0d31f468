"""The reading view of a memory file, beside its editor: rendered, each entry leading to its line and each
citation to its day log (through the one link handler), kept in step with the text as it is edited."""

from __future__ import annotations

from PySide6.QtWidgets import QWidget

from companion.ui.markdown_edit import preview_markdown
from companion.ui.render import RichView

ENTRY_SCHEME = "entry:"


class ReadingView(RichView):
    """`show_body` renders a file's body keeping the place the reader is at; `follow` brings the entry
    of a body line into view (the line being edited or the first one the editor shows)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("memoryPreview")
        self._entries: list[tuple[int, int]] = []  # (body line, top of its block in the document), in order
        self.body = ""

    def show_body(self, body: str) -> None:
        if body == self.body and self._entries:
            return
        self.body = body
        bar = self.verticalScrollBar()
        where = bar.value()
        self.set_markdown(preview_markdown(body))
        self._entries = []
        bar.setValue(where)

    def entry_lines(self) -> list[int]:
        """The body lines of the entries shown, in order."""
        return [line for line, _top in self._positions()]

    def _positions(self) -> list[tuple[int, int]]:
        """Found once per text (the layout is ready only once the view has a width)."""
        if self._entries:
            return self._entries
        document = self.document()
        layout = document.documentLayout()
        found: list[tuple[int, int]] = []
        block = document.begin()
        while block.isValid():
            it = block.begin()
            while not it.atEnd():
                href = it.fragment().charFormat().anchorHref()
                if href.startswith(ENTRY_SCHEME) and href[len(ENTRY_SCHEME):].isdigit():
                    found.append((int(href[len(ENTRY_SCHEME):]), int(layout.blockBoundingRect(block).top())))
                    break
                it += 1
            block = block.next()
        self._entries = found
        return found

    def follow(self, line: int) -> None:
        """Scroll so the entry at body line `line` (or the last one before it) is in view."""
        positions = self._positions()
        before = [top for entry, top in positions if entry <= line]
        if not before:
            top = 0
        else:
            top = before[-1]
        bar = self.verticalScrollBar()
        height = self.viewport().height()
        if not bar.value() <= top <= bar.value() + height - 2 * self.fontMetrics().height():
            bar.setValue(max(0, top - height // 3))

    def resizeEvent(self, event: object) -> None:  # noqa: N802 (Qt name)
        super().resizeEvent(event)  # type: ignore[arg-type]
        self._entries = []  # the text wraps anew
