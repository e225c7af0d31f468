"""Which computer this is, when the memory folder is shared between computers by a sync tool.

An unsynced home has no device: its day logs and ids stay exactly as they always were
(`2026-11-29.jsonl`, `2026-11-29#17`). In a folder that Syncthing, Nextcloud, Dropbox or iCloud
keeps in step (or one where another computer already writes its own day files), each computer
gets a short random tag, kept in its own `state/device.json` (not synced), and appends to its own
day file (`2026-11-29.k3fq.jsonl`), so two computers never write the same file or the same id.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import platform
import re
import secrets
from pathlib import Path

from companion.atomic import atomic_write
from companion.memory.records import DEVICE_TAG

log = logging.getLogger(__name__)

DEVICE_FILE = "device.json"
_TAG = re.compile(rf"^{DEVICE_TAG}$")
_TAGGED_DAY = re.compile(rf"^\d{{4}}-\d{{2}}-\d{{2}}\.({DEVICE_TAG})\.jsonl$")
_LETTERS = "abcdefghijklmnopqrstuvwxyz"
_ALPHABET = _LETTERS + "0123456789"

# What each sync tool leaves in (or above) the folders it keeps in step, and whether it is a file or
# a folder there: Dropbox's `.dropbox` is a file in the synced folder but its settings folder in the
# user's home, which says nothing about the folders below it.
_MARKERS: tuple[tuple[str, str, bool], ...] = (
    (".stfolder", "Syncthing", True),
    (".dropbox", "Dropbox", False),
    (".dropbox.cache", "Dropbox", True),
    (".nextcloudsync.log", "Nextcloud", False),
    (".owncloudsync.log", "Nextcloud", False),
)
_DB_MARKER = re.compile(r"^\.?_?sync_[0-9a-f]+\.db$")  # the Nextcloud/ownCloud client's journal
_ICLOUD_PARTS = ("Mobile Documents", "com~apple~CloudDocs")


def sync_tool(folder: Path) -> str | None:
    """The sync tool that keeps `folder` in step (its markers in the folder or above), or None."""
    if any(part in _ICLOUD_PARTS for part in folder.parts):
        return "iCloud"
    for place in (folder, *folder.parents):
        for name, tool, folder_marker in _MARKERS:
            marker = place / name
            if marker.is_dir() if folder_marker else marker.is_file():
                return tool
        try:
            if any(_DB_MARKER.match(entry.name) for entry in place.iterdir() if entry.name.startswith((".", "_"))):
                return "Nextcloud"
        except OSError:
            continue
    return None


def other_devices(days: Path, months: int = 2) -> set[str]:
    """Tags of the computers whose day files are in the newest `months` month folders of `days/`."""
    found: set[str] = set()
    try:
        newest = sorted((e.name for e in os.scandir(days) if e.is_dir()), reverse=True)[:months]
    except OSError:
        return found
    for month in newest:
        found.update(m.group(1) for m in map(_TAGGED_DAY.match, (e.name for e in os.scandir(days / month))) if m)
    return found


def machine_fingerprint() -> str:
    """A hash naming this computer, so a `state/` folder copied to another computer is noticed."""
    parts = [platform.node()]
    for source in ("/etc/machine-id", "/var/lib/dbus/machine-id"):
        try:
            parts.append(Path(source).read_text(encoding="ascii").strip())
            break
        except (OSError, UnicodeDecodeError):
            continue
    return hashlib.sha256("\n".join(parts).encode("utf-8", "replace")).hexdigest()[:16]


def new_tag(taken: set[str]) -> str:
    while True:
        tag = secrets.choice(_LETTERS) + "".join(secrets.choice(_ALPHABET) for _ in range(3))
        if tag not in taken:
            return tag


def stored_tag(state: Path) -> str | None:
    """The tag this computer already chose for the home, if any (and if `state/` is this computer's)."""
    try:
        data = json.loads((state / DEVICE_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("machine") != machine_fingerprint():
        return None
    tag = data.get("tag")
    return tag if isinstance(tag, str) and _TAG.match(tag) else None


def local_device(memory: Path, state: Path) -> str | None:
    """This computer's tag for the memory folder, created when the folder turns out to be synced;
    None for a home that is not synced (which then behaves exactly as an unsynced home always has)."""
    tag = stored_tag(state)
    if tag is not None:
        return tag  # once tagged, always tagged: a day never switches back to the shared file
    others = other_devices(memory / "days")
    tool = sync_tool(memory)
    if tool is None and not others:
        return None
    tag = new_tag(others)
    atomic_write(state / DEVICE_FILE, json.dumps(
        {"schema_version": 1, "tag": tag, "machine": machine_fingerprint(), "node": platform.node(),
         "sync_tool": tool or "unknown"}, indent=1))
    log.info("Memory folder is synced (%s): this computer writes its day logs as device %s", tool or "other devices", tag)
    return tag
