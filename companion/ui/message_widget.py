"""One message in the timeline: who, when, the text (Markdown for replies), copy."""

from __future__ import annotations

from datetime import datetime

from typing import Callable

from PySide6.QtCore import QCoreApplication, Qt, Signal
from PySide6.QtGui import QAction, QGuiApplication
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QMenu, QSizePolicy, QToolButton, QVBoxLayout, QWidget

from companion.memory.records import Record
from companion.ui.code_block import CodeBlock, Segment, segments
from companion.ui.links import open_link
from companion.ui.render import citation_link, escape, markdown_html


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


def _is_record_id(text: str) -> bool:
    day, sep, seq = text.partition("#")
    return bool(sep) and len(day) == 10 and day[4] == "-" and seq.isdigit()


def recalled_text(count: int) -> str:
    """"Recalled 1 memory" / "Recalled 3 memories" (Chinese has one form for both)."""
    if count == 1:
        return QCoreApplication.translate("MessageWidget", "Recalled 1 memory")
    return QCoreApplication.translate("MessageWidget", "Recalled %n memories", "", count).replace("%n", str(count))


class MessageWidget(QFrame):
    """A card; `role` is user, assistant, tool or event (the last two are shown small)."""

    copied = Signal(str)
    citation_clicked = Signal(str)  # a record id, from a link in the text or the recalled list
    version_chosen = Signal(str)  # the record id of the reply version now shown
    delete_requested = Signal(str)  # record id
    edit_requested = Signal(str)  # record id (the user's last message)

    def __init__(self, role: str, text: str = "", when: datetime | None = None, record_id: str = "",
                 parent: QWidget | None = None, *, code_colours_later: bool = False) -> None:
        super().__init__(parent)
        self.role = role
        self._code_colours_later = code_colours_later  # its code blocks are coloured once first painted
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
        self.when = QLabel(f"{when.hour:02d}:{when.minute:02d}" if when else "")
        self.when.setObjectName("when")
        self.note = QLabel("")
        self.note.setObjectName("note")
        self.note.hide()
        header.addWidget(self.who)
        header.addWidget(self.when)
        header.addWidget(self.note)
        header.addStretch(1)
        self._header = header
        self._tail = QHBoxLayout()  # Copy, Edit, ⋯: made when first needed (hover), a year of cards stays light
        self._tail.setSpacing(2)
        header.addLayout(self._tail)
        self._actions: dict[str, QToolButton] = {}
        self._editable = False
        layout.addLayout(header)
        self._blocks = QVBoxLayout()
        self._blocks.setSpacing(4)
        layout.addLayout(self._blocks)
        self._parts: list[tuple[Segment, QWidget]] = []  # a reply's rendered blocks, in order
        self._thinking = False
        self.body = self._label()  # the text (a reply: shown only while it is empty)
        self._blocks.addWidget(self.body)
        self.versions: list[tuple[str, str]] = []  # (record id, text) of each version of a regenerated reply
        self.version_index = 0
        self._version_row: QWidget | None = None
        if role in ("tool", "event"):
            self.who.hide()
        if not self._has_actions():  # a notice: its text and its buttons (Undo, Apply) on one row
            self._blocks.removeWidget(self.body)
            header.insertWidget(0, self.body, 10)
        self._render()

    # -- the header's buttons, made on first use ---------------------------------------

    def _has_actions(self) -> bool:
        return self.role in ("user", "assistant")

    def _build_actions(self) -> None:
        if self._actions:
            return
        copy = self._tool_button("copy", self.tr("Copy"), self.tr("Copy this message"), self.copy)
        edit = self._tool_button("edit", self.tr("Edit"), self.tr("Edit this message and send it again (its reply "
                                                                  "is replaced)"),
                                 lambda: self.edit_requested.emit(self.record_id))
        more = self._tool_button("more", "⋯", self.tr("More"), None)
        more.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        menu = QMenu(more)
        self._delete_action = menu.addAction(self.tr("Delete message"))
        self._delete_action.setToolTip(self.tr("Take this message back: it leaves the conversation and is not "
                                               "learned from"))
        self._delete_action.triggered.connect(lambda _checked=False: self.delete_requested.emit(self.record_id))
        more.setMenu(menu)
        self._actions = {"copy": copy, "edit": edit, "more": more}
        copy.setVisible(self._has_actions())
        self._update_actions()

    def _tool_button(self, name: str, text: str, tip: str, slot: Callable[[], None] | None) -> QToolButton:
        button = QToolButton()
        button.setObjectName(name)
        button.setText(text)
        button.setToolTip(tip)
        button.setAutoRaise(True)
        button.setCursor(Qt.CursorShape.PointingHandCursor)
        if slot is not None:
            button.clicked.connect(lambda _checked=False: slot())
        self._tail.addWidget(button)
        return button

    def _update_actions(self) -> None:
        if self._actions:
            self._actions["edit"].setVisible(self._editable and self.role == "user" and bool(self.record_id))
            self._actions["more"].setVisible(bool(self.record_id) and self._has_actions())

    def enterEvent(self, event: object) -> None:  # noqa: N802 (Qt name)
        if self._has_actions():
            self._build_actions()
        super().enterEvent(event)  # type: ignore[arg-type]

    @property
    def copy_button(self) -> QToolButton:
        self._build_actions()
        return self._actions["copy"]

    @property
    def edit_button(self) -> QToolButton:
        self._build_actions()
        return self._actions["edit"]

    @property
    def more_button(self) -> QToolButton:
        self._build_actions()
        return self._actions["more"]

    @property
    def delete_action(self) -> QAction:
        self._build_actions()
        return self._delete_action

    def _label(self) -> QLabel:
        label = _Label()
        label.setObjectName("body")
        label.setWordWrap(True)
        label.setTextInteractionFlags(Qt.TextInteractionFlag.TextBrowserInteraction)
        label.setOpenExternalLinks(False)  # links open only through open_link: http(s), after showing the URL
        label.linkActivated.connect(self._link)
        label.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Minimum)
        # a reply's Markdown arrives as HTML from the renderer (nothing to load); everything else is plain text
        label.setTextFormat(Qt.TextFormat.RichText if self.role == "assistant" else Qt.TextFormat.PlainText)
        return label

    def _link(self, url: str) -> None:
        open_link(self, url, on_record=self.citation_clicked.emit)

    def _who_text(self, role: str) -> str:
        return {"user": self.tr("You"), "assistant": self.tr("Companion")}.get(role, "")

    @classmethod
    def from_record(cls, record: Record, *, code_colours_later: bool = False) -> "MessageWidget":
        text = record.text
        if record.role == "tool":
            tool = record.extra.get("tool") or {}
            name = tool.get("name", "") if isinstance(tool, dict) else ""
            text = f"{name}: {record.text}" if name else record.text
        try:
            when = record.timestamp
        except ValueError:
            when = None
        widget = cls(record.role, text, when, record.id, code_colours_later=code_colours_later)
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
        self._text = text
        self._render()

    def set_thinking(self, on: bool) -> None:
        """"thinking…" in an empty reply until its first words arrive."""
        if on != self._thinking:
            self._thinking = on
            self._render()

    def parts(self) -> list[Segment]:
        """The blocks a reply is shown in (Markdown and code), in order."""
        return [segment for segment, _w in self._parts]

    def part_widgets(self) -> list[QWidget]:
        return [widget for _s, widget in self._parts]

    def code_blocks(self) -> list[CodeBlock]:
        return [w for _s, w in self._parts if isinstance(w, CodeBlock)]

    def colour_code(self) -> None:
        """Highlight the code blocks shown plain so far (and those that stream in later)."""
        self._code_colours_later = False
        for block in self.code_blocks():
            block.colour()

    def _render(self) -> None:
        if self.role != "assistant":
            shown = self._text
            if self.role in ("tool", "event") and len(shown) > 300:
                shown = shown[:300] + "…"
            self.body.setText(shown)
            return
        # Only the blocks that changed are rendered again: a streamed reply re-renders its last block.
        parts = segments(self._text)
        for index, segment in enumerate(parts):
            if index < len(self._parts):
                old, widget = self._parts[index]
                if old == segment:
                    continue
                if old.kind == segment.kind:
                    self._fill(widget, segment)
                    self._parts[index] = (segment, widget)
                    continue
                widget.hide()
                widget.deleteLater()
                self._parts[index] = (segment, self._new_part(segment, index))
            else:
                self._parts.append((segment, self._new_part(segment, index)))
        for _segment, widget in self._parts[len(parts):]:
            widget.hide()
            widget.deleteLater()
        del self._parts[len(parts):]
        empty = not self._parts
        if empty:
            self.body.setText("<i>" + escape(self.tr("thinking…")) + "</i>" if self._thinking else "…")
        self.body.setProperty("thinking", self._thinking and empty)
        self.body.setVisible(empty)

    def _new_part(self, segment: Segment, index: int) -> QWidget:
        widget: QWidget
        if segment.kind == "code":
            widget = CodeBlock(segment.text, segment.language, colour_later=self._code_colours_later)
            widget.copied.connect(self.copied)
        else:
            widget = self._label()
            self._fill(widget, segment)
        self._blocks.insertWidget(index, widget)
        return widget

    @staticmethod
    def _fill(widget: QWidget, segment: Segment) -> None:
        if isinstance(widget, CodeBlock):
            widget.set_code(segment.text, segment.language)
        elif isinstance(widget, QLabel):
            widget.setText(markdown_html(segment.text))

    # -- versions, edit, delete ----------------------------------------------------

    def set_record_id(self, record_id: str) -> None:
        self.record_id = record_id
        self._update_actions()

    def set_editable(self, on: bool) -> None:
        """The Edit button, on the user's last message only (shown at once: it is the one to reach for)."""
        self._editable = on
        if on and self.role == "user" and self.record_id:
            self._build_actions()
        self._update_actions()

    def set_versions(self, versions: list[tuple[str, str]], index: int) -> None:
        """Show version `index` of a regenerated reply, with ‹ i/n › to flip between them."""
        self.versions = list(versions)
        self.version_index = max(0, min(index, len(versions) - 1))
        if len(self.versions) > 1 and self._version_row is None:
            row = QWidget()
            line = QHBoxLayout(row)
            line.setContentsMargins(0, 0, 0, 0)
            line.setSpacing(0)
            self.previous_version = QToolButton()
            self.previous_version.setText("‹")
            self.previous_version.setToolTip(self.tr("Earlier version of this reply"))
            self.previous_version.setAutoRaise(True)
            self.previous_version.clicked.connect(lambda: self.show_version(self.version_index - 1))
            self.version_label = QLabel()
            self.version_label.setObjectName("versionLabel")
            self.next_version = QToolButton()
            self.next_version.setText("›")
            self.next_version.setToolTip(self.tr("Later version of this reply"))
            self.next_version.setAutoRaise(True)
            self.next_version.clicked.connect(lambda: self.show_version(self.version_index + 1))
            for widget in (self.previous_version, self.version_label, self.next_version):
                line.addWidget(widget)
            self._header.insertWidget(3, row)
            self._version_row = row
        if self._version_row is not None:
            self._version_row.setVisible(len(self.versions) > 1)
        if self.versions:
            self._show_current_version()

    def show_version(self, index: int) -> None:
        """Flip to another version; the one shown is the one that counts from now on."""
        if not 0 <= index < len(self.versions) or index == self.version_index:
            return
        self.version_index = index
        self._show_current_version()
        self.version_chosen.emit(self.record_id)

    def _show_current_version(self) -> None:
        record_id, text = self.versions[self.version_index]
        self.record_id = record_id
        if text != self._text:
            self.set_text(text)
        if self._version_row is not None:
            self.version_label.setText(f"{self.version_index + 1}/{len(self.versions)}")
            self.previous_version.setEnabled(self.version_index > 0)
            self.next_version.setEnabled(self.version_index < len(self.versions) - 1)

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
            place = citation_link(str(where)) if _is_record_id(str(where)) else escape(str(where))
            head = " · ".join(p for p in (escape(str(date)) if date else "", place) if p)
            lines.append(head + (": " + escape(snippet) if snippet else ""))
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
            self.recalled_list.setTextFormat(Qt.TextFormat.RichText)  # built here: every part escaped
            self.recalled_list.setOpenExternalLinks(False)
            self.recalled_list.linkActivated.connect(self._link)
            self.recalled_list.setTextInteractionFlags(Qt.TextInteractionFlag.TextBrowserInteraction)
            self.recalled_list.hide()
            self.recalled_button.toggled.connect(self._toggle_recalled)
            self.layout().addWidget(self.recalled_button)
            self.layout().addWidget(self.recalled_list)
        self.recalled_button.setText(recalled_text(len(hits)))
        self.recalled_list.setText("<br>".join(f"• {line}" for line in lines))

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
        self._header.insertWidget(self._header.count() - 1, button)  # before Copy, Edit, ⋯
        return button

    def set_note(self, note: str) -> None:
        self.note.setText(note)
        self.note.setVisible(bool(note))

    def set_found(self, found: bool) -> None:
        self.setProperty("found", found)
        self._repolish()

    def _repolish(self) -> None:
        self.style().unpolish(self)
        self.style().polish(self)

    def copy(self) -> None:
        QGuiApplication.clipboard().setText(self._text)
        self.copied.emit(self._text)
