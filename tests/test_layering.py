"""The core packages never load Qt."""

from __future__ import annotations

import subprocess
import sys


def test_core_packages_do_not_import_pyside6():
    code = (
        "import sys, pkgutil, importlib\n"
        "import companion\n"
        "for pkg in ('memory', 'llm', 'agent', 'sleep'):\n"
        "    mod = importlib.import_module('companion.' + pkg)\n"
        "    for info in pkgutil.walk_packages(mod.__path__, mod.__name__ + '.'):\n"
        "        importlib.import_module(info.name)\n"
        "import companion.cli, companion.runtime, companion.settings\n"
        "print(sorted(m for m in sys.modules if m.startswith(('PySide6', 'shiboken6'))))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"
