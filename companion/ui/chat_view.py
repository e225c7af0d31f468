"""The one continuous timeline: recent days first, earlier days loaded as the user scrolls up."""

from __future__ import annotations

from datetime import date

from PySide6.QtCore import QCoreApplication, QLocale, Qt, QTimer, Signal
from PySide6.QtWidgets import QFrame, QLabel, QScrollArea, QVBoxLayout, QWidget

from companion.memory.daylog import DayLog
from companion.memory.records import Record
from companion.ui.message_widget import MessageWidget

INITIAL_RECORDS = 40  # enough to fill a tall window; the rest loads on scroll
SHOWN_ROLES = ("user", "assistant", "tool", "event")


def shown(record: Record) -> bool:
    """Trigger bookkeeping stays in the log; the timeline shows what was said and what happened."""
    return record.role in SHOWN_ROLES and not (record.role == "event" and "trigger" in record.extra)


class ChatView(QScrollArea):
    """Messages with time, a separator per day; the last reply can stream in."""

    copied = Signal(str)

    def __init__(self, daylog: DayLog, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.daylog = daylog
        self.setObjectName("timeline")
        self.setWidgetResizable(True)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setFrameShape(QFrame.Shape.NoFrame)
        inner = QWidget()
        inner.setObjectName("timelineInner")
        self._layout = QVBoxLayout(inner)
        self._layout.setContentsMargins(12, 8, 12, 8)
        self._layout.setSpacing(6)
        self._layout.addStretch(1)
        self.setWidget(inner)
        self._days: list[date] = []
        self._loaded_from = 0  # index into _days of the earliest day shown
        self._first_day: date | None = None  # earliest day with a widget
        self._last_day: date | None = None  # latest day with a widget (for separators on append)
        self._by_id: dict[str, MessageWidget] = {}
        self._streaming: MessageWidget | None = None
        self._stick_to_bottom = True
        self._keep_from_bottom: int | None = None
        self._find_index = -1
        bar = self.verticalScrollBar()
        bar.valueChanged.connect(self._scrolled)
        bar.rangeChanged.connect(self._range_changed)

    # -- loading -------------------------------------------------------------

    def load_recent(self) -> None:
        """Show the newest days until about INITIAL_RECORDS messages are on screen."""
        self._days = self.daylog.days()
        self._loaded_from = len(self._days)
        shown = 0
        while self._loaded_from > 0 and shown < INITIAL_RECORDS:
            shown += self._prepend_day()

    def has_earlier(self) -> bool:
        return self._loaded_from > 0

    def load_earlier(self) -> int:
        """Prepend the previous day that has messages; keeps the view where the user was."""
        if not self.has_earlier():
            return 0
        bar = self.verticalScrollBar()
        self._keep_from_bottom = bar.maximum() - bar.value()
        added = 0
        while self._loaded_from > 0 and added == 0:
            added = self._prepend_day()
        return added

    def _prepend_day(self) -> int:
        self._loaded_from -= 1
        day = self._days[self._loaded_from]
        records = [r for r in self.daylog.read_day(day).records if shown(r)]
        if not records:
            return 0
        replaced = {str(r.extra["replaces"]) for r in records if r.extra.get("replaces")}
        widgets: list[QWidget] = [self._separator(day)]
        for record in records:
            widget = self._make(record)
            if record.id in replaced:
                widget.mark_replaced()
            widgets.append(widget)
        if self._first_day == day and self._layout.count() > 1:
            self._layout.takeAt(1).widget().deleteLater()  # same day already has a separator
        for offset, widget in enumerate(widgets):
            self._layout.insertWidget(1 + offset, widget)
        self._first_day = day
        if self._last_day is None:
            self._last_day = day
        return len(records)

    def _separator(self, day: date) -> QLabel:
        label = QLabel(QLocale().toString(day, QLocale.FormatType.LongFormat))
        label.setObjectName("daySeparator")
        label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        label.setProperty("day", day.isoformat())
        return label

    def _make(self, record: Record) -> MessageWidget:
        widget = MessageWidget.from_record(record)
        widget.copied.connect(self.copied)
        self._by_id[record.id] = widget
        return widget

    # -- live messages -------------------------------------------------------

    def _append_widget(self, widget: QWidget, day: date | None) -> None:
        if day is not None and day != self._last_day:
            self._layout.addWidget(self._separator(day))
            self._last_day = day
            if self._first_day is None:
                self._first_day = day
        self._layout.addWidget(widget)
        self._stick_to_bottom = True

    def add_record(self, record: Record) -> MessageWidget:
        widget = self._make(record)
        replaces = record.extra.get("replaces")
        if replaces and str(replaces) in self._by_id:
            self._by_id[str(replaces)].mark_replaced()
        self._append_widget(widget, record.day)
        return widget

    def add_notice(self, text: str, role: str = "event") -> MessageWidget:
        widget = MessageWidget(role, text)
        self._append_widget(widget, None)
        return widget

    def begin_reply(self) -> MessageWidget:
        self._streaming = MessageWidget("assistant", "")
        self._streaming.copied.connect(self.copied)
        self._append_widget(self._streaming, None)
        return self._streaming

    def append_reply(self, text: str) -> None:
        if self._streaming is None:
            self.begin_reply()
        assert self._streaming is not None
        self._streaming.append(text)

    def replace_reply(self, text: str) -> None:
        if self._streaming is not None:
            self._streaming.set_text(text)

    def set_recalled(self, record_id: str, hits: list[dict[str, object]]) -> None:
        widget = self._by_id.get(record_id)
        if widget is not None:
            widget.set_recalled(hits)

    def finish_reply(self, record: Record | None, cancelled: bool = False) -> None:
        widget = self._streaming
        self._streaming = None
        if widget is None:
            if record is None:
                return
            widget = self.begin_reply()
            self._streaming = None
        if record is not None:
            widget.record_id = record.id
            if record.text != widget.text():  # the log keeps the reply trimmed; so does the card
                widget.set_text(record.text)
            widget.when.setText(record.timestamp.strftime("%H:%M"))
            self._by_id[record.id] = widget
            replaces = record.extra.get("replaces")
            if replaces and str(replaces) in self._by_id:
                self._by_id[str(replaces)].mark_replaced()
        if cancelled:
            widget.set_note(QCoreApplication.translate("MessageWidget", "stopped"))
        elif record is not None and record.private:
            widget.set_note(QCoreApplication.translate("MessageWidget", "private: not remembered"))

    def drop_reply(self) -> None:
        """Remove an empty streaming card (the turn failed before any text)."""
        if self._streaming is not None and not self._streaming.text():
            self._streaming.deleteLater()
        self._streaming = None

    def messages(self) -> list[MessageWidget]:
        items = (self._layout.itemAt(i).widget() for i in range(self._layout.count()))
        return [w for w in items if isinstance(w, MessageWidget)]

    def message(self, record_id: str) -> MessageWidget | None:
        return self._by_id.get(record_id)

    # -- find ------------------------------------------------------------------

    def find(self, text: str, backwards: bool = True) -> MessageWidget | None:
        """Highlight the next message containing `text` (newest first); None when nothing matches."""
        messages = self.messages()
        for widget in messages:
            widget.set_found(False)
        if not text or not messages:
            return None
        needle = text.casefold()
        count = len(messages)
        start = self._find_index if 0 <= self._find_index < count else count
        if backwards:
            for index in range(start - 1, -1, -1):
                if needle in messages[index].text().casefold():
                    return self._select(messages, index)
            added = self._load_days_containing(needle)  # past the oldest message on screen: earlier days
            messages = self.messages()
            # the days just loaded sit on top; after them, wrap round to the newest message
            for index in [*range(added - 1, -1, -1), *range(len(messages) - 1, start - 1 + added, -1)]:
                if needle in messages[index].text().casefold():
                    return self._select(messages, index)
            return None
        for step in range(1, count + 1):
            index = (start + step) % count
            if needle in messages[index].text().casefold():
                return self._select(messages, index)
        return None

    def _select(self, messages: list[MessageWidget], index: int) -> MessageWidget:
        self._find_index = index
        messages[index].set_found(True)
        self._stick_to_bottom = False
        self.ensureWidgetVisible(messages[index], 0, 40)
        return messages[index]

    def _load_days_containing(self, needle: str) -> int:
        """Load earlier days down to the newest one that holds `needle`; the number of messages added."""
        for position in range(self._loaded_from - 1, -1, -1):
            records = self.daylog.read_day(self._days[position]).records
            if any(shown(r) and needle in r.text.casefold() for r in records):
                before = len(self.messages())
                while self._loaded_from > position:
                    self._prepend_day()
                return len(self.messages()) - before
        return 0

    def reset_find(self) -> None:
        self._find_index = -1
        for widget in self.messages():
            widget.set_found(False)

    # -- scrolling -------------------------------------------------------------

    def _scrolled(self, value: int) -> None:
        bar = self.verticalScrollBar()
        self._stick_to_bottom = value >= bar.maximum() - 4
        if value <= bar.minimum() and bar.maximum() > 0 and self.has_earlier():
            QTimer.singleShot(0, self.load_earlier)

    def _range_changed(self, _minimum: int, maximum: int) -> None:
        bar = self.verticalScrollBar()
        if self._keep_from_bottom is not None:
            bar.setValue(maximum - self._keep_from_bottom)
            self._keep_from_bottom = None
        elif self._stick_to_bottom:
            bar.setValue(maximum)

    def scroll_to_bottom(self) -> None:
        self._stick_to_bottom = True
        self.verticalScrollBar().setValue(self.verticalScrollBar().maximum())
