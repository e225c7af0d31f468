"""Memory changes in the chat: what "remember", "forget" and daytime learning changed in SOUL, USER
and MEMORY, said in the user's language, each with Undo. (A tool's change has its own notice,
`tool_actions`; the night's changes are in the sleep report.)"""

from __future__ import annotations

from typing import Callable

from PySide6.QtCore import QCoreApplication, QLocale, QObject, Qt, Signal

from companion.curate.gate import MemoryWriter
from companion.curate.policy import reason_in
from companion.errors import CompanionError, ConflictError
from companion.memory import entries as E
from companion.memory.daylog import DayLog
from companion.memory.document import split_frontmatter
from companion.memory.history import Actor
from companion.memory.longterm import Change, LongTermStore
from companion.ui.message_widget import MessageWidget

# a request in the message: shown with the turn's note
REQUEST_ACTORS = (Actor.REMEMBER.value, Actor.FORGET.value, Actor.REMINDER.value, Actor.BOOTSTRAP.value)
LEARN_ACTORS = (Actor.LEARN.value,)  # daytime learning: shown as soon as it happens
SHOWN_ENTRIES = 3


def policy_reason(reason: str) -> str:
    """The write policy's reason for a refusal in the language the window speaks."""
    return reason_in(reason, QLocale().language() == QLocale.Language.Chinese)


def _tr(text: str) -> str:
    return QCoreApplication.translate("MemoryNotices", text)


def _entries(body: str) -> list[str]:
    return [line for line in body.splitlines() if E.is_entry(line)]


def _body(raw: str) -> str:
    try:
        return split_frontmatter(raw)[2]
    except CompanionError:
        return raw


def added_and_removed(change: Change) -> tuple[list[str], list[str]]:
    """The entries a change added and those it removed (entry text, citations left out)."""
    before, after = _entries(_body(change.before)), _entries(change.after.body)
    kept_before, kept_after = set(before), set(after)
    added = [E.entry_text(line) for line in after if line not in kept_before]
    removed = [E.entry_text(line) for line in before if line not in kept_after]
    return [a for a in added if a], [r for r in removed if r]


def _list(items: list[str]) -> str:
    shown = "; ".join(items[:SHOWN_ENTRIES])
    return shown + (" …" if len(items) > SHOWN_ENTRIES else "")


def describe(changes: list[Change], learned: bool) -> str:
    """What the changes did, one line per file. A removed entry is counted, never quoted: what the
    user asked to forget leaves the screen with the memory."""
    lines = []
    for change in changes:
        added, removed = added_and_removed(change)
        if added and removed:
            line = _tr("Updated %1: %2").replace("%2", _list(added))
        elif added:
            line = (_tr("Learned from the conversation, in %1: %2") if learned else
                    _tr("Remembered in %1: %2")).replace("%2", _list(added))
        elif removed:
            line = (_tr("Forgot 1 entry in %1") if len(removed) == 1 else
                    _tr("Forgot %n entries in %1", "", len(removed)).replace("%n", str(len(removed))))
        else:
            line = _tr("Changed %1")
        lines.append(line.replace("%1", change.name))
    return "\n".join(lines)


class UndoChanges:
    """The Undo button of one notice: puts each file back as it was, unless it changed since."""

    def __init__(self, notice: MessageWidget, changes: list[Change], store: LongTermStore, daylog: DayLog) -> None:
        self.notice, self.changes, self.store, self.daylog = notice, list(changes), store, daylog
        self.button = notice.add_action(_tr("Undo"), _tr("Put the memory back as it was before this change"),
                                        self.undo)
        self.undone = False

    def undo(self) -> bool:
        try:
            writer = MemoryWriter(self.store)
            for change in reversed(self.changes):
                writer.write(change.name, change.before, actor=Actor.RESTORE, expected_sha=change.after.sha)
        except ConflictError:
            self.notice.set_note(_tr("changed again since: use History to take it back"))
            return False
        except CompanionError as exc:
            self.notice.set_note(str(exc))
            return False
        names = ", ".join(dict.fromkeys(c.name for c in self.changes))
        self.daylog.append("event", f"Undid a memory change in {names}.")
        self.button.hide()
        self.notice.set_note(_tr("undone"))
        self.undone = True
        return True


class MemoryNotices(QObject):
    """Collects every change the store reports (from any thread) and shows it in the chat."""

    _changed = Signal(object)  # a Change, from whatever thread wrote it

    def __init__(self, store: LongTermStore, daylog: DayLog, add_notice: Callable[[str], MessageWidget],
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.store, self.daylog, self.add_notice = store, daylog, add_notice
        self.pending: list[Change] = []  # changes by a request, waiting for the turn's note
        self.shown: list[UndoChanges] = []
        self._changed.connect(self._on_change, Qt.ConnectionType.QueuedConnection)
        store.subscribe_changes(self._changed.emit)

    def close(self) -> None:
        self.store.unsubscribe_changes(self._changed.emit)

    def _on_change(self, change: Change) -> None:
        if change.actor in REQUEST_ACTORS:
            self.pending.append(change)
        elif change.actor in LEARN_ACTORS:
            self.show([change], learned=True)

    def show(self, changes: list[Change], learned: bool = False, text: str | None = None) -> MessageWidget:
        notice = self.add_notice(text or describe(changes, learned))
        if changes:
            self.shown.append(UndoChanges(notice, changes, self.store, self.daylog))
            notice.undo_changes = self.shown[-1]  # type: ignore[attr-defined]  # lives as long as its notice
        return notice

    def for_note(self, fallback: str) -> MessageWidget:
        """The notice of a turn's memory request: what it changed, with Undo (else the request's own answer)."""
        changes, self.pending = self.pending, []
        return self.show(changes, text=None if changes else fallback)
