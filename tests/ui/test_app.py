"""Starting the app: one instance per home, crash logs shown at the next start, translations."""

from __future__ import annotations

import pytest

import argparse
import faulthandler

from PySide6.QtCore import QCoreApplication, QLocale
from PySide6.QtWidgets import QMessageBox

from companion.filelock import ProcessLock
from companion.paths import Home
from companion.ui import app as app_module


def test_second_instance_shows_a_clear_message_and_exits_1(qapp, home: Home, monkeypatch) -> None:
    shown: list[str] = []
    monkeypatch.setattr(QMessageBox, "warning", lambda _parent, _title, text: shown.append(text))
    home.state.mkdir(parents=True, exist_ok=True)
    lock = ProcessLock(home.lock_file)
    assert lock.acquire()
    try:
        code = app_module.run(argparse.Namespace(home=str(home.root)))
    finally:
        lock.release()
    assert code == 1
    assert shown and "already running" in shown[0]


def test_a_crash_log_is_handed_over_at_the_next_start(home: Home) -> None:
    crash = home.state / app_module.CRASH_LOG
    crash.write_text("Fatal Python error: Segmentation fault\n", encoding="utf-8")
    previous, handle = app_module.start_crash_log(home)
    try:
        assert previous is not None and "Segmentation fault" in previous
        assert (home.state / "crash-previous.log").exists()
        assert faulthandler.is_enabled()
    finally:
        app_module.stop_crash_log(home, handle)
    assert not crash.exists()  # a clean exit leaves no crash log behind


def test_chinese_translation_is_installed_for_a_chinese_locale(qapp) -> None:
    translators = app_module.install_translators(qapp, QLocale(QLocale.Language.Chinese, QLocale.Country.China))
    try:
        assert translators
        assert QCoreApplication.translate("MainWindow", "&File") != "&File"
    finally:
        for translator in translators:
            qapp.removeTranslator(translator)
    assert QCoreApplication.translate("MainWindow", "&File") == "&File"


@pytest.mark.slow
def test_sigterm_closes_the_app_cleanly(tmp_path):
    """Logout or `kill` closes the window the normal way (model closed, exit code 0)."""
    import os
    import signal
    import subprocess
    import sys
    import time

    env = {**os.environ, "COMPANION_HOME": str(tmp_path / "h"), "QT_QPA_PLATFORM": "offscreen"}
    proc = subprocess.Popen([sys.executable, "-m", "companion"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    lock = tmp_path / "h" / "state" / "companion.lock"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not (lock.exists() and lock.read_text().strip()):
        time.sleep(0.2)
    time.sleep(3)  # the window is up and the model loading or loaded
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err.decode(errors="replace")


@pytest.mark.slow
def test_the_qt_binding_does_not_lose_references_to_none(qapp) -> None:
    """PySide6 6.12.0 dropped a reference to None on every call returning void; on Python 3.11 the
    app then aborts ("deallocating None") in the middle of a long reply."""
    import gc
    import sys

    from PySide6.QtWidgets import QLabel

    label = QLabel()
    gc.collect()
    before = sys.getrefcount(None)
    for _ in range(3000):
        label.setEnabled(not label.isEnabled())
    gc.collect()
    assert sys.getrefcount(None) > before - 500
