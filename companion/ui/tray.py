"""The system tray icon: Open, Sleep now, Quit; closing the window can keep Companion running there."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Callable

from PySide6.QtCore import QEvent, QObject
from PySide6.QtGui import QAction, QIcon
from PySide6.QtWidgets import QApplication, QMenu, QMessageBox, QSystemTrayIcon

from companion.errors import CompanionError
from companion.settings import save_settings

if TYPE_CHECKING:
    from companion.ui.extensions import WindowAPI

log = logging.getLogger(__name__)
NOTIFY_MS = 20_000


class TrayController(QObject):
    """Owns the tray icon and desktop notifications. Without a tray (some desktops, tests) nothing is
    kept running in the background and notifications fall back to the window's status bar."""

    def __init__(self, window: "WindowAPI", *, available: bool | None = None) -> None:
        super().__init__(window.widget)
        self.window = window
        self.main = window.widget  # the top-level window that hides into the tray
        self.available = QSystemTrayIcon.isSystemTrayAvailable() if available is None else available
        self.quit_app: Callable[[], None] = QApplication.quit
        self.in_tray = False  # the window is hidden, Companion keeps running
        self._on_click: Callable[[], None] | None = None
        icon = self.main.windowIcon()
        self.icon = QSystemTrayIcon(icon if not icon.isNull() else QIcon.fromTheme("user-available"), self)
        self.icon.setToolTip(self.tr("Companion"))
        self.menu = QMenu()
        self.open_action = self._add(self.tr("Open"), self.open_window)
        self.sleep_action = self._add(self.tr("Sleep now"), self.sleep_now)
        self.menu.addSeparator()
        self.quit_action = self._add(self.tr("Quit"), self.quit)
        self.icon.setContextMenu(self.menu)
        self.icon.activated.connect(self._activated)
        self.icon.messageClicked.connect(self._message_clicked)
        if self.available:
            self.icon.show()
        self.main.installEventFilter(self)

    def _add(self, text: str, slot: Callable[[], None]) -> QAction:
        action = QAction(text, self)
        action.triggered.connect(lambda _checked=False: slot())
        self.menu.addAction(action)
        return action

    # -- actions -----------------------------------------------------------------

    def open_window(self) -> None:
        self.in_tray = False
        QApplication.setQuitOnLastWindowClosed(True)
        self.main.showNormal()
        self.main.raise_()
        self.main.activateWindow()

    def sleep_now(self) -> None:
        controller = getattr(self.window, "sleep_controller", None)  # the sleep module, when installed
        if controller is None:
            self.notify(self.tr("Companion"), self.tr("Nightly sleep is not available."))
        elif not controller.running:
            controller.run_now()

    def quit(self) -> None:
        """Really quit: the window closes the normal way (unsaved edits are asked about), then the app."""
        self.window.quitting = True
        closed = self.main.close()
        if closed:
            self.icon.hide()
            self.quit_app()
        else:
            self.window.quitting = False

    def _activated(self, reason: QSystemTrayIcon.ActivationReason) -> None:
        if reason in (QSystemTrayIcon.ActivationReason.Trigger, QSystemTrayIcon.ActivationReason.DoubleClick):
            self.open_window()

    # -- closing to the tray -------------------------------------------------------

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt name)
        closing = watched is self.main and event.type() == QEvent.Type.Close
        if closing and not self.window.quitting and self.keep_in_tray():
            event.ignore()
            self.hide_to_tray()
            return True
        return False

    def keep_in_tray(self) -> bool:
        """The preference; asked once, on the first close where a tray exists."""
        if not self.available:
            return False
        prefs = self.window.settings.window
        if not prefs.tray_asked:
            prefs.keep_in_tray = self.ask_keep_in_tray()
            prefs.tray_asked = True
            try:
                save_settings(self.window.home.settings_file, self.window.settings)
            except CompanionError as exc:
                log.warning("could not save the tray preference: %s", exc)
        return prefs.keep_in_tray

    def ask_keep_in_tray(self) -> bool:
        buttons = QMessageBox.StandardButton
        answer = QMessageBox.question(
            self.main, self.tr("Keep Companion running?"),
            self.tr("Keep Companion running in the system tray when its window is closed? Then the nightly "
                    "sleep and your reminders still happen. You can change this in Preferences."),
            buttons.Yes | buttons.No, buttons.Yes,
        )
        return answer == buttons.Yes

    def hide_to_tray(self) -> None:
        self.window.save_state()  # while the window is still on screen: a restart after Quit from the tray finds it as it was
        self.main.hide()
        self.in_tray = True
        QApplication.setQuitOnLastWindowClosed(False)  # a dialog closing while hidden must not quit
        self.notify(self.tr("Companion is still running"),
                    self.tr("Reminders and the nightly sleep keep working. Use the tray icon to open or quit."))

    # -- notifications ----------------------------------------------------------------

    def notify(self, title: str, text: str, on_click: Callable[[], None] | None = None) -> None:
        """A desktop notification (clicking it runs `on_click`); the status bar when there is no tray."""
        self._on_click = on_click
        if self.available and self.icon.supportsMessages():
            self.icon.showMessage(title, text, QSystemTrayIcon.MessageIcon.Information, NOTIFY_MS)
        else:
            self.window.show_message(f"{title}: {text}", NOTIFY_MS)
            QApplication.alert(self.main)

    def _message_clicked(self) -> None:
        self.open_window()
        callback, self._on_click = self._on_click, None
        if callback is not None:
            callback()

    def shutdown(self) -> None:
        self.icon.hide()


def install(window: "WindowAPI") -> TrayController:
    tray = TrayController(window)
    window.tray = tray  # type: ignore[attr-defined]
    return tray
