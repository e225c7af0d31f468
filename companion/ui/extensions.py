"""Feature modules that plug into the main window: each exposes `install(window: WindowAPI)`."""

from __future__ import annotations

import importlib
import logging
from typing import Protocol

from PySide6.QtCore import SignalInstance
from PySide6.QtWidgets import QMenu, QWidget

from companion.agent.session import ChatSession
from companion.memory.longterm import LongTermStore
from companion.paths import Home
from companion.settings import Settings

log = logging.getLogger(__name__)

# Module names, imported when the main window is built. Add one line per feature module.
EXTENSION_MODULES: tuple[str, ...] = (
    "companion.ui.portability",
    "companion.ui.sleep_glue",
    "companion.ui.model_settings",
    "companion.ui.model_offer",
    "companion.ui.tray",
    "companion.ui.reminder_glue",
    "companion.ui.private_toggle",
    "companion.ui.connect_assistant",
)


class WindowAPI(Protocol):
    """What a feature module may use of the main window, and nothing more: it never reaches into
    the window's other attributes (nor the agent's backend; background work asks the session)."""

    home: Home
    settings: Settings
    store: LongTermStore
    session: ChatSession  # the model's owner: `session.background()` for work that yields to chat
    backend_changed: SignalInstance  # the chat model was loaded (a Backend) or unloaded (None)
    settings_changed: SignalInstance  # settings.toml was saved from Preferences
    busy_changed: SignalInstance  # a reply started (True) or ended (False)
    closing: SignalInstance  # the window is closing: stop background work now, before the model closes
    model_failed: SignalInstance  # loading the configured model failed (str: the reason)
    quitting: bool  # Quit was asked for: a close now really quits (the tray lets it through)

    @property
    def widget(self) -> QWidget:
        """The window as a parent for dialogs and objects a feature module creates."""
        ...

    def menu(self, title: str) -> QMenu: ...

    def show_message(self, text: str, timeout_ms: int = 5000) -> None: ...

    def add_status_widget(self, widget: QWidget) -> None: ...

    def reload_model(self) -> None: ...

    def add_banner(self, widget: QWidget) -> None: ...

    def add_notice(self, text: str, kind: str = "event") -> None: ...

    def quote_in_chat(self, text: str) -> None: ...

    def quit_app(self) -> bool:
        """Close the window and quit, whatever the tray choice; False when the user cancelled."""
        ...

    def save_state(self) -> None:
        """Keep the window's size, splitter and pane (only while it is on screen)."""
        ...


def install_extension(window: WindowAPI, name: str) -> bool:
    """Import and install one module; a failing one is logged and skipped (False)."""
    try:
        module = importlib.import_module(name)
        module.install(window)
    except Exception:  # one broken feature must not keep the app from opening
        log.exception("UI extension %s could not be installed; skipped", name)
        return False
    return True


def install_extensions(window: WindowAPI, modules: tuple[str, ...] | None = None) -> list[str]:
    """Import and install each module; a failing one is logged and skipped. Returns those installed."""
    return [name for name in (EXTENSION_MODULES if modules is None else modules) if install_extension(window, name)]
