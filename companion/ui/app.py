"""Start the desktop app: lock the home, show the window at once, load the model in the background."""

from __future__ import annotations

import argparse
import faulthandler
import logging
import signal
import sys
from pathlib import Path
from typing import IO, TYPE_CHECKING

from PySide6.QtCore import QCoreApplication, QLibraryInfo, QLocale, QTimer, QTranslator
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QApplication, QMessageBox, QWidget

from companion.errors import AlreadyRunningError, CompanionError
from companion.paths import Home, resources_dir
from companion.runtime import Runtime, open_home
from companion.ui.jobs import exit_if_stuck

if TYPE_CHECKING:
    from companion.ui.main_window import MainWindow

log = logging.getLogger(__name__)
CRASH_LOG = "crash.log"


def _app() -> QApplication:
    app = QApplication.instance()
    if not isinstance(app, QApplication):
        app = QApplication(sys.argv[:1])
        app.setDesktopFileName("companion")  # ties the window to companion.desktop (icon, name) on Wayland
    app.setApplicationName("Companion")
    app.setOrganizationName("Companion")
    app.setApplicationDisplayName("Companion")
    return app


def _resource(*parts: str) -> Path | None:
    try:
        path = resources_dir().joinpath(*parts)
    except FileNotFoundError:
        return None
    return path if path.exists() else None


def install_translators(app: QApplication, locale: QLocale | None = None) -> list[QTranslator]:
    """Companion's own and Qt's translations for the system language (English needs none)."""
    locale = locale or QLocale.system()
    installed = []
    folder = _resource("translations")
    qt_folder = QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)
    for name, where in (("companion", str(folder) if folder else ""), ("qtbase", qt_folder)):
        translator = QTranslator(app)
        if where and translator.load(locale, name, "_", where):
            app.installTranslator(translator)
            installed.append(translator)
    return installed


def apply_style(app: QApplication) -> None:
    app.setStyle("Fusion")  # follows the system's light/dark scheme on every platform
    sheet = _resource("styles", "companion.qss")
    if sheet is not None:
        app.setStyleSheet(sheet.read_text(encoding="utf-8"))
    for icon in ("companion.svg", "companion.png"):
        path = _resource("icons", icon)
        if path is not None:
            app.setWindowIcon(QIcon(str(path)))
            break


def start_crash_log(home: Home) -> tuple[str | None, IO[str] | None]:
    """Text of a crash log left by the last run (then archived), and the file native crashes go to now."""
    path = home.state / CRASH_LOG
    previous = None
    try:
        if path.exists() and path.stat().st_size > 0:
            previous = path.read_text(encoding="utf-8", errors="replace")
            path.replace(path.with_name("crash-previous.log"))
        handle = open(path, "w", encoding="utf-8")  # noqa: SIM115 (open for the whole run)
        faulthandler.enable(handle)
        return previous, handle
    except OSError:
        log.warning("could not set up the crash log at %s", path)
        return previous, None


def stop_crash_log(home: Home, handle: IO[str] | None) -> None:
    if handle is None:
        return
    faulthandler.disable()
    handle.close()
    path = home.state / CRASH_LOG
    try:
        if path.stat().st_size == 0:
            path.unlink()
    except OSError:
        pass


def run(args: argparse.Namespace) -> int:
    app = _app()
    install_translators(app)
    apply_style(app)
    try:
        runtime = open_home(getattr(args, "home", None), language=QLocale.system().name())
    except AlreadyRunningError as exc:
        QMessageBox.warning(None, app.translate("App", "Companion is already running"), str(exc))
        return 1
    except CompanionError as exc:
        QMessageBox.critical(None, app.translate("App", "Companion cannot start"), str(exc))
        return 1
    from companion.ui.startup_checks import check_at_start

    previous_crash, crash_handle = start_crash_log(runtime.home)
    termination = TerminationSignals(app)
    try:
        window = open_window(runtime)
        termination.attach(window)
        check_at_start(window, window.store, window.memory_pane.open_file)
        if previous_crash:
            _show_crash(window, runtime.home, previous_crash)
        code = int(app.exec())
    finally:
        termination.stop()
        stop_crash_log(runtime.home, crash_handle)
        runtime.close()
    exit_if_stuck(code)  # everything is saved by now; a thread stuck in a C call must not abort the exit
    return code


def open_window(runtime: Runtime, *, autoload: bool = True) -> "MainWindow":
    """The main window as the app opens it, on screen: its first frame (the newest messages) comes
    before the model, the search index's start-up, the feature modules and the colours of code."""
    from companion.ui.main_window import MainWindow

    window = MainWindow(runtime.home, runtime.settings, autoload=autoload, defer=True)
    window.show()
    return window


class TerminationSignals:
    """SIGTERM/SIGINT (logout, `kill`, Ctrl-C in a terminal) close the window the normal way, so the
    reply in progress is logged, background work stops and the model is closed. Installed before the
    window exists: a signal that arrives while it is being built closes it once the event loop runs.
    Qt's event loop does not run Python signal handlers by itself: a timer hands control back to the
    interpreter regularly."""

    def __init__(self, app: QApplication) -> None:
        self.app = app
        self.window: QWidget | None = None
        self.requested = False
        self._previous: dict[int, object] = {}
        for name in ("SIGTERM", "SIGINT"):
            number = getattr(signal, name, None)
            if number is not None:
                self._previous[number] = signal.signal(number, self._handle)
        self._timer = QTimer()
        self._timer.timeout.connect(lambda: None)
        self._timer.start(250)

    def _handle(self, *_: object) -> None:
        self.requested = True
        if self.window is not None:
            self._close()

    def _close(self) -> None:
        quit_app = getattr(self.window, "quit_app", None)
        if callable(quit_app):
            quit_app()  # a signal quits even when closing the window would keep Companion in the tray
        elif self.window is not None:
            self.window.close()
        self.app.quit()

    def attach(self, window: QWidget) -> None:
        self.window = window
        if self.requested:  # asked to quit while the window was being built
            QTimer.singleShot(0, self._close)

    def stop(self) -> None:
        self._timer.stop()
        for number, previous in self._previous.items():
            signal.signal(number, previous)  # type: ignore[arg-type]


def _show_crash(window: QMessageBox | object, home: Home, text: str) -> None:
    box = QMessageBox(window)  # type: ignore[arg-type]
    box.setIcon(QMessageBox.Icon.Warning)
    box.setWindowTitle(QCoreApplication.translate("App", "Companion stopped unexpectedly"))
    box.setText(QCoreApplication.translate("App", "The last session ended with a crash. Your conversation and memory "
                                           "are saved. The details are in %1.")
                .replace("%1", str(home.state / "crash-previous.log")))
    box.setDetailedText(text[-8000:])
    box.open()
