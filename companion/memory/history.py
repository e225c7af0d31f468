"""Snapshots of long-term files before every change: list, read, restore, bounded retention."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Callable

from companion.errors import HistoryError
from companion.atomic import atomic_write

DEFAULT_KEEP = 200
_NAME = re.compile(r"^(\d{8}T\d{6}\.\d{6})-([a-z_]+)(?:-(\d+))?\.md$")
ACTORS = ("user", "chat", "tool", "sleep", "learn", "restore", "import", "system", "agent", "sync")


@dataclass(frozen=True)
class Version:
    """One snapshot: the content a file had before a change made by `actor` at `when`."""

    file: str
    id: str
    when: datetime
    actor: str
    path: Path

    def read(self) -> str:
        # Exactly as saved: line endings kept, bytes that were not UTF-8 carried through.
        with open(self.path, encoding="utf-8", errors="surrogateescape", newline="") as handle:
            return handle.read()


class History:
    def __init__(self, root: Path, keep: int = DEFAULT_KEEP, clock: Callable[[], datetime] = datetime.now) -> None:
        self.root = root
        self.keep = keep
        self.clock = clock

    def snapshot(self, file: str, raw: str, actor: str) -> Version:
        """Store `raw` as the version of `file` replaced by a change from `actor`."""
        actor = actor if actor in ACTORS else "system"
        folder = self.root / file
        stamp = self.clock().strftime("%Y%m%dT%H%M%S.%f")
        path = folder / f"{stamp}-{actor}.md"
        counter = 1
        while path.exists():
            counter += 1
            path = folder / f"{stamp}-{actor}-{counter}.md"
        atomic_write(path, raw.encode("utf-8", "surrogateescape"))
        self._prune(file)
        return self._version(file, path)  # type: ignore[return-value]

    def versions(self, file: str) -> list[Version]:
        """Newest first."""
        folder = self.root / file
        if not folder.is_dir():
            return []
        found = [v for v in (self._version(file, p) for p in folder.iterdir()) if v is not None]
        return sorted(found, key=lambda v: (v.when, v.id), reverse=True)

    def get(self, file: str, version_id: str) -> Version:
        for version in self.versions(file):
            if version.id == version_id:
                return version
        raise HistoryError(f"No saved version {version_id!r} of {file}.")

    def _version(self, file: str, path: Path) -> Version | None:
        match = _NAME.match(path.name)
        if not match:
            return None
        when = datetime.strptime(match.group(1), "%Y%m%dT%H%M%S.%f")
        return Version(file=file, id=path.stem, when=when, actor=match.group(2), path=path)

    def _prune(self, file: str) -> None:
        for old in self.versions(file)[self.keep :]:
            try:
                old.path.unlink()
            except OSError:
                pass
