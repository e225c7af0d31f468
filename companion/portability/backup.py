"""A full copy of the memory folder, taken before an import or migration changes anything."""

from __future__ import annotations

import shutil
from datetime import datetime
from pathlib import Path
from typing import Callable

from companion.errors import StorageError
from companion.atomic import TEMP_PREFIX, describe_os_error
from companion.paths import Home


def backups_dir(home: Home) -> Path:
    return home.state / "backups"


def _ignore(folder: str, names: list[str]) -> set[str]:
    return {n for n in names if n.startswith(TEMP_PREFIX) or (n.startswith(".") and n.endswith(".lock"))}


def backup_target(home: Home, reason: str, clock: Callable[[], datetime] = datetime.now) -> Path:
    """A free state/backups/companion-memory-<time>-<reason>/ path."""
    stamp = clock().strftime("%Y%m%d-%H%M%S")
    target = backups_dir(home) / f"{home.memory.name}-{stamp}-{reason}"
    counter = 1
    while target.exists():
        counter += 1
        target = backups_dir(home) / f"{home.memory.name}-{stamp}-{reason}-{counter}"
    return target


def backup_memory(home: Home, reason: str, clock: Callable[[], datetime] = datetime.now) -> Path:
    """Copy `companion-memory/` to state/backups/companion-memory-<time>-<reason>/ and return that path."""
    target = backup_target(home, reason, clock)
    partial = target.with_name(target.name + ".partial")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        if home.memory.is_dir():
            shutil.copytree(home.memory, partial, ignore=_ignore)
        else:
            partial.mkdir()
        partial.rename(target)
    except OSError as exc:
        shutil.rmtree(partial, ignore_errors=True)
        raise StorageError(
            "Could not back up the memory folder, so nothing was imported. " + describe_os_error(exc, target)
        ) from exc
    return target
