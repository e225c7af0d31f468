"""The About box text: versions and where the data lives."""

from __future__ import annotations

import html

from PySide6 import __version__ as pyside_version
from PySide6.QtCore import QCoreApplication, qVersion

from companion import __version__
from companion.llm.llama import engine_version
from companion.paths import Home


def about_text(home: Home, recall: str = "") -> str:
    """`recall`: how recall finds memories now (by words and meaning, or by words only and why)."""
    translate = QCoreApplication.translate
    rows = [
        (translate("About", "Companion"), __version__),
        (translate("About", "Model engine"), engine_version()),
        ("Qt / PySide6", f"{qVersion()} / {pyside_version}"),
        (translate("About", "Memory folder"), str(home.memory)),
        (translate("About", "Settings"), str(home.settings_file)),
        (translate("About", "App state and history"), str(home.state)),
        (translate("About", "Models"), str(home.models)),
    ]
    if recall:
        rows.insert(2, (translate("About", "Recall"), recall))
    table = "".join(f"<tr><td><b>{html.escape(k)}</b>&nbsp;&nbsp;</td><td>{html.escape(v)}</td></tr>" for k, v in rows)
    intro = translate("About", "An offline companion with a memory you own. Everything stays on this computer.")
    return f"<p>{html.escape(intro)}</p><table>{table}</table>"
