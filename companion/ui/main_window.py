"""The main window: timeline and composer beside the memory pane; the API feature modules plug into."""

from __future__ import annotations

import base64
import json
import logging
from datetime import datetime
from functools import partial
from typing import Callable

from PySide6.QtCore import QByteArray, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QCloseEvent, QKeySequence
from PySide6.QtWidgets import (
    QLabel,
    QLineEdit,
    QMainWindow,
    QMenu,
    QMessageBox,
    QProgressBar,
    QSplitter,
    QToolButton,
    QVBoxLayout,
    QWidget,
    QHBoxLayout,
    QApplication,
)

from companion.agent.session import ChatSession, Loader
from companion.agent.events import Done, EventKind, Failed, MemoryNote, ToolRan, Trimmed, TurnEvent, UserLogged
from companion.llm.base import Backend, ModelInfo
from companion.llm.catalog import EMBEDDED_LABEL
from companion.atomic import atomic_write
from companion.errors import CompanionError
from companion.memory.daylog import DayLog, now_local
from companion.memory.history import History
from companion.memory.longterm import LongTermStore
from companion.memory.search.find import FIND_LIMIT
from companion.paths import Home
from companion.settings import Settings
from companion.ui.chat_view import ChatView
from companion.ui.composer import Composer
from companion.ui.extensions import EXTENSION_MODULES, install_extension
from companion.ui.first_frame import AfterFirstFrame, Preload, Step
from companion.ui import code_block, forget_everywhere, tool_actions
from companion.ui.links import open_folder
from companion.ui.memory_notices import MemoryNotices
from companion.ui.memory_editor import BOTH
from companion.ui.memory_pane import MemoryPane
from companion.ui.message_widget import MessageWidget
from companion.ui.worker import ModelController

log = logging.getLogger(__name__)
MENU_ORDER = ("&File", "&Memory", "&Settings", "&Help")
CODE_COLOURS = "code colours"  # the preload task that readies Pygments for the code on screen
READ_AHEAD_MS = 600  # a pause this long in typing: the draft's prompt is read ahead


