"""The seam between the main window and its feature modules: the typed WindowAPI, and nothing past it."""

from __future__ import annotations

import ast
import importlib
import inspect

from companion.ui.extensions import EXTENSION_MODULES, WindowAPI
from companion.ui.main_window import MainWindow

MEMBERS = {name for name in dir(WindowAPI) if not name.startswith("_")} | set(WindowAPI.__annotations__)


def _window_reads(source: str) -> set[str]:
    """Attributes a module reads from `window` / `self.window` (assignments, e.g. registering itself, are allowed)."""
    read: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Attribute) or not isinstance(node.ctx, ast.Load):
            continue
        owner = node.value
        if isinstance(owner, ast.Name) and owner.id in ("window", "window_"):
            read.add(node.attr)
        elif isinstance(owner, ast.Attribute) and owner.attr in ("window", "window_") and isinstance(owner.value, ast.Name):
            read.add(node.attr)
    return read


def test_the_main_window_provides_every_member_of_the_api(make_window) -> None:
    window = make_window()
    missing = sorted(name for name in MEMBERS if not hasattr(window, name))
    assert missing == []
    assert window.widget is window and isinstance(window, MainWindow)


def test_feature_modules_use_only_the_api() -> None:
    wrong = {}
    for name in EXTENSION_MODULES:
        beyond = _window_reads(inspect.getsource(importlib.import_module(name))) - MEMBERS
        if beyond:
            wrong[name] = sorted(beyond)
    assert wrong == {}
