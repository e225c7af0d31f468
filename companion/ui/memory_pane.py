"""The memory pane: a tab per long-term file plus days & digests; follows changes made elsewhere."""

from __future__ import annotations

from PySide6.QtCore import QFileSystemWatcher, Qt, QTimer, Signal, Slot
from PySide6.QtWidgets import QTabWidget, QVBoxLayout, QWidget

from companion.memory.daylog import DayLog
from companion.memory.document import Document
from companion.memory.longterm import LongTermStore
from companion.paths import LONG_TERM_FILES, Home
from companion.ui.history_dialog import HistoryDialog
from companion.ui.journal_view import JournalView
from companion.ui.memory_editor import BOTH, MemoryEditor

DEBOUNCE_MS = 80


class MemoryPane(QWidget):
    """`memory_changed` fires (in the GUI thread) whenever a long-term file changed, from anywhere."""

    memory_changed = Signal(str)
    _store_changed = Signal(str)  # emitted from whatever thread wrote the file

    def __init__(self, home: Home, store: LongTermStore, daylog: DayLog, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.home = home
        self.store = store
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.tabs = QTabWidget()
        self.tabs.setDocumentMode(True)
        self.editors: dict[str, MemoryEditor] = {}
        for name in LONG_TERM_FILES:
            editor = MemoryEditor(store, name)
            editor.dirty_changed.connect(lambda dirty, n=name: self._mark(n, dirty))
            editor.history_requested.connect(self.show_history)
            editor.saved.connect(self.memory_changed)
            editor.citation_clicked.connect(self.open_citation)
            editor.view_chosen.connect(self.set_view)
            editor.split.splitterMoved.connect(lambda _pos, _index, e=editor: self._split_moved(e))
            self.editors[name] = editor
            self.tabs.addTab(editor, name)
        self.journal = JournalView(home, daylog)
        self.tabs.addTab(self.journal, self.tr("Days && digests"))
        layout.addWidget(self.tabs)
        self._pending: set[str] = set()
        self._debounce = QTimer(self)
        self._debounce.setSingleShot(True)
        self._debounce.setInterval(DEBOUNCE_MS)
        self._debounce.timeout.connect(self._check_pending)
        self.watcher = QFileSystemWatcher(self)
        self._watch()
        self.watcher.fileChanged.connect(self._path_changed)
        self.watcher.directoryChanged.connect(lambda _p: self._queue(*LONG_TERM_FILES))
        self._store_changed.connect(self._queue_one, Qt.ConnectionType.QueuedConnection)
        store.subscribe(self._on_store_write)

    def close_pane(self) -> None:
        self.store.unsubscribe(self._on_store_write)

    def _on_store_write(self, name: str, _doc: Document) -> None:
        self._store_changed.emit(name)

    def _watch(self) -> None:
        """Atomic renames drop a file's watch: add whatever exists again."""
        wanted = [str(self.store.path(n)) for n in LONG_TERM_FILES if self.store.path(n).exists()]
        wanted.append(str(self.home.memory))
        missing = [p for p in wanted if p not in self.watcher.files() + self.watcher.directories()]
        if missing:
            self.watcher.addPaths(missing)

    def _path_changed(self, path: str) -> None:
        for name in LONG_TERM_FILES:
            if path == str(self.store.path(name)):
                self._queue(name)

    @Slot(str)
    def _queue_one(self, name: str) -> None:
        self._queue(name)

    def _queue(self, *names: str) -> None:
        self._pending.update(names)
        self._debounce.start()

    def _check_pending(self) -> None:
        self._watch()
        names, self._pending = self._pending, set()
        for name in names:
            editor = self.editors.get(name)
            if editor is None:
                continue
            before = editor.base_sha
            editor.check_disk()
            if editor.base_sha != before or editor.conflict:
                self.memory_changed.emit(name)

    def _mark(self, name: str, dirty: bool) -> None:
        index = self.tabs.indexOf(self.editors[name])
        self.tabs.setTabText(index, f"{name} •" if dirty else name)

    # -- the view: one for every file, kept in the window's state ------------------------

    def view(self) -> str:
        """EDIT, BOTH or READ: what each file shows."""
        return next(iter(self.editors.values())).view()

    def set_view(self, view: str) -> None:
        for editor in self.editors.values():
            editor.set_view(view)

    def split_state(self) -> bytes:
        """Where the line between the text and its reading view is."""
        return bytes(next(iter(self.editors.values())).split.saveState().data())

    def restore_split(self, state: bytes) -> None:
        for editor in self.editors.values():
            editor.split.restoreState(state)

    def _split_moved(self, moved: MemoryEditor) -> None:
        state = moved.split.saveState()
        for editor in self.editors.values():
            if editor is not moved:
                editor.split.restoreState(state)

    # -- for the window -------------------------------------------------------

    def current_editor(self) -> MemoryEditor | None:
        widget = self.tabs.currentWidget()
        return widget if isinstance(widget, MemoryEditor) else None

    def save_current(self) -> bool:
        editor = self.current_editor()
        return editor.save() if editor else False

    def unsaved(self) -> list[str]:
        return [name for name, editor in self.editors.items() if editor.is_dirty()]

    def save_all(self) -> bool:
        return all(self.editors[name].save() for name in self.unsaved())

    def open_file(self, name: str) -> MemoryEditor:
        editor = self.editors[name]
        self.tabs.setCurrentWidget(editor)
        return editor

    def open_citation(self, record_id: str) -> bool:
        """Show the day log at the cited record (highlighted); False when the record is not in the logs."""
        self.tabs.setCurrentWidget(self.journal)
        return self.journal.show_record(record_id)

    def show_history(self, name: str | None = None) -> HistoryDialog:
        editor = self.editors.get(name or "") or self.current_editor() or self.editors["MEMORY.md"]
        dialog = HistoryDialog(self.store, editor.name, self)
        dialog.restored.connect(lambda _n: editor.check_disk())
        dialog.open()
        return dialog