class MainWindow(QMainWindow):
    backend_changed = Signal(object)  # the new Backend, or None while loading / after a failure
    settings_changed = Signal()  # settings.toml was saved from the Preferences dialog
    busy_changed = Signal(bool)  # a reply started / ended
    closing = Signal()  # before the model closes at quit: feature modules stop their background work
    started = Signal()  # the start-up work that waits for the first frame has run (at once without defer)
    model_failed = Signal(str)  # loading the configured model failed (the reason)

    def __init__(
        self,
        home: Home,
        settings: Settings,
        *,
        loader: Loader | None = None,
        clock: Callable[[], datetime] = now_local,
        autoload: bool = True,
        extensions: tuple[str, ...] | None = None,
        defer: bool = False,
    ) -> None:
        """defer=True (the app): the window's first frame comes first; the search index's start-up, the
        model, the feature modules and the colours of code follow it, one per event-loop turn (`started`)."""
        super().__init__()
        self.home = home
        self.settings = settings
        self.store = LongTermStore(home, History(home.history, keep=settings.memory.history_keep))
        self.daylog = DayLog(home.days, clock)
        self.session = ChatSession(home, settings, loader=loader, clock=clock, store=self.store, daylog=self.daylog,
                                   start_recall=not defer)
        self.agent = self.session.agent
        self.agent.start()  # SOUL.md `app_start` triggers join the first reply's notes
        self._backend: Backend | None = None
        self._menus: dict[str, QMenu] = {}
        self.quitting = False  # Quit was asked for (menu, Ctrl+Q, tray, a signal): closing really quits
        self.quit_hook: Callable[[], None] = QApplication.quit
        self.setWindowTitle(self.tr("Companion"))
        self.resize(1180, 760)
        self._build_central()
        self.chat.code_colours_later = defer  # Pygments loads after the first frame
        self._build_status_bar()
        self._build_menus()
        self.notices = MemoryNotices(self.store, self.daylog, self.chat.add_notice, self)
        self.controller = ModelController(self.session, self)
        self._connect_worker()
        self._greet_first_launch()
        self.chat.load_recent()
        self._restore_state()
        self.installed_extensions: list[str] = []
        modules = EXTENSION_MODULES if extensions is None else extensions
        preload = Preload.imports(modules)
        steps = [Step(lambda: self._preload(preload))] if defer else []
        if autoload:
            steps.append(Step(self.reload_model))
        steps += [Step(lambda name=name: self._install(name), lambda name=name: preload.ready(name)) for name in modules]
        steps.append(Step(self._colour_code, lambda: preload.ready(CODE_COLOURS)))
        if defer:  # last: its scan and embedder compete for the interpreter (a turn or find starts it earlier)
            steps.append(Step(self.session.start_recall))
        self.start_steps = AfterFirstFrame(self.chat.viewport(), steps)
        self.start_steps.finished.connect(self.started)
        if not defer:
            self.start_steps.run_now()

    def _install(self, name: str) -> None:
        if install_extension(self, name):
            self.installed_extensions.append(name)

    def _preload(self, preload: Preload) -> None:
        preload.add(CODE_COLOURS, partial(code_block.warm_highlighter, self.chat.code_languages()))
        preload.start()

    def _colour_code(self) -> None:
        self.chat.code_colours_later = False
        self.chat.colour_code()

    # -- public API for feature modules (ui/extensions.py: WindowAPI) ------------

    @property
    def widget(self) -> QWidget:
        return self

    @property
    def backend(self) -> Backend | None:
        return self._backend

    def menu(self, title: str) -> QMenu:
        """The top-level menu called `title` (created in the standard order if missing)."""
        if title in self._menus:
            return self._menus[title]
        menu = QMenu(self.tr(title), self)
        later = [t for t in MENU_ORDER[MENU_ORDER.index(title) + 1:] if t in self._menus] if title in MENU_ORDER else []
        if later:
            self.menuBar().insertMenu(self._menus[later[0]].menuAction(), menu)
        else:
            self.menuBar().addMenu(menu)
        self._menus[title] = menu
        return menu

    def show_message(self, text: str, timeout_ms: int = 5000) -> None:
        self.statusBar().showMessage(text, timeout_ms)

    def reload_model(self) -> None:
        """Load the configured model in the background (the window stays usable meanwhile)."""
        self._set_backend(None)
        self.controller.load(self.settings.model)

    def use_backend(self, backend: Backend, *, owned: bool = True) -> None:
        """Switch to an already loaded backend (tests and demos); owned=False leaves it open at quit."""
        self._set_backend(None)
        self.controller.adopt(backend, owned)

    def add_status_widget(self, widget: QWidget) -> None:
        self.statusBar().addPermanentWidget(widget)

    def add_banner(self, widget: QWidget) -> None:
        """A strip above the conversation, for news that needs an answer (a better model is offered)."""
        self._column_layout.insertWidget(self._column_layout.indexOf(self.chat), widget)

    def add_notice(self, text: str, kind: str = "event") -> None:
        """A line in the conversation from the app itself (not logged, not sent to the model)."""
        self.chat.add_notice(text, kind)

    def quote_in_chat(self, text: str) -> None:
        """Bring the chat forward with `text` at the start of the message being written."""
        self.composer.edit.setPlainText(text + self.composer.edit.toPlainText())
        cursor = self.composer.edit.textCursor()
        cursor.movePosition(cursor.MoveOperation.End)
        self.composer.edit.setTextCursor(cursor)
        self.composer.edit.setFocus()

    # -- building ----------------------------------------------------------------

    def _build_central(self) -> None:
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.setObjectName("mainSplitter")
        column = QWidget()
        layout = QVBoxLayout(column)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        self.find_bar = self._build_find_bar()
        layout.addWidget(self.find_bar)
        self._column_layout = layout
        self.chat = ChatView(self.daylog)
        self.chat.copied.connect(lambda _t: self.show_message(self.tr("Copied."), 2000))
        self.chat.problems_found.connect(self._read_problems, Qt.ConnectionType.QueuedConnection)
        self._problems_shown: set[tuple[str, int]] = set()
        layout.addWidget(self.chat, 1)
        self.composer = Composer()
        self.composer.send_requested.connect(self.send)
        self.composer.stop_requested.connect(self.stop)
        self.composer.regenerate_requested.connect(self.regenerate)
        self.composer.edit.textChanged.connect(self._user_typing)
        self._read_ahead_timer = QTimer(self, singleShot=True, interval=READ_AHEAD_MS)
        self._read_ahead_timer.timeout.connect(self._read_draft_ahead)
        layout.addWidget(self.composer)
        self.memory_pane = MemoryPane(self.home, self.store, self.daylog)
        self.memory_pane.memory_changed.connect(self._memory_changed)
        self.chat.citation_clicked.connect(self.open_citation)
        self.chat.version_chosen.connect(self.session.choose_version)
        self.chat.delete_requested.connect(self.delete_message)
        self.chat.edit_requested.connect(self.edit_message)
        self._editing: str | None = None  # the user's last message, being edited in the composer
        self.splitter.addWidget(column)
        self.splitter.addWidget(self.memory_pane)
        self.splitter.setStretchFactor(0, 3)
        self.splitter.setStretchFactor(1, 2)
        self.splitter.setSizes([680, 500])
        self.setCentralWidget(self.splitter)
        self.composer.edit.setFocus()

    def _build_find_bar(self) -> QWidget:
        bar = QWidget()
        bar.setObjectName("findBar")
        row = QHBoxLayout(bar)
        row.setContentsMargins(12, 6, 12, 6)
        self.find_edit = QLineEdit()
        self.find_edit.setPlaceholderText(self.tr("Find in the conversation (Enter: older match, Shift+Enter: newer)"))
        self.find_edit.returnPressed.connect(self._find_enter)
        self.find_edit.textChanged.connect(self._find_changed)
        self.find_status = QLabel()
        self.find_status.setObjectName("findStatus")
        self.find_newer = self._find_button("▲", self.tr("Newer match (Shift+Enter)"), lambda: self.find_step(older=False))
        self.find_older = self._find_button("▼", self.tr("Older match (Enter)"), lambda: self.find_step(older=True))
        close = self._find_button("✕", self.tr("Close (Esc)"), self._close_find)
        row.addWidget(self.find_edit, 1)
        row.addWidget(self.find_status)
        row.addWidget(self.find_newer)
        row.addWidget(self.find_older)
        row.addWidget(close)
        self._find_query = ""
        self._find_hits: list[str] = []
        self._find_pos = -1
        bar.hide()
        return bar

    def _find_button(self, text: str, tip: str, slot: Callable[[], object]) -> QToolButton:
        button = QToolButton()
        button.setText(text)
        button.setToolTip(tip)
        button.setAutoRaise(True)
        button.clicked.connect(lambda _checked=False: slot())
        return button

    def _build_status_bar(self) -> None:
        bar = self.statusBar()
        self.model_label = QLabel(self.tr("No model"))
        self.model_label.setObjectName("modelLabel")
        self.progress = QProgressBar()
        self.progress.setRange(0, 0)
        self.progress.setMaximumWidth(120)
        self.progress.setMaximumHeight(14)
        self.progress.setTextVisible(False)
        self.progress.hide()
        self.speed_label = QLabel("")
        self.speed_label.setObjectName("speedLabel")
        bar.addPermanentWidget(self.progress)
        bar.addPermanentWidget(self.model_label)
        bar.addPermanentWidget(self.speed_label)

    def _action(self, menu: str, text: str, slot: Callable[[], object], shortcut: QKeySequence | str | None = None) -> QAction:
        action = QAction(text, self)
        if shortcut is not None:
            action.setShortcut(QKeySequence(shortcut))
        action.triggered.connect(lambda _checked=False: slot())
        self.menu(menu).addAction(action)
        return action

    def _build_menus(self) -> None:
        for title in MENU_ORDER:
            self.menu(title)
        self._action("&File", self.tr("Open memory folder"), self.open_memory_folder)
        self.menu("&File").addSeparator()
        self.quit_action = self._action("&File", self.tr("&Quit"), self.quit_app, QKeySequence.StandardKey.Quit)
        self.quit_action.setShortcut(QKeySequence("Ctrl+Q"))
        self.quit_action.setMenuRole(QAction.MenuRole.QuitRole)
        self.save_action = self._action("&Memory", self.tr("&Save memory file"), self.memory_pane.save_current,
                                        QKeySequence.StandardKey.Save)
        self._action("&Memory", self.tr("&History…"), self.memory_pane.show_history)
        self.pane_action = self._action("&Memory", self.tr("Show memory &pane"), self._toggle_pane, "Ctrl+M")
        self.pane_action.setCheckable(True)
        self.pane_action.setChecked(True)
        self.find_action = self._action("&Memory", self.tr("&Find in conversation…"), self.open_find,
                                        QKeySequence.StandardKey.Find)
        self.stop_action = QAction(self.tr("Stop"), self)
        self.stop_action.setShortcut(QKeySequence("Esc"))
        self.stop_action.triggered.connect(self.stop)
        self.addAction(self.stop_action)
        self.settings_action = self._action("&Settings", self.tr("&Preferences…"), self.open_settings, "Ctrl+,")
        self.settings_action.setMenuRole(QAction.MenuRole.PreferencesRole)
        self._action("&Help", self.tr("&About Companion"), self.show_about)

    def _connect_worker(self) -> None:
        worker = self.controller.worker
        worker.loading.connect(self._model_loading)
        worker.loaded.connect(self._model_loaded)
        worker.load_failed.connect(self._model_failed)
        worker.deltas.connect(self.chat.append_reply)
        worker.event.connect(self._turn_event)
        worker.busy_changed.connect(self.composer.set_busy)
        worker.busy_changed.connect(self.busy_changed)

    # -- chat ------------------------------------------------------------------

    def send(self, text: str) -> None:
        if self.controller.busy:
            return
        if self._editing is not None:  # edit and resend: the old message and its reply are taken back
            for record_id in [self._editing, *self.chat.after(self._editing)]:
                self.session.delete(record_id)
                self.chat.remove(record_id)
            self._editing = None
        if self._backend is None:
            self.show_message(self.tr("The model is still loading; your message will be answered when it is ready."))
        self._read_ahead_timer.stop()
        self.composer.set_busy(True)
        self.controller.send(text)

    def regenerate(self) -> None:
        if self.controller.busy:
            return
        self.composer.set_busy(True)
        self.chat.begin_reply()
        self.controller.regenerate()

    def edit_message(self, record_id: str) -> None:
        """Put the user's last message back in the composer; sending replaces it and its reply."""
        widget = self.chat.message(record_id)
        if widget is None or self.controller.busy:
            return
        self._editing = record_id
        self.composer.edit.setPlainText(widget.text())
        self.composer.edit.selectAll()
        self.composer.edit.setFocus()
        self.show_message(self.tr("Editing your last message: sending it replaces the message and its reply."), 8000)

    def delete_message(self, record_id: str) -> None:
        """Take a message back: logged as an event, off the screen, left out of what is learned."""
        widget = self.chat.message(record_id)
        ids = [rid for rid, _text in widget.versions] if widget is not None and widget.versions else [record_id]
        for rid in ids:
            self.session.delete(rid)
        self.chat.remove(record_id)
        if self._editing == record_id:
            self._editing = None
        self.show_message(self.tr("Message deleted: it is left out of the conversation and of what I learn."), 5000)

    def stop(self) -> None:
        if self.controller.busy:
            self.controller.cancel()

    def _turn_event(self, event: TurnEvent) -> None:
        """The one dispatcher of a turn's events (deltas arrive batched through `deltas`)."""
        handler = self._event_handlers.get(event.kind)
        if handler is not None:
            handler(event)

    @property
    def _event_handlers(self) -> dict[EventKind, Callable[..., None]]:
        return {
            EventKind.USER: self._on_user,
            EventKind.MEMORY: self._on_memory,
            EventKind.TRIMMED: self._on_trimmed,
            EventKind.TOOL: self._on_tool,
            EventKind.DONE: self._on_done,
            EventKind.ERROR: self._on_error,
        }

    def _on_user(self, event: UserLogged) -> None:
        if event.record is not None:
            self.chat.add_record(event.record)
        self.chat.begin_reply()  # "thinking…" until the first words

    def _on_memory(self, event: MemoryNote) -> None:
        notice = self.notices.for_note(event.text)  # what changed, with Undo
        forget_everywhere.offer(notice, event.forget, self.session, self.chat)

    def _on_trimmed(self, event: Trimmed) -> None:
        self.chat.replace_reply(event.text)  # the model looped: the reply keeps only the part before the loop

    def _on_tool(self, event: ToolRan) -> None:
        if event.record is not None:
            tool_actions.attach(self.chat.add_record(event.record), event.result, self.session, self.daylog)

    def _on_done(self, event: Done) -> None:
        self.chat.finish_reply(event.record, event.stats.cancelled)
        if event.record is not None and event.recalled:
            self.chat.set_recalled(event.record.id, list(event.recalled))
        if event.stats.tokens:
            self.speed_label.setText(self.tr("%1 tok/s").replace("%1", f"{event.stats.tokens_per_second:.1f}"))

    def _on_error(self, event: Failed) -> None:
        self.chat.drop_reply()
        self.chat.add_notice(event.text, "error")
        self.show_message(event.text, 10000)

    def open_citation(self, record_id: str) -> None:
        """A citation clicked in the chat: the day log at that record, in the memory pane."""
        self.memory_pane.show()
        self.pane_action.setChecked(True)
        self.memory_pane.open_citation(record_id)

    def _read_problems(self, problems: list[object]) -> None:
        """A damaged day-log line is skipped; the user hears of it once, with the file and line."""
        for problem in problems:
            key = (str(getattr(problem, "path", "")), int(getattr(problem, "line", 0)))
            if key in self._problems_shown:
                continue
            self._problems_shown.add(key)
            self.chat.add_notice(self.tr("Skipped a damaged line in the day log %1, line %2 (%3). The rest of "
                                         "the day is shown; the file is left as it is.")
                                 .replace("%1", str(getattr(problem, "path", "")))
                                 .replace("%2", str(key[1])).replace("%3", str(getattr(problem, "reason", ""))),
                                 "error")

    def _memory_changed(self, _name: str) -> None:
        if self._backend is not None and not self.controller.busy:
            self.controller.warm()

    def _greet_first_launch(self) -> None:
        """On a brand-new home the companion speaks first (the bootstrap conversation)."""
        if self.daylog.days() or not self.agent.in_bootstrap():
            return
        greeting = self.tr(
            "Hi! I'm your new companion. I live on this computer and keep what we talk about in a memory "
            "you can read and edit on the right.\n\nWhat should I call you? And how do you like to talk: "
            "short and to the point, or relaxed and chatty?"
        )
        self.daylog.append("assistant", greeting, greeting=True)

    # -- model ---------------------------------------------------------------

    def _user_typing(self) -> None:
        """Learning and the sleep job hold still while the user writes (the reply will want the cores);
        at a pause, the draft's prompt is read ahead."""
        self.session.user_active()
        self._read_ahead_timer.start()

    def _read_draft_ahead(self) -> None:
        text = self.composer.edit.toPlainText().strip()
        if not text or self._backend is None or self._editing is not None:
            return
        if self.controller.busy:  # a reply is being written: try again once it is done
            self._read_ahead_timer.start()
            return
        self.controller.read_ahead(text)

    def _set_backend(self, backend: Backend | None) -> None:
        self._backend = backend
        self.backend_changed.emit(backend)

    def _model_loading(self) -> None:
        self._set_backend(None)
        self.progress.show()
        self.model_label.setText(self.tr("Loading model…"))
        self.model_label.setToolTip("")

    def _model_loaded(self, backend: Backend) -> None:
        self.progress.hide()
        info = backend.info
        name = self.tr("SmolLM2 135M (built-in)") if info.name == EMBEDDED_LABEL else info.name
        self.model_label.setText(f"{name} · {self._device_text(info)}")
        self.model_label.setToolTip(info.path)
        self._set_backend(backend)
        for warning in info.warnings:
            self.chat.add_notice(warning)
        self.show_message(self.tr("Model ready."), 3000)

    def _device_text(self, info: ModelInfo) -> str:
        """Where the model runs, in the interface language: "CPU", "RTX 3060 · 31/31 layers", or its server."""
        if info.n_gpu_layers > 0 and not info.device.startswith("server"):
            return self.tr("{device} · {n}/{total} layers").format(
                device=info.gpu_name or "GPU", n=info.n_gpu_layers, total=info.total_layers or info.n_gpu_layers)
        return info.device or "CPU"

    def _model_failed(self, message: str) -> None:
        self.progress.hide()
        self.model_label.setText(self.tr("No model"))
        self.model_label.setToolTip(message)
        self._set_backend(None)
        text = self.tr("The model could not be loaded: %1\nYou can still read the conversation and edit "
                       "your memory. Choose another model file or lower the GPU layers in Settings, "
                       "then reload.").replace("%1", message)
        self.chat.add_notice(text, "error")
        self.show_message(self.tr("Model not loaded."), 10000)
        self.model_failed.emit(message)

    # -- menus -------------------------------------------------------------------

    def open_memory_folder(self) -> None:
        open_folder(str(self.home.memory))

    def open_find(self) -> None:
        self.find_bar.show()
        self.find_edit.setFocus()
        self.find_edit.selectAll()

    def _close_find(self) -> None:
        self._find_changed("")
        self.find_bar.hide()
        self.composer.edit.setFocus()

    def _find_enter(self) -> None:
        newer = bool(QApplication.keyboardModifiers() & Qt.KeyboardModifier.ShiftModifier)
        self.find_step(older=not newer)

    def _find_changed(self, _text: str) -> None:
        self._find_query, self._find_hits, self._find_pos = "", [], -1
        self.find_status.setText("")
        self.chat.reset_find()

    def find_step(self, older: bool = True) -> MessageWidget | None:
        """The next older (or newer) message holding the text, from the search index over every day;
        the view jumps to its day. The status says which match of how many."""
        query = self.find_edit.text().strip()
        if query != self._find_query:
            self._find_query, self._find_pos = query, -1
            try:
                self._find_hits = self.session.find(query) if query else []
            except CompanionError as exc:
                self._find_hits = []
                self.find_status.setText(str(exc))
                return None
        hits = self._find_hits
        if not hits:
            self.chat.reset_find()
            self.find_status.setText(self.tr("Not found") if query else "")
            return None
        for _ in range(len(hits)):  # a match deleted from the view meanwhile is skipped
            self._find_pos = (self._find_pos + (1 if older else -1)) % len(hits)
            widget = self.chat.show_record(hits[self._find_pos])
            if widget is not None:
                break
        total = f"{len(hits)}+" if len(hits) >= FIND_LIMIT else str(len(hits))
        self.find_status.setText(self.tr("%1 of %2").replace("%1", str(self._find_pos + 1)).replace("%2", total))
        return widget

    def _toggle_pane(self) -> None:
        self.memory_pane.setVisible(self.memory_pane.isHidden())
        self.pane_action.setChecked(not self.memory_pane.isHidden())

    def open_settings(self) -> None:
        from companion.ui.settings_dialog import SettingsDialog

        dialog = SettingsDialog(self, self)
        dialog.open()

    def show_about(self) -> None:
        from companion.ui.about import about_text

        QMessageBox.about(self, self.tr("About Companion"), about_text(self.home, self.session.recall_status()))

    # -- window state ---------------------------------------------------------

    def quit_app(self) -> bool:
        """Really quit, whatever the tray choice: the window closes the normal way (unsaved edits are
        asked about, the reply in progress is logged), then the app. False when the user cancelled."""
        self.quitting = True
        if not self.close():
            self.quitting = False
            return False
        self.quit_hook()
        return True

    def _state_file(self):  # -> Path
        return self.home.state / "window.json"

    def _restore_state(self) -> None:
        try:
            data = json.loads(self._state_file().read_text(encoding="utf-8"))
            self.restoreGeometry(QByteArray(base64.b64decode(data["geometry"])))
            self.splitter.restoreState(QByteArray(base64.b64decode(data["splitter"])))
            self.memory_pane.setVisible(bool(data.get("pane", True)))
            self.pane_action.setChecked(not self.memory_pane.isHidden())
            self.memory_pane.set_view(str(data.get("memory_view", BOTH)))
            if "memory_split" in data:
                self.memory_pane.restore_split(base64.b64decode(data["memory_split"]))
        except (OSError, ValueError, KeyError, TypeError):
            return

    def save_state(self) -> None:
        """Only a window on screen has a state worth keeping: a hidden one (in the tray) would save
        a hidden pane and a collapsed splitter."""
        if not self.isVisible():
            return
        data = {
            "geometry": base64.b64encode(bytes(self.saveGeometry().data())).decode("ascii"),
            "splitter": base64.b64encode(bytes(self.splitter.saveState().data())).decode("ascii"),
            "pane": not self.memory_pane.isHidden(),
            "memory_view": self.memory_pane.view(),  # the text, its reading view beside it, or the view
            "memory_split": base64.b64encode(self.memory_pane.split_state()).decode("ascii"),
        }
        try:
            atomic_write(self._state_file(), json.dumps(data))
        except Exception:  # losing the window size is not worth an error at exit
            log.exception("could not save the window state")

    def confirm_discard(self, names: list[str]) -> QMessageBox.StandardButton:
        buttons = QMessageBox.StandardButton
        return QMessageBox.question(
            self, self.tr("Unsaved memory edits"),
            self.tr("You have unsaved edits in %1. Save them before quitting?").replace("%1", ", ".join(names)),
            buttons.Save | buttons.Discard | buttons.Cancel, buttons.Save,
        )

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802 (Qt name)
        unsaved = self.memory_pane.unsaved()
        if unsaved:
            choice = self.confirm_discard(unsaved)
            if choice == QMessageBox.StandardButton.Cancel or (
                choice == QMessageBox.StandardButton.Save and not self.memory_pane.save_all()
            ):
                event.ignore()
                return
        self.save_state()
        self.shutdown()
        event.accept()

    def shutdown(self) -> None:
        """Cancel a reply in progress (what was said is logged), close the model, stop the thread."""
        self.start_steps.cancel()
        self.memory_pane.close_pane()
        self.notices.close()
        self.closing.emit()  # the sleep job and other background work stop before the model closes
        self.controller.shutdown()
        self._backend = None
