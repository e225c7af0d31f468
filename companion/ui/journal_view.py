"""Read-only view of any day's log and of the digests, picked from a list; opens at a cited record."""

from __future__ import annotations

import html
from datetime import date
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QListWidget, QListWidgetItem, QSplitter, QVBoxLayout, QWidget

from companion.memory.daylog import DayLog
from companion.paths import Home
from companion.ui.render import RichView

DIGEST_KINDS = ("day", "week", "month", "year")


class JournalView(QWidget):
    """Days (newest first) or digests of one kind; the list is filled only when shown."""

    def __init__(self, home: Home, daylog: DayLog, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.home = home
        self.daylog = daylog
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.kind = QComboBox()
        self.kind.addItem(self.tr("Day logs"), "logs")
        for kind, label in zip(DIGEST_KINDS, (self.tr("Day digests"), self.tr("Week digests"),
                                               self.tr("Month digests"), self.tr("Year digests"))):
            self.kind.addItem(label, kind)
        self.kind.currentIndexChanged.connect(self.refresh)
        layout.addWidget(self.kind)
        splitter = QSplitter(Qt.Orientation.Vertical)
        self.list = QListWidget()
        self.list.currentItemChanged.connect(self._show)
        self.view = RichView()  # digests are written by the model: nothing in them loads or opens by itself
        self.view.record_clicked.connect(self.show_record)
        splitter.addWidget(self.list)
        splitter.addWidget(self.view)
        splitter.setSizes([160, 400])
        layout.addWidget(splitter, 1)
        self._filled = False
        self.highlighted: str | None = None  # the record a citation pointed at
        self._anchors: set[str] = set()
        self._found = False

    def showEvent(self, event: object) -> None:  # type: ignore[override]
        if not self._filled:
            self.refresh()
        super().showEvent(event)  # type: ignore[arg-type]

    def refresh(self) -> None:
        self._filled = True
        self.list.clear()
        self.view.clear()
        kind = self.kind.currentData()
        if kind == "logs":
            for day in reversed(self.daylog.days()):
                item = QListWidgetItem(day.isoformat())
                item.setData(Qt.ItemDataRole.UserRole, ("log", day))
                self.list.addItem(item)
        else:
            folder = self.home.digests / kind
            files = sorted(folder.glob("*.md"), reverse=True) if folder.is_dir() else []
            for path in files:
                item = QListWidgetItem(path.stem)
                item.setData(Qt.ItemDataRole.UserRole, ("digest", path))
                self.list.addItem(item)
        if self.list.count() == 0:
            self.view.set_html("<p><i>" + self.tr("Nothing here yet.") + "</i></p>")

    def show_record(self, record_id: str) -> bool:
        """Open the day log of `record_id` scrolled to that record, highlighted. False if it is not there."""
        try:
            day = date.fromisoformat(record_id.split("#", 1)[0])
        except ValueError:
            return False
        self.highlighted = record_id
        if self.kind.currentData() != "logs":
            self.kind.setCurrentIndex(0)  # refreshes the list
        elif not self._filled:
            self.refresh()
        for row in range(self.list.count()):
            item = self.list.item(row)
            if item.data(Qt.ItemDataRole.UserRole) == ("log", day):
                if self.list.currentItem() is item:
                    self._show(item)
                else:
                    self.list.setCurrentItem(item)
                self.list.scrollToItem(item)
                return self._found
        self.view.set_html("<p><i>" + html.escape(self.tr("The day log of %1 is not here (it may have been moved or "
                                                          "deleted).").replace("%1", day.isoformat())) + "</i></p>")
        return False

    def _show(self, item: QListWidgetItem | None) -> None:
        if item is None:
            return
        what, value = item.data(Qt.ItemDataRole.UserRole)
        if what == "log":
            self.view.set_html(self._day_html(value))
            self._found = False
            if self.highlighted and self.highlighted.startswith(value.isoformat() + "#"):
                anchor = "r" + self.highlighted.split("#", 1)[1]
                self._found = anchor in self._anchors
                self.view.scrollToAnchor(anchor)
        else:
            self.view.set_markdown(Path(value).read_text(encoding="utf-8", errors="replace"))

    def _day_html(self, day: object) -> str:
        read = self.daylog.read_day(day)  # type: ignore[arg-type]
        who = {"user": self.tr("You"), "assistant": self.tr("Companion"), "tool": self.tr("Tool"),
               "event": self.tr("Event")}
        rows = []
        self._anchors = set()
        for record in read.records:
            stamp = record.ts[11:16]
            text = html.escape(record.text).replace("\n", "<br>")
            note = " <i>(" + self.tr("regenerated") + ")</i>" if record.extra.get("replaces") else ""
            if record.private:
                note += " <i>(" + self.tr("private") + ")</i>"
            anchor = "r" + record.id.split("#", 1)[1]  # "r17", "r17.k3fq": one per computer's numbering
            self._anchors.add(anchor)
            style = " style='background-color:#fff3bf; color:#1a1a1a'" if record.id == self.highlighted else ""
            rows.append(f"<a name='{anchor}'></a><p{style}><b>{stamp} {who.get(record.role, record.role)}</b>{note}<br>{text}</p>")
        for problem in read.problems:
            rows.append(f"<p style='color:#c62828'>{html.escape(str(problem))}</p>")
        return "".join(rows) or "<p><i>" + self.tr("Empty day.") + "</i></p>"
