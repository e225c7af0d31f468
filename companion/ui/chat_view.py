"""The one continuous timeline, paged by day: only a bounded window of days has widgets at any time.

Scrolling up loads the day before and drops the newest loaded day once the window is full;
scrolling down does the reverse. What this run of the app added (replies, notices) sits after
the days and stays until the app quits. Find jumps to any day through `show_record`.
"""

from __future__ import annotations

import bisect
import time
from dataclasses import dataclass, field
from datetime import date
from typing import Callable

from PySide6.QtCore import QCoreApplication, QEvent, QLocale, QSize, Qt, QTimer, Signal
from PySide6.QtWidgets import QFrame, QLabel, QScrollArea, QVBoxLayout, QWidget

from companion.memory.daylog import DayLog
from companion.memory.records import Record
from companion.memory.versions import chosen_versions, deleted_ids, version_chains
from companion.ui.message_widget import MessageWidget

INITIAL_RECORDS = 40  # enough to fill a tall window; the rest loads on scroll
MAX_RECORDS = 160  # messages with widgets from the day logs at any time (the window of days)
EDGE_PX = 1200  # start loading this close to the top or bottom, before the user gets there
PAGE_CHUNK = 2  # messages given widgets at once when a day starts paging in
FRAME_BUDGET_MS = 12  # then as many as fit in this per event-loop turn (layout and painting need the rest)
REAP_CHUNK = 6  # widgets of a dropped day destroyed per event-loop turn
START_FIRST = 12  # messages given widgets before the window first shows
FIND_FIRST = 6  # messages around a match given widgets before find shows it
SHOWN_ROLES = ("user", "assistant", "tool", "event")


def shown(record: Record) -> bool:
    """Trigger bookkeeping stays in the log; the timeline shows what was said and what happened."""
    if record.role not in SHOWN_ROLES:
        return False
    return not (record.role == "event" and ("trigger" in record.extra or "deletes" in record.extra
                                            or "chooses" in record.extra))




class _Column(QWidget):
    """A vertical run of widgets: one day (separator and messages) or what this run added."""

    def __init__(self, name: str) -> None:
        super().__init__()
        self.planned = 0  # messages of the day, with widgets or about to get them
        self.setObjectName(name)
        self.box = QVBoxLayout(self)
        self.box.setContentsMargins(0, 0, 0, 0)
        self.box.setSpacing(6)

    def widgets(self) -> list[QWidget]:
        return [w for i in range(self.box.count()) if (w := self.box.itemAt(i).widget()) is not None]


@dataclass
class _Fill:
    """A day whose messages get their widgets a few at a time, nearest to `center` first (the edge the
    reader comes from, or the message find jumps to)."""

    section: _Column
    items: list[tuple[Record, list[tuple[str, str]], int]]  # record, its versions, the one shown
    center: int = 0
    made: list[int] = field(default_factory=list)  # indices with widgets, sorted

    def __post_init__(self) -> None:
        self.order = sorted(range(len(self.items)), key=lambda i: (abs(i - self.center), i))

    @property
    def done(self) -> int:
        return len(self.made)


class _Inner(QWidget):
    """The scrolled widget. Wrapped labels report the height they would need at their narrowest as
    their minimum; the scroll area would make that the timeline's height, a blank gap of thousands
    of pixels above the messages. Its height comes from height-for-width at the real width instead."""

    def minimumSizeHint(self) -> QSize:  # noqa: N802 (Qt name)
        return QSize(0, 0)


