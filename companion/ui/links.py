"""The one handler of every link in our views: a citation opens the day log, only http(s) leaves the
app, and only after the user has seen the address."""

from __future__ import annotations

from typing import Callable, Mapping

from PySide6.QtCore import QCoreApplication, Qt, QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QMessageBox, QWidget

SAFE_SCHEMES = ("http", "https")
RECORD_SCHEME = "record"


def _tr(text: str) -> str:
    return QCoreApplication.translate("Links", text)


def record_id(url: QUrl) -> str:
    """`record:2026-11-29#17` -> `2026-11-29#17`."""
    return f"{url.path()}#{url.fragment()}" if url.fragment() else url.path()


def _box(parent: QWidget, icon: QMessageBox.Icon, title: str, text: str,
         buttons: QMessageBox.StandardButton, default: QMessageBox.StandardButton) -> QMessageBox.StandardButton:
    """A message box that shows the address as text (an address can hold markup)."""
    box = QMessageBox(icon, title, text, buttons, parent)
    box.setTextFormat(Qt.TextFormat.PlainText)
    box.setDefaultButton(default)
    return QMessageBox.StandardButton(box.exec())


def _ask(parent: QWidget, url: QUrl) -> bool:
    buttons = QMessageBox.StandardButton
    answer = _box(parent, QMessageBox.Icon.Question, _tr("Open link?"),
                  _tr("Open this address in your browser?\n\n%1").replace("%1", url.toDisplayString()),
                  buttons.Open | buttons.Cancel, buttons.Cancel)
    return answer == buttons.Open


def _refuse(parent: QWidget, url: QUrl) -> None:
    _box(parent, QMessageBox.Icon.Information, _tr("Link not opened"),
         _tr("Only web links (http and https) open from the chat. This one was:\n\n%1").replace(
             "%1", url.toDisplayString()), QMessageBox.StandardButton.Ok, QMessageBox.StandardButton.Ok)


def open_link(
    parent: QWidget,
    link: str,
    *,
    ask: Callable[[QWidget, QUrl], bool] | None = None,
    refuse: Callable[[QWidget, QUrl], None] | None = None,
    opener: Callable[[QUrl], bool] | None = None,
    on_record: Callable[[str], object] | None = None,
    local: Mapping[str, Callable[[QUrl], object]] | None = None,
) -> bool:
    """Open `link` if it is a web address the user confirmed; True when it was opened.

    `record:2026-11-29#17` (a citation) goes to `on_record` where the view offers it."""
    ask, refuse = ask or _ask, refuse or _refuse
    opener = opener or QDesktopServices.openUrl
    url = QUrl(link, QUrl.ParsingMode.StrictMode)
    if local and url.scheme().lower() in local:  # a link of the view's own (an entry to edit)
        local[url.scheme().lower()](url)
        return True
    if url.scheme().lower() == RECORD_SCHEME and on_record is not None:
        on_record(record_id(url))
        return True
    if not url.isValid() or url.scheme().lower() not in SAFE_SCHEMES or not url.host():
        refuse(parent, url)
        return False
    if not ask(parent, url):
        return False
    return bool(opener(url))


def open_folder(path: str, opener: Callable[[QUrl], bool] = QDesktopServices.openUrl) -> bool:
    """Show one of our own folders (the memory folder) in the file manager."""
    return bool(opener(QUrl.fromLocalFile(path)))
