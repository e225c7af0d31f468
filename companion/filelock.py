"""Advisory inter-process locks on a file (fcntl on POSIX, msvcrt on Windows)."""

from __future__ import annotations

import os
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Iterator

if os.name == "nt":  # pragma: no cover - exercised on Windows only
    import msvcrt

    def _lock(handle: IO[bytes], blocking: bool) -> None:
        handle.seek(0)
        mode = msvcrt.LK_LOCK if blocking else msvcrt.LK_NBLCK  # type: ignore[attr-defined]
        msvcrt.locking(handle.fileno(), mode, 1)  # type: ignore[attr-defined]

    def _unlock(handle: IO[bytes]) -> None:
        handle.seek(0)
        msvcrt.locking(handle.fileno(), msvcrt.LK_UNLCK, 1)  # type: ignore[attr-defined]

else:
    import fcntl

    def _lock(handle: IO[bytes], blocking: bool) -> None:
        flags = fcntl.LOCK_EX if blocking else fcntl.LOCK_EX | fcntl.LOCK_NB
        fcntl.flock(handle.fileno(), flags)

    def _unlock(handle: IO[bytes]) -> None:
        fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def _private(path: str, flags: int) -> int:
    return os.open(path, flags, 0o600)  # readable by the user only, like everything under the home


def process_alive(pid: int) -> bool:
    """Whether process `pid` still runs (True when that cannot be told: never remove a live one's files)."""
    if pid == os.getpid():
        return True
    if os.name != "posix":  # pragma: no cover - no cheap check without a handle
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # it exists, under another user
        return True
    return True


_thread_locks: dict[str, threading.Lock] = {}
_thread_locks_guard = threading.Lock()


def _thread_lock(path: Path) -> threading.Lock:
    key = os.path.abspath(path)
    with _thread_locks_guard:
        return _thread_locks.setdefault(key, threading.Lock())


@contextmanager
def locked(path: Path) -> Iterator[None]:
    """Hold an exclusive lock named by `path` against other threads and processes."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with _thread_lock(path):
        with open(path, "a+b", opener=_private) as handle:
            _lock(handle, blocking=True)
            try:
                yield
            finally:
                _unlock(handle)


class ProcessLock:
    """A non-blocking exclusive lock held for the life of a process (one app per home)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._handle: IO[bytes] | None = None

    def acquire(self) -> bool:
        """False when another process holds the lock; OSError when its file cannot be written (a full disk)."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        handle = open(self.path, "a+b", opener=_private)
        try:
            _lock(handle, blocking=False)
        except OSError:
            handle.close()
            return False
        try:  # on a full disk this is the first write of a run: give the lock back and let the caller say so
            handle.seek(0)
            handle.truncate()
            handle.write(str(os.getpid()).encode())
            handle.flush()
        except OSError:
            _unlock(handle)
            try:
                handle.close()
            except OSError:  # closing flushes the same bytes again
                pass
            raise
        self._handle = handle
        return True

    def holder_pid(self) -> int | None:
        try:
            text = self.path.read_text().strip()
            return int(text) if text else None
        except (OSError, ValueError):
            return None

    def release(self) -> None:
        if self._handle is not None:
            try:
                _unlock(self._handle)
            finally:
                self._handle.close()
                self._handle = None
