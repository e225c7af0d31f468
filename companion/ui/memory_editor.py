"""Edit one long-term file: the body up front, frontmatter folded away, its reading view beside it, save by
compare-and-swap."""

from __future__ import annotations

import re

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QFont, QFontDatabase, QResizeEvent, QTextCursor
from PySide6.QtWidgets import (
    QButtonGroup,
    QFrame,
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from companion.curate.gate import MemoryWriter, Refused
from companion.curate.policy import Actor, Decision
from companion.errors import CompanionError, ConflictError, FrontmatterError
from companion.memory.document import content_hash, split_frontmatter
from companion.memory.longterm import LongTermStore
from companion.ui.diff_view import DiffDialog
from companion.ui.markdown_edit import MarkdownEdit
from companion.ui.memory_notices import policy_reason
from companion.ui.reading_view import ReadingView

EDIT, BOTH, READ = "edit", "both", "read"  # what the pane shows: the text, the text and its reading view, the view
VIEWS = (EDIT, BOTH, READ)
RENDER_MS = 150  # the reading view follows typing after this pause
SIDE_BY_SIDE_MIN = 540  # a narrower pane shows the reading view below the text instead of beside it

_OPEN = re.compile(r"\A---[ \t]*\n")
_CLOSE = re.compile(r"^(?:---|\.\.\.)[ \t]*(?:\n|\Z)", re.MULTILINE)


def split_for_editing(text: str) -> tuple[str, str, str, str]:
    """(opening delimiter, YAML, closing delimiter, body) such that their concatenation is `text`.

    Text without a (closed) frontmatter block is all body, so nothing is ever lost or moved."""
    opening = _OPEN.match(text)
    closing = _CLOSE.search(text, opening.end()) if opening else None
    if opening is None or closing is None:
        return "", "", "", text
    return text[: opening.end()], text[opening.end() : closing.start()], text[closing.start() : closing.end()], text[closing.end() :]


class Banner(QFrame):
    """A strip above the editor: a message and a few buttons."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("banner")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(8, 4, 8, 4)
        self.label = QLabel()
        self.label.setTextFormat(Qt.TextFormat.PlainText)  # messages quote file contents and errors
        self.label.setWordWrap(True)
        layout.addWidget(self.label, 1)
        self._buttons = QHBoxLayout()
        layout.addLayout(self._buttons)
        self.hide()

    def show_message(self, kind: str, text: str, buttons: list[QPushButton] = ()) -> None:  # type: ignore[assignment]
        self.setProperty("kind", kind)
        self.style().unpolish(self)
        self.style().polish(self)
        self.label.setText(text)
        while self._buttons.count():
            item = self._buttons.takeAt(0)
            if item.widget():
                item.widget().deleteLater()
        for button in buttons:
            self._buttons.addWidget(button)
        self.show()


class MemoryEditor(QWidget):
    """Holds the text the file had when loaded (`base`) so saving can refuse unseen changes."""

    dirty_changed = Signal(bool)
    saved = Signal(str)
    history_requested = Signal(str)
    citation_clicked = Signal(str)  # a record id such as 2026-11-29#17
    view_chosen = Signal(str)  # the user picked EDIT, BOTH or READ

    def __init__(self, store: LongTermStore, name: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.store = store
        self.writer = MemoryWriter(store)
        self.name = name
        self.base = ""
        self.base_sha = content_hash("")
        self.conflict = False
        self._dirty = False
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(4)
        layout.addLayout(self._toolbar())
        self.banner = Banner()
        layout.addWidget(self.banner)
        layout.addWidget(self._front_matter())
        self.split = QSplitter(Qt.Orientation.Horizontal)
        self.split.setObjectName("memorySplit")
        self.split.setChildrenCollapsible(False)
        self.editor = MarkdownEdit()
        self.editor.setObjectName("memoryEditor")
        self.highlighter = self.editor.highlighter
        self.editor.textChanged.connect(self._text_changed)
        self.editor.citation_clicked.connect(self.citation_clicked)
        self.preview = ReadingView()  # citations open the day log; other links go through open_link
        self.preview.record_clicked.connect(self.citation_clicked)
        self.preview.entry_clicked.connect(self.edit_entry)
        self.split.addWidget(self.editor)
        self.split.addWidget(self.preview)
        layout.addWidget(self.split, 1)
        self._render_timer = QTimer(self)
        self._render_timer.setSingleShot(True)
        self._render_timer.setInterval(RENDER_MS)
        self._render_timer.timeout.connect(self._refresh_preview)
        self.editor.textChanged.connect(self._render_timer.start)
        self.editor.cursorPositionChanged.connect(self._follow_cursor)
        self.editor.verticalScrollBar().valueChanged.connect(self._follow_scroll)
        self._view = BOTH
        self.load()
        self.set_view(BOTH)  # the text and, beside it, the file rendered

    def _front_matter(self) -> QWidget:
        """The YAML block (SOUL.md's triggers, schema_version) behind a disclosure, closed by default."""
        box = QWidget()
        column = QVBoxLayout(box)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(2)
        self.front_toggle = QToolButton()
        self.front_toggle.setObjectName("frontToggle")
        self.front_toggle.setText(self.tr("Triggers and settings"))
        self.front_toggle.setToolTip(self.tr("The file's frontmatter (YAML): triggers such as the daily greeting, "
                                             "and settings. Edit with care; saving checks it."))
        self.front_toggle.setCheckable(True)
        self.front_toggle.setAutoRaise(True)
        self.front_toggle.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.front_toggle.setArrowType(Qt.ArrowType.RightArrow)
        self.front_toggle.toggled.connect(self.show_front_matter)
        self.front_edit = QPlainTextEdit()
        self.front_edit.setObjectName("frontEditor")
        font = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        font.setStyleHint(QFont.StyleHint.Monospace)
        self.front_edit.setFont(font)
        self.front_edit.setMaximumHeight(180)
        self.front_edit.hide()
        self.front_edit.textChanged.connect(self._text_changed)
        column.addWidget(self.front_toggle, 0, Qt.AlignmentFlag.AlignLeft)
        column.addWidget(self.front_edit)
        self._delimiters = ("", "")
        return box

    def show_front_matter(self, on: bool) -> None:
        self.front_edit.setVisible(on)
        self.front_toggle.setArrowType(Qt.ArrowType.DownArrow if on else Qt.ArrowType.RightArrow)
        if self.front_toggle.isChecked() != on:
            self.front_toggle.setChecked(on)

    def _toolbar(self) -> QHBoxLayout:
        bar = QHBoxLayout()
        self.save_button = QPushButton(self.tr("Save"))
        self.save_button.setToolTip(self.tr("Save (Ctrl+S)"))
        self.save_button.clicked.connect(self.save)
        self.view_group = QButtonGroup(self)
        self.view_buttons: dict[str, QToolButton] = {}
        for view, text, tip in (
            (EDIT, self.tr("Edit"), self.tr("The text only")),
            (BOTH, self.tr("Both"), self.tr("The text and, beside it, the file rendered: entries and citations as links")),
            (READ, self.tr("Read"), self.tr("The file rendered only: entries and citations as links")),
        ):
            button = QToolButton()
            button.setObjectName(f"view_{view}")
            button.setText(text)
            button.setToolTip(tip)
            button.setCheckable(True)
            button.clicked.connect(lambda _checked=False, v=view: self._choose(v))
            self.view_group.addButton(button)
            self.view_buttons[view] = button
        self.history_button = QToolButton()
        self.history_button.setText(self.tr("History…"))
        self.history_button.clicked.connect(lambda: self.history_requested.emit(self.name))
        self.state = QLabel()
        self.state.setObjectName("editorState")
        bar.addWidget(self.save_button)
        for button in self.view_buttons.values():
            bar.addWidget(button)
        bar.addWidget(self.history_button)
        bar.addStretch(1)
        bar.addWidget(self.state)
        return bar

    # -- state -----------------------------------------------------------------

    def text(self) -> str:
        """The whole file as edited: frontmatter (exactly as loaded unless edited) + body."""
        yaml, body = self.front_edit.toPlainText(), self.editor.toPlainText()
        opening, closing = self._delimiters
        if not opening and not yaml.strip():
            return body
        if yaml and not yaml.endswith("\n"):
            yaml += "\n"
        return (opening or "---\n") + yaml + (closing or "---\n") + body

    def set_text(self, text: str) -> None:
        """Show `text` (a whole file): the frontmatter goes to the folded box, the rest to the editor."""
        opening, yaml, closing, body = split_for_editing(text)
        self._delimiters = (opening, closing)
        self.front_edit.blockSignals(True)  # one textChanged for the pair, from the body
        self.front_edit.setPlainText(yaml)
        self.front_edit.blockSignals(False)
        self.editor.setPlainText(body)
        self._text_changed()

    def front_lines(self) -> int:
        """How many file lines come before the body."""
        opening, closing = self._delimiters
        return (opening + self.front_edit.toPlainText() + closing).count("\n") if opening else 0

    def is_dirty(self) -> bool:
        return self._dirty

    def _text_changed(self) -> None:
        dirty = self.text() != self.base
        if dirty != self._dirty:
            self._dirty = dirty
            self.dirty_changed.emit(dirty)
        self.state.setText(self.tr("Unsaved changes") if dirty else "")

    def _disk(self) -> str:
        return self.store.read_raw(self.name).replace("\r\n", "\n")

    def load(self) -> None:
        """Replace the editor's text with the file on disk (keeps the cursor line)."""
        raw = self.store.read_raw(self.name)
        line = self.editor.textCursor().blockNumber()
        self.base = raw.replace("\r\n", "\n")
        self.base_sha = content_hash(raw)
        self.conflict = False
        self.set_text(self.base)
        self._goto_line(line + 1 + self.front_lines(), scroll=False)
        self.banner.hide()
        self._refresh_preview()

    # -- saving ----------------------------------------------------------------

    def confirm_refused(self, decision: Decision) -> bool:
        """The write policy would not store this text (a secret, an instruction to the assistant, a
        repeat): the user's own edit, so the user decides. True: save anyway."""
        box = QMessageBox(QMessageBox.Icon.Warning, self.tr("Save this text?"),
                          self.tr("Companion would not store this itself: %1.").replace("%1", policy_reason(decision.reason)),
                          QMessageBox.StandardButton.Cancel, self)
        box.setObjectName("refusedSaveDialog")
        box.setInformativeText(self.tr("Everything in %1 goes into every prompt of the model. "
                                       "Save it anyway, or go back and change it?").replace("%1", self.name))
        anyway = box.addButton(self.tr("Save anyway"), QMessageBox.ButtonRole.AcceptRole)
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        box.exec()
        return box.clickedButton() is anyway

    def save(self) -> bool:
        """Write if the file still has what we loaded; otherwise show the conflict banner. Text the
        write policy refuses is saved only after the user confirms it."""
        text = self.text()
        try:
            try:
                self.writer.write(self.name, text, actor=Actor.EDITOR, expected_sha=self.base_sha)
            except Refused as refused:
                if not self.confirm_refused(refused.decision):
                    self.banner.show_message("conflict", self.tr("Not saved: %1.").replace("%1", policy_reason(refused.decision.reason)))
                    return False
                self.writer.write(self.name, text, actor=Actor.EDITOR, expected_sha=self.base_sha, confirmed=True)
        except FrontmatterError as exc:
            self.banner.show_message("error", self.tr("Not saved: %1").replace("%1", str(exc)))
            if exc.line:
                self._goto_line(exc.line)
            return False
        except ConflictError:
            self.show_conflict()
            return False
        except CompanionError as exc:
            self.banner.show_message("error", self.tr("Not saved: %1").replace("%1", str(exc)))
            return False
        self.base = text
        self.base_sha = content_hash(text)
        self.conflict = False
        self.banner.hide()
        self._text_changed()
        self.state.setText(self.tr("Saved"))
        self._refresh_preview()
        self.saved.emit(self.name)
        return True

    # -- changes on disk -------------------------------------------------------

    def check_disk(self) -> None:
        """Called when the file may have changed: reload silently, or offer choices if edited here."""
        try:
            raw = self.store.read_raw(self.name)
        except CompanionError:
            return
        if content_hash(raw) == self.base_sha:
            return
        if not self.is_dirty():
            self.load()
            self.state.setText(self.tr("Reloaded (changed on disk)"))
            return
        if raw.replace("\r\n", "\n") == self.text():  # someone saved exactly what we have
            self.base = self.text()
            self.base_sha = content_hash(raw)
            self._text_changed()
            return
        self.show_conflict()

    def show_conflict(self) -> None:
        self.conflict = True
        reload_button = QPushButton(self.tr("Reload"))
        reload_button.setToolTip(self.tr("Discard your edits and show the file as it is now"))
        reload_button.clicked.connect(self.load)
        keep = QPushButton(self.tr("Keep mine"))
        keep.setToolTip(self.tr("Keep your edits; saving replaces the other change (it stays in History)"))
        keep.clicked.connect(self.keep_mine)
        compare = QPushButton(self.tr("Compare"))
        compare.clicked.connect(self.compare)
        self.banner.show_message(
            "conflict",
            self.tr("%1 changed on disk while you were editing it (a memory tool, the sleep job or "
                    "another editor).").replace("%1", self.name),
            [reload_button, keep, compare],
        )

    def keep_mine(self) -> None:
        """Accept that saving replaces the version on disk (a snapshot keeps it)."""
        raw = self.store.read_raw(self.name)
        self.base_sha = content_hash(raw)
        self.base = raw.replace("\r\n", "\n")
        self.conflict = False
        self.banner.hide()
        self._text_changed()

    def compare(self) -> None:
        DiffDialog(self.tr("%1: on disk vs. your edits").replace("%1", self.name), self._disk(), self.text(),
                   self.tr("on disk"), self.tr("your edits"), self).exec()

    # -- view --------------------------------------------------------------------

    def view(self) -> str:
        return self._view

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 (Qt name)
        super().resizeEvent(event)
        wide = event.size().width() >= SIDE_BY_SIDE_MIN
        orientation = Qt.Orientation.Horizontal if wide else Qt.Orientation.Vertical
        if self.split.orientation() != orientation:
            self.split.setOrientation(orientation)

    def set_view(self, view: str) -> None:
        """Show the text (EDIT), the text and its reading view side by side (BOTH) or the view (READ)."""
        if view not in VIEWS:
            view = BOTH
        self._view = view
        self.editor.setVisible(view != READ)
        self.preview.setVisible(view != EDIT)
        self.view_buttons[view].setChecked(True)
        if view != EDIT:
            self._refresh_preview()

    def _choose(self, view: str) -> None:
        self.set_view(view)
        self.view_chosen.emit(view)

    def edit_entry(self, body_line: int) -> None:
        """An entry's ✎ in the reading view: the editor, on that line (beside the view)."""
        if self._view == READ:
            self._choose(BOTH)
        self._goto_line(self.front_lines() + body_line)

    def _refresh_preview(self) -> None:
        """The reading view shows the text as it is now (not as saved), where the editor is."""
        self._render_timer.stop()
        if self.preview.isHidden():
            return
        try:
            _front, _yaml, body = split_frontmatter(self.text())
        except FrontmatterError:
            body = self.editor.toPlainText()
        self.preview.show_body(body)
        if self._view == BOTH:
            self._follow_cursor()

    def _follow_cursor(self) -> None:
        if self._view == BOTH and self.editor.hasFocus() and not self._render_timer.isActive():
            self.preview.follow(self.editor.textCursor().blockNumber() + 1)

    def _follow_scroll(self) -> None:
        if self._view == BOTH and not self.editor.hasFocus():
            self.preview.follow(self.editor.firstVisibleBlock().blockNumber() + 1)

    def _goto_line(self, line: int, scroll: bool = True) -> None:
        """Put the cursor on file line `line` (1-based), in the frontmatter box or the body."""
        front = self.front_lines()
        if line <= front:
            if scroll:
                self.show_front_matter(True)
            target, line = self.front_edit, line - 1  # the opening '---' is not in the box
        else:
            target, line = self.editor, line - front
        block = target.document().findBlockByNumber(max(0, line - 1))
        if not block.isValid():
            return
        cursor = target.textCursor()
        cursor.setPosition(block.position())
        if scroll:  # an error line: select it so it stands out
            cursor.movePosition(QTextCursor.MoveOperation.EndOfBlock, QTextCursor.MoveMode.KeepAnchor)
        target.setTextCursor(cursor)
        if scroll:
            target.centerCursor()
            target.setFocus()
