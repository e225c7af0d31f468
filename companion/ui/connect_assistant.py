"""Memory > Connect another assistant: what each assistant may see, the exact config to paste into
Claude Desktop or any MCP client, and the memories other assistants proposed (approve, decline, undo)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QTimer, Slot
from PySide6.QtGui import QAction, QGuiApplication
from PySide6.QtWidgets import (
    QCheckBox, QComboBox, QDialog, QDialogButtonBox, QGridLayout, QHBoxLayout, QLabel, QListWidget,
    QListWidgetItem, QMessageBox, QPlainTextEdit, QPushButton, QTabWidget, QVBoxLayout, QWidget,
)

from companion.agent.connect import claude_desktop_config, generic_config, issue_token
from companion.agent.sharing import SCOPES, allow, check_agent, parse_grants
from companion.curate.gate import MemoryWriter
from companion.curate.proposals import Pending, ProposalQueue
from companion.memory import entries as E
from companion.errors import CompanionError
from companion.ui.memory_notices import policy_reason
from companion.settings import save_settings

if TYPE_CHECKING:
    from companion.ui.extensions import WindowAPI

POLL_MS = 15_000  # how often the app looks for new proposals (a small file read)


class ConnectDialog(QDialog):
    """Per agent: the scopes (all off until ticked) and the two config snippets with Copy buttons."""

    def __init__(self, window: "WindowAPI") -> None:
        super().__init__(window.widget)
        self.window_ = window
        self.setWindowTitle(self.tr("Connect another assistant"))
        self.resize(680, 560)
        layout = QVBoxLayout(self)
        intro = QLabel(self.tr("Other assistants (Claude Desktop, Cursor, any MCP client) can ask Companion what it "
                               "knows about you. They see nothing until you tick what they may see. Private turns are "
                               "never shared, secrets are always hidden, and what they ask to remember waits for you."))
        intro.setWordWrap(True)
        layout.addWidget(intro)
        row = QHBoxLayout()
        row.addWidget(QLabel(self.tr("Assistant:")))
        self.agent = QComboBox()
        self.agent.setEditable(True)
        known = ["claude-desktop", "cursor", "openclaw"] + list(parse_grants(window.settings.sharing.agents))
        self.agent.addItems(list(dict.fromkeys(known)))
        self.agent.currentTextChanged.connect(self._load)
        row.addWidget(self.agent, 1)
        layout.addLayout(row)
        grid = QGridLayout()
        self.boxes: dict[str, QCheckBox] = {}
        for n, (scope, label) in enumerate(SCOPES.items()):
            box = QCheckBox(self._scope_label(scope, label))
            self.boxes[scope] = box
            grid.addWidget(box, n // 2, n % 2)
        layout.addLayout(grid)
        save = QPushButton(self.tr("Save what it may see"))
        save.clicked.connect(self._save)
        layout.addWidget(save)
        self.tabs = QTabWidget()
        self.claude, _ = self._snippet_tab(self.tr("Claude Desktop"))
        self.generic, generic_box = self._snippet_tab(self.tr("Other MCP client"))
        token = QPushButton(self.tr("New HTTP token"))
        token.clicked.connect(self._token)
        generic_box.addWidget(token)
        layout.addWidget(self.tabs, 1)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self._token_text: str | None = None
        self._load(self.agent.currentText())

    def _scope_label(self, scope: str, label: str) -> str:
        labels = {
            "search": self.tr("Search past conversations, memory files and digests"),
            "profile": self.tr("Read the profile (USER.md)"),
            "memory": self.tr("Read the long-term memory (MEMORY.md)"),
            "digests": self.tr("Read recent digests"),
            "upcoming": self.tr("Read what is upcoming"),
            "contacts": self.tr("See contact details unmasked"),
            "propose": self.tr("Propose memories (you approve each one)"),
        }
        return labels.get(scope, label)

    def _snippet_tab(self, title: str) -> tuple[QPlainTextEdit, QVBoxLayout]:
        page = QWidget()
        box = QVBoxLayout(page)
        text = QPlainTextEdit()
        text.setReadOnly(True)
        box.addWidget(text, 1)
        copy = QPushButton(self.tr("Copy"))
        copy.clicked.connect(lambda: QGuiApplication.clipboard().setText(text.toPlainText()))
        box.addWidget(copy)
        self.tabs.addTab(page, title)
        return text, box

    def _agent(self) -> str | None:
        try:
            return check_agent(self.agent.currentText().strip())
        except CompanionError:
            return None

    @Slot(str)
    def _load(self, _text: str = "") -> None:
        agent = self._agent()
        scopes = parse_grants(self.window_.settings.sharing.agents).get(agent or "", frozenset())
        for scope, box in self.boxes.items():
            box.setChecked(scope in scopes)
        self._token_text = None
        self._show_snippets()

    def _show_snippets(self) -> None:
        agent = self._agent()
        if agent is None:
            message = self.tr("An assistant's name is lowercase letters, digits, '.', '_' or '-'.")
            self.claude.setPlainText(message)
            self.generic.setPlainText(message)
            return
        home = self.window_.home.root
        port = self.window_.settings.sharing.http_port
        self.claude.setPlainText(self.tr("Add this to claude_desktop_config.json, then restart Claude Desktop:")
                                 + "\n\n" + claude_desktop_config(home, agent))
        self.generic.setPlainText(self.tr("stdio, or HTTP after running `companion mcp --http`:") + "\n\n"
                                  + generic_config(home, agent, port, self._token_text))

    @Slot()
    def _save(self) -> None:
        agent = self._agent()
        if agent is None:
            return
        settings = self.window_.settings
        allow(settings, agent, {s for s, box in self.boxes.items() if box.isChecked()})
        save_settings(self.window_.home.settings_file, settings)
        self.window_.settings_changed.emit()
        self.window_.show_message(self.tr("Saved what %1 may see.").replace("%1", agent))

    @Slot()
    def _token(self) -> None:
        agent = self._agent()
        if agent is None:
            return
        self._token_text = issue_token(self.window_.home, agent)
        self._show_snippets()
        self.tabs.setCurrentIndex(1)


class ProposalsDialog(QDialog):
    """What other assistants (and the other computer of a synced folder) proposed: approve, decline, undo."""

    def __init__(self, window: "WindowAPI") -> None:
        super().__init__(window.widget)
        self.window_ = window
        self.queue = ProposalQueue(window.home)
        self.setWindowTitle(self.tr("Proposed memories"))
        self.resize(620, 420)
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel(self.tr("Waiting for you:")))
        self.pending = QListWidget()
        layout.addWidget(self.pending, 2)
        row = QHBoxLayout()
        self.approve = QPushButton(self.tr("Save to memory"))
        self.decline = QPushButton(self.tr("Decline"))
        row.addWidget(self.approve)
        row.addWidget(self.decline)
        layout.addLayout(row)
        layout.addWidget(QLabel(self.tr("Saved:")))
        self.saved = QListWidget()
        layout.addWidget(self.saved, 1)
        self.undo = QPushButton(self.tr("Undo"))
        layout.addWidget(self.undo)
        self.approve.clicked.connect(lambda: self._decide("approve"))
        self.decline.clicked.connect(lambda: self._decide("decline"))
        self.undo.clicked.connect(lambda: self._decide("undo"))
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self.refresh()

    def refresh(self) -> None:
        self.pending.clear()
        self.saved.clear()
        for item in self.queue.items(None):
            target = self.pending if item.status == "pending" else self.saved if item.status == "approved" else None
            if target is not None:
                entry = QListWidgetItem(self._describe(item))
                entry.setData(256, item.id)  # Qt.UserRole
                target.addItem(entry)
        for button, source in ((self.approve, self.pending), (self.decline, self.pending), (self.undo, self.saved)):
            button.setEnabled(source.count() > 0)

    def _describe(self, item: Pending) -> str:
        if item.kind == "remember":
            return self.tr("%1 asks to remember: %2").replace("%1", item.source).replace("%2", item.text)
        def words(lines: list[str]) -> str:
            return " / ".join(E.entry_text(l) or l.strip() for l in lines if l.strip()) or self.tr("(nothing)")
        return (self.tr("%1 on the other computer: “%2” instead of “%3”")
                .replace("%1", item.file).replace("%2", words(item.theirs)).replace("%3", words(item.ours)))

    def _decide(self, how: str) -> None:
        source = self.saved if how == "undo" else self.pending
        current = source.currentItem() or (source.item(0) if source.count() else None)
        if current is None:
            return
        proposal_id = str(current.data(256))
        try:
            if how == "approve":
                self.queue.approve(proposal_id, MemoryWriter(self.window_.store))
            elif how == "decline":
                self.queue.decline(proposal_id)
            else:
                self.queue.undo(proposal_id, MemoryWriter(self.window_.store))
        except CompanionError as exc:
            refused = getattr(exc.__cause__, "decision", None)  # the write policy said no: its reason, translated
            text = (self.tr("Not saved: %1.").replace("%1", policy_reason(refused.reason)) if refused is not None
                    else str(exc))
            QMessageBox.warning(self, self.tr("Proposed memories"), text)
        self.refresh()


class ConnectGlue(QObject):
    """The two menu actions, and a notice in the chat when a new proposal arrives."""

    def __init__(self, window: "WindowAPI") -> None:
        super().__init__(window.widget)
        self.window = window
        self.queue = ProposalQueue(window.home)
        self.connect_action = QAction(self.tr("Connect another assistant…"), self)
        self.connect_action.triggered.connect(self.open_connect)
        self.proposals_action = QAction(self.tr("Proposed memories…"), self)
        self.proposals_action.triggered.connect(self.open_proposals)
        menu = window.menu("&Memory")
        menu.addSeparator()
        menu.addAction(self.connect_action)
        menu.addAction(self.proposals_action)
        self._known: set[str] = set()
        self.timer = QTimer(self)
        self.timer.setInterval(POLL_MS)
        self.timer.timeout.connect(self.poll)
        self.timer.start()
        window.closing.connect(self.timer.stop)
        self.poll()

    @Slot()
    def poll(self) -> None:
        try:
            pending = self.queue.items()
        except CompanionError:
            return
        new = [p for p in pending if p.id not in self._known]
        self._known = {p.id for p in pending}
        self.proposals_action.setText(self.tr("Proposed memories (%1)…").replace("%1", str(len(pending)))
                                      if pending else self.tr("Proposed memories…"))
        if new:
            self.window.add_notice(self.tr("%n proposed memory(s) wait for you: Memory > Proposed memories.", "", len(new)))

    @Slot()
    def open_connect(self) -> None:
        ConnectDialog(self.window).exec()

    @Slot()
    def open_proposals(self) -> None:
        ProposalsDialog(self.window).exec()
        self.poll()


def install(window: "WindowAPI") -> ConnectGlue:
    glue = ConnectGlue(window)
    window.connect_assistant = glue  # type: ignore[attr-defined]
    return glue
