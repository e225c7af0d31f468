"""Appearance: light, dark or the system's scheme, and the font size, applied to the whole app."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFont, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication

from companion.settings import WindowSettings

THEMES = ("system", "light", "dark")
FONT_SIZES = (0, 9, 10, 11, 12, 14, 16, 18)  # 0: the system's size


def dark_palette() -> QPalette:
    palette = QPalette()
    role, group = QPalette.ColorRole, QPalette.ColorGroup
    colors = {
        role.Window: "#202124", role.WindowText: "#e8eaed", role.Base: "#17181a", role.AlternateBase: "#26272b",
        role.ToolTipBase: "#2b2c30", role.ToolTipText: "#e8eaed", role.Text: "#e8eaed", role.Button: "#2b2c30",
        role.ButtonText: "#e8eaed", role.BrightText: "#ffffff", role.Highlight: "#3d6fb4",
        role.HighlightedText: "#ffffff", role.Link: "#8ab4f8", role.LinkVisited: "#c58af9",
        role.PlaceholderText: "#9aa0a6", role.Mid: "#3c4043", role.Dark: "#111214", role.Light: "#3c4043",
    }
    for which, color in colors.items():
        palette.setColor(which, QColor(color))
    for which in (role.Text, role.WindowText, role.ButtonText):
        palette.setColor(group.Disabled, which, QColor("#6b6f74"))
    return palette


def is_dark(palette: QPalette) -> bool:
    return palette.color(QPalette.ColorRole.Window).lightness() < 128


def apply_appearance(prefs: WindowSettings, app: QApplication | None = None) -> None:
    """Apply the theme and font size to the running app. The system's font size is kept on the app
    the first time, so size 0 ("system") goes back to it."""
    app = app or QApplication.instance()  # type: ignore[assignment]
    if not isinstance(app, QApplication):
        return
    theme = prefs.theme if prefs.theme in THEMES else "system"
    hints = QGuiApplication.styleHints()
    scheme = {"light": Qt.ColorScheme.Light, "dark": Qt.ColorScheme.Dark}.get(theme, Qt.ColorScheme.Unknown)
    if hasattr(hints, "setColorScheme"):  # Qt 6.8: the style follows ("system" goes back to the desktop's)
        hints.setColorScheme(scheme)
    app.setPalette(dark_palette() if theme == "dark" else app.style().standardPalette())
    system_size = app.property("systemPointSize")
    if system_size is None:
        system_size = app.font().pointSizeF()
        app.setProperty("systemPointSize", system_size)
    font = QFont(app.font())
    font.setPointSizeF(float(prefs.font_size) if prefs.font_size > 0 else float(system_size))
    app.setFont(font)
