"""Snapshots of long-term files before every change: list, read, restore, bounded retention."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from enum import Enum
from pathlib import Path
from typing import Callable

from companion.errors import HistoryError
from companion.atomic import atomic_write

DEFAULT_KEEP = 200
_NAME = re.compile(r"^(\d{8}T\d{6}\.\d{6})-([a-z_]+)(?:-(\d+))?\.md$")


class Actor(str, Enum):
    """Who changes a long-term file: one vocabulary for the write policy and the history's snapshots."""

    REMEMBER = "remember"  # the user's explicit "remember ..." request
    FORGET = "forget"  # the user's "forget ..." request, and forget-everywhere
    REMINDER = "reminder"  # the user's "remind me ..." request
    BOOTSTRAP = "bootstrap"  # answers in the first conversation, and the persona they set
    TOOL = "tool"  # a model tool call (edit_memory, context_update) the user did not approve
    APPROVED = "approved"  # a model tool call the user approved
    LEARN = "learn"  # daytime learning after a reply
    SLEEP = "sleep"  # the nightly job: distilling, moving past events, the audit
    USER = "user"  # the user in Preferences (names), undo of a night's change
    EDITOR = "editor"  # the user's own edit in the editor pane
    RESTORE = "restore"  # an earlier version put back (History, Undo of a tool's change)
    IMPORT = "import"  # an imported memory folder, merged or replacing
    MIGRATE = "migrate"  # files of an older format brought in
    AGENT = "agent"  # another agent of the user's, over MCP
    SYNC = "sync"  # a sync tool's conflict copy merged back, or the user's choice between two computers' versions
    SYSTEM = "system"  # the app's own maintenance (self-test)


ACTORS = tuple(actor.value for actor in Actor)


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

    def snapshot(self, file: str, raw: str, actor: Actor) -> Version:
        """Store `raw` as the version of `file` replaced by a change from `actor`."""
        who = Actor(actor).value  # ValueError for a name outside the vocabulary: every writer names itself
        folder = self.root / file
        stamp = self.clock().strftime("%Y%m%dT%H%M%S.%f")
        path = folder / f"{stamp}-{who}.md"
        counter = 1
        while path.exists():
            counter += 1
            path = folder / f"{stamp}-{who}-{counter}.md"
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
