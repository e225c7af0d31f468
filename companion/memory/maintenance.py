"""The one lock between whole-memory changes and everything else that writes memory, across threads and processes.

Forget-everywhere, an import and a migration rewrite many files, or swap the whole folder, from what
they read first; each holds the lock `exclusive`. Every other write to the long-term files (a tool
call, "remember", daytime learning) and each step of the night (read a day, distill it, write what
it learned, move the cursor) hold it `shared`. So a whole-memory change never runs in the middle of
a write or a night's step: an import swaps in a copy that holds what the night wrote, and a night
step that starts after a forget reads the day logs the forget scrubbed.

A thread that holds the lock may take it again (a forget writes the long-term files through the
same door as everyone else). POSIX `flock` gives shared locks; on Windows both modes are exclusive.
"""

from __future__ import annotations

import os
import threading
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import IO, Iterator

from companion.atomic import atomic_write
from companion.paths import Home

_held = threading.local()  # path -> (mode, depth) for the locks this thread holds

if os.name == "nt":  # pragma: no cover - exercised on Windows only
    import msvcrt

    def _acquire(handle: IO[bytes], shared: bool) -> None:
        handle.seek(0)
        msvcrt.locking(handle.fileno(), msvcrt.LK_LOCK, 1)  # type: ignore[attr-defined]

    def _release(handle: IO[bytes]) -> None:
        handle.seek(0)
        msvcrt.locking(handle.fileno(), msvcrt.LK_UNLCK, 1)  # type: ignore[attr-defined]

else:
    import fcntl

    def _acquire(handle: IO[bytes], shared: bool) -> None:
        fcntl.flock(handle.fileno(), fcntl.LOCK_SH if shared else fcntl.LOCK_EX)

    def _release(handle: IO[bytes]) -> None:
        fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def lock_path(home: Home) -> Path:
    return home.state / "locks" / "memory.lock"


def _holding() -> dict[str, list[object]]:
    if not hasattr(_held, "locks"):
        _held.locks = {}
    return _held.locks  # type: ignore[no-any-return]


@contextmanager
def _locked(home: Home, shared: bool) -> Iterator[None]:
    path = lock_path(home)
    key = os.path.abspath(path)
    mine = _holding()
    if key in mine:  # taken again by the thread that holds it
        mode, depth = mine[key]
        if mode == "shared" and not shared:
            raise RuntimeError("a shared memory lock cannot be upgraded to an exclusive one")
        mine[key] = [mode, int(depth) + 1]  # type: ignore[call-overload]
        try:
            yield
        finally:
            mine[key][1] = int(mine[key][1]) - 1  # type: ignore[call-overload]
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    # A fresh open file per holder: flock locks belong to the open file, so threads exclude each other too.
    with open(path, "a+b", opener=lambda p, f: os.open(p, f, 0o600)) as handle:
        _acquire(handle, shared)
        mine[key] = ["shared" if shared else "exclusive", 1]
        try:
            yield
        finally:
            del mine[key]
            _release(handle)


def shared(home: Home) -> AbstractContextManager[None]:
    """Held by one write to the long-term files, and by one step of the night."""
    return _locked(home, shared=True)


def exclusive(home: Home) -> AbstractContextManager[None]:
    """Held by forget-everywhere, an import and a migration, from their first read to their last write."""
    return _locked(home, shared=False)


def _generation_path(home: Home) -> Path:
    return home.state / "locks" / "forget.generation"


def generation(home: Home) -> int:
    """How many forgets this home has seen: a long job that noted it at its start can tell one happened."""
    try:
        return int(_generation_path(home).read_text(encoding="ascii").strip() or 0)
    except (OSError, ValueError):
        return 0


def note_forget(home: Home) -> None:
    """Count a forget (call with the lock held exclusively)."""
    path = _generation_path(home)
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, str(generation(home) + 1))
