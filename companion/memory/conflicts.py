"""Conflict copies that sync tools leave beside a file both computers changed, found by their names.

Each tool renames the losing version in its own way (checked against each tool's documentation):

- Syncthing: `USER.sync-conflict-20261201-101530-ABCDEF7.md` (date, time, the first 7 characters of
  the device ID that made the change; the extension after the last dot stays last);
- Dropbox: `USER (Lea's conflicted copy 2026-12-01).md`, older clients without the owner, a second
  copy on the same day with ` (1)`;
- Nextcloud (and ownCloud's desktop client): `USER (conflicted copy 2026-12-01 101530).md`, newer
  clients with the user's name before the date; ownCloud 2.x `USER_conflict-20261201-101530.md`;
- iCloud Drive: `USER 2.md`, `USER 3.md` (a number after a space, before the extension).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

_RULES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("Syncthing", re.compile(r"^(?P<stem>.+)\.sync-conflict-\d{8}-\d{6}-[A-Z2-7]{7}$")),
    ("Dropbox", re.compile(r"^(?P<stem>.+) \((?:[^()]+'s )?conflicted copy \d{4}-\d{2}-\d{2}(?: \(\d+\))?\)$", re.I)),
    ("Nextcloud", re.compile(r"^(?P<stem>.+) \(conflicted copy (?:[^()]+ )?\d{4}-\d{2}-\d{2} \d{6}\)$", re.I)),
    ("Nextcloud", re.compile(r"^(?P<stem>.+)_conflict-\d{8}-\d{6}$")),
    ("iCloud", re.compile(r"^(?P<stem>.+) (?P<n>[2-9]|[1-9]\d+)$")),
)


@dataclass(frozen=True)
class ConflictCopy:
    """A sync tool's copy of `original`, made when two computers changed it before syncing."""

    path: Path
    original: Path
    tool: str


def original_name(name: str) -> tuple[str, str] | None:
    """'USER.sync-conflict-20261201-101530-ABCDEF7.md' -> ('USER.md', 'Syncthing'); None for other names."""
    stem, dot, ext = name.rpartition(".")
    if not dot or not stem:
        stem, ext = name, ""
    suffix = f".{ext}" if dot and ext else ""
    for tool, rule in _RULES:
        match = rule.match(stem)
        if match:
            return match.group("stem") + suffix, tool
    return None


def conflict_copy(path: Path) -> ConflictCopy | None:
    found = original_name(path.name)
    if found is None:
        return None
    return ConflictCopy(path, path.with_name(found[0]), found[1])


def copies_in(folder: Path, originals: set[str] | None = None) -> list[ConflictCopy]:
    """Conflict copies in `folder` (of the names in `originals`, when given), oldest name first."""
    if not folder.is_dir():
        return []
    found = []
    for path in sorted(folder.iterdir()):
        copy = conflict_copy(path) if path.is_file() else None
        if copy is not None and (originals is None or copy.original.name in originals):
            found.append(copy)
    return found
