"""Links in messages: only http(s) opens, and only after the user has seen the address."""

from __future__ import annotations

from typing import Callable

from PySide6.QtCore import QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QMessageBox, QWidget

SAFE_SCHEMES = ("http", "https")


def _ask(parent: QWidget, url: QUrl) -> bool:
    shown = url.toDisplayString()
    answer = QMessageBox.question(
        parent,
        parent.tr("Open link?"),
        parent.tr("Open this address in your browser?\n\n%1").replace("%1", shown),
        QMessageBox.StandardButton.Open | QMessageBox.StandardButton.Cancel,
        QMessageBox.StandardButton.Cancel,
    )
    return answer == QMessageBox.StandardButton.Open


def _refuse(parent: QWidget, url: QUrl) -> None:
    QMessageBox.information(
        parent,
        parent.tr("Link not opened"),
        parent.tr("Only web links (http and https) open from the chat. This one was:\n\n%1").replace(
            "%1", url.toDisplayString()
        ),
    )


def open_link(
    parent: QWidget,
    link: str,
    *,
    ask: Callable[[QWidget, QUrl], bool] = _ask,
    refuse: Callable[[QWidget, QUrl], None] = _refuse,
    opener: Callable[[QUrl], bool] = QDesktopServices.openUrl,
) -> bool:
    """Open `link` if it is a web address the user confirmed; True when it was opened."""
    url = QUrl(link, QUrl.ParsingMode.StrictMode)
    if not url.isValid() or url.scheme().lower() not in SAFE_SCHEMES or not url.host():
        refuse(parent, url)
        return False
    if not ask(parent, url):
        return False
    return bool(opener(url))


def open_folder(path: str, opener: Callable[[QUrl], bool] = QDesktopServices.openUrl) -> bool:
    """Show one of our own folders (the memory folder) in the file manager."""
    return bool(opener(QUrl.fromLocalFile(path)))
