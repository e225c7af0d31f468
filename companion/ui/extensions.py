"""Feature modules that plug into the main window: each exposes `install(window)`."""

from __future__ import annotations

import importlib
import logging
from typing import Any

log = logging.getLogger(__name__)

# Module names, imported when the main window is built; each calls into the window's public API
# (home, settings, store, agent, backend, backend_changed, menu(), show_message(), reload_model(),
# add_status_widget()). Add one line per feature module.
EXTENSION_MODULES: tuple[str, ...] = (
    "companion.ui.portability",
    "companion.ui.sleep_glue",
    "companion.ui.model_settings",
    "companion.ui.model_offer",
    "companion.ui.tray",
    "companion.ui.reminder_glue",
    "companion.ui.private_toggle",
)


def install_extensions(window: Any, modules: tuple[str, ...] | None = None) -> list[str]:
    """Import and install each module; a failing one is logged and skipped. Returns those installed."""
    installed: list[str] = []
    for name in EXTENSION_MODULES if modules is None else modules:
        try:
            module = importlib.import_module(name)
            module.install(window)
        except Exception:  # one broken feature must not keep the app from opening
            log.exception("UI extension %s could not be installed; skipped", name)
            continue
        installed.append(name)
    return installed
