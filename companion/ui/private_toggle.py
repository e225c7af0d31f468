"""The "Don't remember this" toggle: pauses memory for the turns that follow, and says how many stayed private."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt, Slot
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QToolButton

if TYPE_CHECKING:
    from companion.ui.extensions import WindowAPI


class PrivacyToggle(QObject):
    """A checkable button in the status bar and the same action in the Memory menu."""

    def __init__(self, window: "WindowAPI") -> None:
        super().__init__(window.widget)
        self.window = window
        self.action = QAction(self.tr("Don't remember this"), self)
        self.action.setCheckable(True)
        self.action.setShortcut(QKeySequence("Ctrl+Shift+P"))
        self.action.setToolTip(self.tr("While on, what you say is kept in the day log as private: never learned, "
                                       "recalled, distilled at night or exported (Ctrl+Shift+P)"))
        self.action.toggled.connect(self.set_private)
        window.menu("&Memory").addSeparator()
        window.menu("&Memory").addAction(self.action)
        self.button = QToolButton()
        self.button.setObjectName("privateToggle")
        self.button.setDefaultAction(self.action)
        self.button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        self.button.setAutoRaise(True)
        window.add_status_widget(self.button)

    @property
    def on(self) -> bool:
        return self.window.session.private

    @Slot(bool)
    def set_private(self, on: bool) -> None:
        if self.action.isChecked() != on:
            self.action.setChecked(on)  # toggled() calls back here once more
            return
        session = self.window.session
        if on == session.private:
            return
        if on:
            session.set_private(True)
            self.action.setText(self.tr("Not remembering"))
            self.window.add_notice(self.tr("Memory paused: what you say now stays in the day log as private and is "
                                           "never learned, recalled or exported. Turn it off to remember again."))
        else:
            turns = session.set_private(False)
            self.action.setText(self.tr("Don't remember this"))
            self.window.add_notice(self.tr("Remembering again. %n turn(s) stayed private.", "", turns))
        self.button.setProperty("active", on)
        self.button.style().unpolish(self.button)
        self.button.style().polish(self.button)


def install(window: "WindowAPI") -> PrivacyToggle:
    toggle = PrivacyToggle(window)
    window.privacy_toggle = toggle  # type: ignore[attr-defined]
    return toggle
