"""Open a home for use: resolve it, create what is missing, take the one-instance lock, read settings."""

from __future__ import annotations

import errno
import os
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

from companion.errors import AlreadyRunningError, StorageError
from companion.filelock import ProcessLock
from companion.memory.setup import ensure_home
from companion.paths import Home, resolve_home
from companion.settings import Settings, load_settings


@dataclass
class Runtime:
    home: Home
    settings: Settings
    lock: ProcessLock | None

    def close(self) -> None:
        if self.lock is not None:
            self.lock.release()
            self.lock = None

    def __enter__(self) -> "Runtime":
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.close()


def open_home(
    explicit: str | os.PathLike[str] | None = None, *, exclusive: bool = True, language: str | None = None
) -> Runtime:
    """exclusive=True refuses to run beside another Companion on the same home; `language` (a locale
    name) picks the templates of a new home, by default the system's."""
    os.umask(0o077)  # everything Companion creates is private to the user
    home = resolve_home(explicit)
    try:
        return _open(home, exclusive, language)
    except OSError as exc:  # an unwritable or full home: say what to do, never a traceback
        raise StorageError(home_problem(exc, home.root)) from exc


def home_problem(exc: OSError, root: Path) -> str:
    """What to tell the user when the home folder cannot be used."""
    if exc.errno == errno.ENOSPC or exc.errno == errno.EDQUOT:
        return (f"The disk that holds Companion's folder {root} is full. Free some space and start Companion again; "
                "nothing was lost.")
    if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        return (f"Companion cannot write to its folder {root} ({exc.strerror}). Check the folder's permissions, or "
                "choose another folder with --home or the COMPANION_HOME environment variable.")
    return (f"Companion cannot open its folder {root}: {exc.strerror or exc}. Check the disk and the folder, or choose "
            "another folder with --home or the COMPANION_HOME environment variable.")


def _open(home: Home, exclusive: bool, language: str | None) -> Runtime:
    home.state.mkdir(mode=0o700, parents=True, exist_ok=True)
    lock = None
    if exclusive:
        lock = ProcessLock(home.lock_file)
        if not lock.acquire():
            pid = lock.holder_pid()
            who = f" (process {pid})" if pid else ""
            raise AlreadyRunningError(
                f"Companion is already running on {home.root}{who}. Switch to that window, or close it first."
            )
    try:
        ensure_home(home, language, clean=lock is not None)
        settings = load_settings(home.settings_file)
    except BaseException:
        if lock is not None:
            lock.release()
        raise
    return Runtime(home, settings, lock)


def running_instance(home: Home) -> int | None:
    """Whether a Companion (the app or `companion chat`) holds `home`: its process id (0 when unknown),
    or None when none does. The check takes the instance lock for a moment and gives it back."""
    lock = ProcessLock(home.lock_file)
    if lock.acquire():
        lock.release()
        return None
    return lock.holder_pid() or 0