class ChatView(QScrollArea):
    """Messages with time, a separator per day; the last reply can stream in."""

    copied = Signal(str)
    citation_clicked = Signal(str)  # a record id in a recalled list or a reply
    version_chosen = Signal(str)  # record id of the reply version the user flipped to
    delete_requested = Signal(str)  # record id
    edit_requested = Signal(str)  # record id of the user's last message
    problems_found = Signal(list)  # ReadProblem list of a day just loaded (shown once by the window)

    def __init__(self, daylog: DayLog, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.daylog = daylog
        self.setObjectName("timeline")
        self.setWidgetResizable(True)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setFrameShape(QFrame.Shape.NoFrame)
        inner = _Inner()
        inner.setObjectName("timelineInner")
        self._layout = QVBoxLayout(inner)
        self._layout.setContentsMargins(12, 8, 12, 8)
        self._layout.setSpacing(6)
        self._layout.addStretch(1)
        self._live = _Column("live")
        self._layout.addWidget(self._live)
        self.setWidget(inner)
        self._days: list[date] = []
        self._sections: list[tuple[date, _Column]] = []  # the loaded days, oldest first
        self._lo = 0  # _days[_lo:_hi] have sections
        self._hi = 0
        self._live_ids: set[str] = set()
        self._deleted: set[str] = set()  # deleted by an event in a day seen so far
        self._live_day: date | None = None
        self._by_id: dict[str, MessageWidget] = {}
        self._streaming: MessageWidget | None = None
        self._stick_to_bottom = True
        self._anchor: tuple[QWidget, int] | None = None
        self._paging = False
        self._fills: list[_Fill] = []
        self._graveyard: list[_Column] = []  # dropped days, destroyed a few widgets at a time
        self._found: MessageWidget | None = None
        self._editable: MessageWidget | None = None
        self.created = 0  # message widgets made so far (the window keeps the live number bounded)
        self.code_colours_later = False  # code from the day logs is coloured once painted (the app's first frame)
        bar = self.verticalScrollBar()
        bar.valueChanged.connect(self._scrolled)
        bar.rangeChanged.connect(self._range_changed)

    # -- the window of days ---------------------------------------------------

    def load_recent(self) -> None:
        """Show the newest messages at once (a screenful, START_FIRST), then the rest of the newest
        days, about INITIAL_RECORDS, a few per event-loop turn: the window is up before they are."""
        self._days = self.daylog.days()
        self._open_at(len(self._days), before=0)
        while self._lo > 0 and not self._add_day(self._lo - 1, at_top=True, first=START_FIRST):
            pass
        self._live.setVisible(True)
        self._update_editable()
        self.scroll_to_bottom()
        self._paging = True
        QTimer.singleShot(0, self, self._continue_fills)

    def _open_at(self, end: int, before: int = INITIAL_RECORDS, after: int = 0) -> None:
        """Replace the loaded days by those ending at _days[end - 1] (`before` messages back, `after` on)."""
        for _day, section in self._sections:
            self._drop(section)
        self._sections.clear()
        self._fills.clear()
        self._lo = self._hi = end
        count = 0
        while self._lo > 0 and count < before:
            count += self._add_day(self._lo - 1, at_top=True)
        while self._hi < len(self._days) and count < before + after:
            count += self._add_day(self._hi, at_top=False)
        self._live.setVisible(self.at_latest())
        self._update_editable()

    def _open_day(self, position: int, record_id: str) -> None:
        """Only the day of `record_id`, its widgets made around that message first (find jumps there
        at once); the rest of the day and the days around it page in as usual."""
        self._open_at(position + 1, before=0)
        self._lo = self._hi = position + 1
        self._add_day(position, at_top=True, first=FIND_FIRST, center=record_id)
        self._live.setVisible(self.at_latest())
        self._update_editable()
        if self._fills:
            self._paging = True
            QTimer.singleShot(0, self, self._continue_fills)

    def paging(self) -> bool:
        """Days are still being given widgets (a few per event-loop turn)."""
        return self._paging or bool(self._fills)

    def at_latest(self) -> bool:
        """The newest day is loaded (and with it what this run added)."""
        return self._hi >= len(self._days)

    def has_earlier(self) -> bool:
        return self._lo > 0

    def has_later(self) -> bool:
        return not self.at_latest()

    def loaded_days(self) -> list[date]:
        return [day for day, _section in self._sections]

    def _add_day(self, position: int, at_top: bool, first: int | None = None, center: str | None = None) -> int:
        """Give _days[position] a section at the top or the bottom; the number of messages it shows.
        With `first`, only that many get widgets now (those nearest the reader, or the record
        `center`); the rest follow a few per event-loop turn."""
        day = self._days[position]
        read = self.daylog.read_day(day)
        if read.problems:
            self.problems_found.emit(list(read.problems))
        self._deleted |= deleted_ids(read.records)
        gone = self._deleted | self._live_ids
        records = [r for r in read.records if shown(r) and r.id not in gone]
        if at_top:
            self._lo = position
        else:
            self._hi = position + 1
        if not records:
            return 0
        texts = {r.id: r.text for r in records}
        chosen = chosen_versions(read.records)
        chains = {rid: chain for chain in version_chains(records) for rid in chain}
        items = []
        for record in records:
            if chosen.get(record.id, record.id) != record.id:
                continue  # a version not chosen: reached with ‹ › on the chosen one
            chain = [rid for rid in chains.get(record.id, []) if rid in texts]
            versions = [(rid, texts[rid]) for rid in chain] if len(chain) > 1 else []
            items.append((record, versions, chain.index(record.id) if versions else 0))
        section = _Column("day")
        section.planned = len(items)
        section.box.addWidget(self._separator(day))
        if at_top:
            self._layout.insertWidget(1, section)
            self._sections.insert(0, (day, section))
        else:
            self._layout.insertWidget(self._layout.indexOf(self._live), section)
            self._sections.append((day, section))
        ids = [record.id for record, _v, _i in items]
        middle = ids.index(center) if center in ids else (len(items) - 1 if at_top else 0)
        fill = _Fill(section, items, middle)
        self._fill(fill, len(items) if first is None else first)
        if fill.done < len(items):
            self._fills.append(fill)
        section.show()  # now, not at the next event loop turn: its height counts in the next layout
        return len(items)

    def _fill(self, fill: "_Fill", count: int) -> None:
        for item in fill.order[fill.done:fill.done + count]:
            record, versions, index = fill.items[item]
            widget = self._make(record)
            if versions:
                widget.set_versions(versions, index)
                self._by_id.update(dict.fromkeys((rid for rid, _t in versions), widget))
            at = bisect.bisect(fill.made, item)
            fill.made.insert(at, item)
            fill.section.box.insertWidget(1 + at, widget)  # after the day's separator, in time order

    def _continue_fills(self) -> None:
        """One more chunk of a day being paged in, keeping the view where it is; then the next turn."""
        while self._fills and (self._fills[0].done >= len(self._fills[0].items)
                               or not any(s is self._fills[0].section for _d, s in self._sections)):
            self._fills.pop(0)
        if not self._fills:
            self._paging = False
            if self.has_earlier() and self._loaded_count() < INITIAL_RECORDS:
                self._page(self.load_earlier)  # the first screen holds about INITIAL_RECORDS messages
            return
        self._hold(self._visible_message(first=True))
        started = time.perf_counter()
        fill = self._fills[0]
        while fill.done < len(fill.items) and (time.perf_counter() - started) * 1000 < FRAME_BUDGET_MS:
            self._fill(fill, 1)
        self._settle()
        self._restore_anchor()
        QTimer.singleShot(0, self, self._continue_fills)

    def _drop(self, section: _Column) -> None:
        for widget in section.widgets():
            if isinstance(widget, MessageWidget):
                if self._by_id.get(widget.record_id) is widget:
                    del self._by_id[widget.record_id]
                if self._found is widget:
                    self._found = None
        self._layout.removeWidget(section)
        section.hide()
        self._graveyard.append(section)
        if len(self._graveyard) == 1:
            QTimer.singleShot(0, self, self._reap)

    def _reap(self) -> None:
        """Destroy dropped days a few widgets per event-loop turn (a whole day at once is a long frame)."""
        while self._graveyard:
            section = self._graveyard[0]
            try:
                children = section.widgets()
            except RuntimeError:  # went with the window
                self._graveyard.pop(0)
                continue
            if not children:
                self._graveyard.pop(0).deleteLater()
                continue
            for widget in children[-REAP_CHUNK:]:
                section.box.removeWidget(widget)
                widget.deleteLater()
            QTimer.singleShot(0, self, self._reap)
            return

    def _loaded_count(self) -> int:
        return sum(section.planned for _day, section in self._sections)

    def load_earlier(self, chunk: int | None = None) -> int:
        """Prepend the previous day that has messages (dropping the newest loaded days beyond the
        window); the view stays where the user was. The number of messages added."""
        if not self.has_earlier():
            return 0
        self._hold(self._visible_message(first=True))
        added = 0
        while self._lo > 0 and added == 0:
            added = self._add_day(self._lo - 1, at_top=True, first=chunk)
        while self._loaded_count() > MAX_RECORDS and len(self._sections) > 1:
            _day, section = self._sections.pop()
            self._drop(section)
            self._hi = self._days.index(_day)
            self._live.setVisible(False)
        return added

    def load_later(self, chunk: int | None = None) -> int:
        """Append the next day (dropping the oldest loaded days beyond the window); at the newest
        day what this run added shows again. The number of messages added."""
        if self.at_latest():
            return 0
        self._hold(self._visible_message(first=False))
        added = 0
        while not self.at_latest() and added == 0:
            added = self._add_day(self._hi, at_top=False, first=chunk)
        while self._loaded_count() > MAX_RECORDS and len(self._sections) > 1:
            day, section = self._sections.pop(0)
            self._drop(section)
            self._lo = self._days.index(day) + 1
        if self.at_latest():
            self._live.setVisible(True)
        return added

    def _separator(self, day: date) -> QLabel:
        label = QLabel(QLocale().toString(day, QLocale.FormatType.LongFormat))
        label.setObjectName("daySeparator")
        label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        label.setProperty("day", day.isoformat())
        return label

    def _make(self, record: Record) -> MessageWidget:
        widget = MessageWidget.from_record(record, code_colours_later=self.code_colours_later)
        self._wire(widget)
        self._by_id[record.id] = widget
        return widget

    def _wire(self, widget: MessageWidget) -> None:
        self.created += 1
        widget.copied.connect(self.copied)
        widget.citation_clicked.connect(self.citation_clicked)
        widget.version_chosen.connect(self.version_chosen)
        widget.delete_requested.connect(self.delete_requested)
        widget.edit_requested.connect(self.edit_requested)

    # -- live messages -------------------------------------------------------

    def _append_widget(self, widget: QWidget, day: date | None, jump: bool = True) -> None:
        if jump and not self.at_latest():
            self._open_at(len(self._days))  # something new was said: back to the present
        if day is not None and day != self._live_day and day != (self._sections[-1][0] if self._sections else None):
            self._live.box.addWidget(self._separator(day))
        if day is not None:
            self._live_day = day
        self._live.box.addWidget(widget)
        self._stick_to_bottom = True

    def add_record(self, record: Record) -> MessageWidget:
        widget = self._make(record)
        self._live_ids.add(record.id)
        self._append_widget(widget, record.day)
        self._update_editable()
        return widget

    def _update_editable(self) -> None:
        """Only the user's last message offers Edit (and only while the newest day is on screen)."""
        last = None
        if self.at_latest():
            last = next((w for w in reversed(self.messages()) if w.role == "user" and w.record_id), None)
        if self._editable is not None and self._editable is not last:
            try:
                self._editable.set_editable(False)
            except RuntimeError:  # its day was dropped
                pass
        self._editable = last
        if last is not None:
            last.set_editable(True)

    def add_notice(self, text: str, role: str = "event") -> MessageWidget:
        widget = MessageWidget(role, text)
        self.created += 1
        waiting = self._streaming
        if waiting is not None and not waiting.text() and waiting in self._live.widgets():
            # what the message did (remembered, forgot) goes above the reply still being thought of
            self._live.box.insertWidget(self._live.box.indexOf(waiting), widget)
            return widget
        self._append_widget(widget, None, jump=False)  # a notice never pulls the reader out of an old day
        return widget

    def begin_reply(self) -> MessageWidget:
        self._streaming = MessageWidget("assistant", "")
        self._wire(self._streaming)
        self._streaming.set_thinking(True)
        self._append_widget(self._streaming, None)
        return self._streaming

    def append_reply(self, text: str) -> None:
        if self._streaming is None:
            self.begin_reply()
        assert self._streaming is not None
        self._streaming.set_thinking(False)
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
        widget.set_thinking(False)
        if record is not None:
            widget.set_record_id(record.id)
            self._live_ids.add(record.id)
            if record.text != widget.text():  # the log keeps the reply trimmed; so does the card
                widget.set_text(record.text)
            widget.when.setText(record.timestamp.strftime("%H:%M"))
            self._by_id[record.id] = widget
            replaces = record.extra.get("replaces")
            old = self._by_id.get(str(replaces)) if replaces else None
            if old is not None and old is not widget:  # a regenerated reply: one card, ‹ i/n › between versions
                versions = old.versions or [(old.record_id, old.text())]
                widget.set_versions([*versions, (record.id, record.text)], len(versions))
                self._by_id.update({rid: widget for rid, _text in widget.versions})
                old.hide()
                old.deleteLater()
        if cancelled:
            widget.set_note(QCoreApplication.translate("MessageWidget", "stopped"))
        elif record is not None and record.private:
            widget.set_note(QCoreApplication.translate("MessageWidget", "private: not remembered"))

    def drop_reply(self) -> None:
        """Remove an empty streaming card (the turn failed before any text)."""
        if self._streaming is not None and not self._streaming.text():
            self._streaming.hide()
            self._streaming.deleteLater()
        self._streaming = None

    def remove(self, record_id: str) -> None:
        """Take a message off the screen (deleted); the log is not touched here."""
        self._deleted.add(record_id)
        widget = self._by_id.pop(record_id, None)
        if widget is not None:
            for rid, _text in widget.versions:
                self._by_id.pop(rid, None)
            widget.hide()
            widget.deleteLater()
            if widget is self._editable:
                self._editable = None
        self._update_editable()

    def after(self, record_id: str) -> list[str]:
        """Record ids of the messages shown after `record_id` (its reply, tool results, ...)."""
        messages = self.messages()
        widget = self._by_id.get(record_id)
        if widget not in messages:
            return []
        later = messages[messages.index(widget) + 1:]
        return [rid for w in later for rid in ([v for v, _t in w.versions] or [w.record_id]) if rid]

    def messages(self) -> list[MessageWidget]:
        columns = [section for _day, section in self._sections]
        if self.at_latest():
            columns.append(self._live)
        return [w for column in columns for w in column.widgets()
                if isinstance(w, MessageWidget) and not w.isHidden()]

    def code_languages(self) -> set[str]:
        """The languages of the code shown plain so far."""
        return {block.language() for widget in set(self._by_id.values()) for block in widget.code_blocks()
                if not block.coloured}

    def colour_code(self) -> None:
        """Highlight the code of the messages made while `code_colours_later` was on."""
        for widget in set(self._by_id.values()):
            widget.colour_code()

    def message(self, record_id: str) -> MessageWidget | None:
        return self._by_id.get(record_id)

    # -- find ------------------------------------------------------------------

    def show_record(self, record_id: str) -> MessageWidget | None:
        """Bring the message `record_id` on screen, highlighted, loading its day if needed."""
        widget = self._by_id.get(record_id)
        if widget is None:
            try:
                day = date.fromisoformat(record_id.split("#", 1)[0])
            except ValueError:
                return None
            if not self._days or day > self._days[-1]:
                self._days = self.daylog.days()
            if day not in self._days:
                return None
            self._open_day(self._days.index(day), record_id)
            widget = self._by_id.get(record_id)
            if widget is None:
                return None
        self.mark_found(widget)
        self._stick_to_bottom = False
        self._settle()
        self.ensureWidgetVisible(widget, 0, 60)
        return widget

    def mark_found(self, widget: MessageWidget | None) -> None:
        if self._found is not None and self._found is not widget:
            self._found.set_found(False)
        self._found = widget
        if widget is not None:
            widget.set_found(True)

    def reset_find(self) -> None:
        self.mark_found(None)

    # -- scrolling -------------------------------------------------------------

    def _settle(self) -> None:
        """Lay out what was just added now, so positions are real (the scroll area follows)."""
        QCoreApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)

    def _visible_message(self, first: bool) -> QWidget | None:
        """The first (or last) loaded message now in the viewport, to keep in place while paging."""
        top = self.verticalScrollBar().value()
        bottom = top + self.viewport().height()
        candidates = [w for _day, s in self._sections for w in s.widgets()]
        inner = self.widget()
        visible = [w for w in candidates if w.mapTo(inner, w.rect().bottomLeft()).y() >= top
                   and w.mapTo(inner, w.rect().topLeft()).y() <= bottom]
        if not visible:
            return candidates[0] if first and candidates else (candidates[-1] if candidates else None)
        return visible[0] if first else visible[-1]

    def _hold(self, widget: QWidget | None) -> None:
        if widget is not None:
            self._anchor = (widget, widget.mapTo(self.widget(), widget.rect().topLeft()).y()
                            - self.verticalScrollBar().value())

    def _restore_anchor(self) -> None:
        if self._anchor is None:
            return
        widget, offset = self._anchor
        self._anchor = None
        try:
            y = widget.mapTo(self.widget(), widget.rect().topLeft()).y()
        except RuntimeError:  # the anchor went with a dropped day
            return
        self.verticalScrollBar().setValue(y - offset)

    def _scrolled(self, value: int) -> None:
        bar = self.verticalScrollBar()
        self._stick_to_bottom = self.at_latest() and value >= bar.maximum() - 4
        if self._paging or bar.maximum() <= 0:
            return
        if value <= bar.minimum() + EDGE_PX and self.has_earlier():
            self._page(self.load_earlier)
        elif value >= bar.maximum() - EDGE_PX and self.has_later():
            self._page(self.load_later)

    def _page(self, step: Callable[[int | None], int]) -> None:
        """Page a day in while scrolling: a few messages now, the rest over the next turns of the event
        loop, so no frame waits for a whole day of widgets."""
        self._paging = True

        def run() -> None:
            try:
                step(PAGE_CHUNK)
                self._settle()
                self._restore_anchor()
            finally:
                QTimer.singleShot(0, self, self._continue_fills)

        QTimer.singleShot(0, self, run)

    def _range_changed(self, _minimum: int, maximum: int) -> None:
        if self._anchor is not None:
            self._restore_anchor()
        elif self._stick_to_bottom:
            self.verticalScrollBar().setValue(maximum)

    def scroll_to_bottom(self) -> None:
        self._stick_to_bottom = True
        self._settle()
        self.verticalScrollBar().setValue(self.verticalScrollBar().maximum())
