"""After "forget ..." in the chat: a button that also erases it from past conversations, digests,
earlier versions, backups and the search index, after showing where it was found."""

from __future__ import annotations

from typing import Callable, Protocol

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QMessageBox, QWidget

from companion.errors import CompanionError
from companion.memory.forget import Erased
from companion.ui.chat_view import ChatView
from companion.ui.message_widget import MessageWidget


def _tr(text: str) -> str:
    return QCoreApplication.translate("ForgetEverywhere", text)


def _ask(parent: QWidget, where: str) -> bool:
    answer = QMessageBox.question(
        parent,
        _tr("Forget everywhere?"),
        _tr("Also found in %1.\n\nErase it there too? This cannot be undone.").replace("%1", where),
        QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel,
        QMessageBox.StandardButton.Cancel,
    )
    return answer == QMessageBox.StandardButton.Yes


class Forgetter(Protocol):
    """What the button asks of the chat session."""

    def forget_everywhere(self, what: str, *, dry_run: bool = False) -> Erased | None: ...


class ForgetEverywhere:
    """The button on one "forget" notice, and what it does."""

    def __init__(self, notice: MessageWidget, what: str, session: Forgetter, chat: ChatView,
                 ask: Callable[[QWidget, str], bool] = _ask) -> None:
        self.notice, self.what, self.session, self.chat, self.ask = notice, what, session, chat, ask
        self.button = notice.add_action(
            _tr("Forget everywhere…"),
            _tr("Also erase it from past conversations, digests, earlier versions and backups"),
            self.run,
        )

    def run(self) -> None:
        try:
            found = self.session.forget_everywhere(self.what, dry_run=True)
            if found is None or not found.found:
                self.notice.set_note(_tr("nothing else to erase"))
                self.button.hide()
                return
            if not self.ask(self.notice, found.summary()):
                return
            erased = self.session.forget_everywhere(self.what)
        except CompanionError as exc:
            self.notice.set_note(str(exc))
            return
        for record_id, text in (erased.texts if erased else {}).items():  # what is on screen goes too
            widget = self.chat.message(record_id)
            if widget is not None:
                widget.set_text(text)
        self.notice.set_note(_tr("erased everywhere"))
        self.button.hide()


def offer(notice: MessageWidget, what: object, session: Forgetter, chat: ChatView) -> ForgetEverywhere | None:
    if not isinstance(what, str) or not what:
        return None
    action = ForgetEverywhere(notice, what, session, chat)
    notice.forget_everywhere = action  # type: ignore[attr-defined]  # lives as long as its notice
    return action
