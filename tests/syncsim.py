"""Two computers sharing one memory folder, and a sync tool between them that behaves as the real ones:
a file changed on one side is copied; a file changed on both sides keeps one version under its name
and the other as a conflict copy named exactly as that tool names it."""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path

from companion.memory.setup import ensure_home
from companion.paths import Home

TZ = timezone(timedelta(hours=1))
CONFLICT_TIME = datetime(2026, 12, 1, 21, 5, 9)


def conflict_name(name: str, tool: str, when: datetime = CONFLICT_TIME) -> str:
    """The name each tool gives the losing version of `name`."""
    stem, dot, ext = name.rpartition(".")
    suffix = f".{ext}" if dot else ""
    stem = stem if dot else name
    if tool == "Syncthing":
        return f"{stem}.sync-conflict-{when:%Y%m%d-%H%M%S}-K3FQ2ZB{suffix}"
    if tool == "Dropbox":
        return f"{stem} (Lea's conflicted copy {when:%Y-%m-%d}){suffix}"
    if tool == "Nextcloud":
        return f"{stem} (conflicted copy {when:%Y-%m-%d %H%M%S}){suffix}"
    if tool == "iCloud":
        return f"{stem} 2{suffix}"
    raise ValueError(tool)


MARKERS = {"Syncthing": ".stfolder", "Dropbox": ".dropbox", "Nextcloud": ".nextcloudsync.log", "iCloud": None}


@dataclass
class Computer:
    """One machine: its own home root (state/ stays local), the memory folder is the synced part."""

    home: Home
    now: datetime

    def clock(self) -> datetime:
        return self.now

    def tick(self, minutes: float = 1) -> None:
        self.now += timedelta(minutes=minutes)


def two_computers(tmp: Path, tool: str = "Syncthing", *, synced: bool = True) -> tuple[Computer, Computer]:
    """Two homes with the same memory folder content; the sync tool's marker inside it."""
    first = Home(tmp / "laptop")
    ensure_home(first, "en")
    second = Home(tmp / "desktop")
    second.root.mkdir(parents=True)
    shutil.copytree(first.memory, second.memory)
    ensure_home(second, "en")
    marker = MARKERS[tool]
    if synced and marker:
        for home in (first, second):
            path = home.memory / marker
            path.mkdir() if marker == ".stfolder" else path.write_text("")
    start = datetime(2026, 12, 1, 9, 0, tzinfo=TZ)
    return Computer(first, start), Computer(second, start + timedelta(seconds=17))


def _files(root: Path) -> dict[str, Path]:
    out = {}
    for path in root.rglob("*"):
        rel = path.relative_to(root).as_posix()
        if path.is_file() and not path.name.endswith(".lock") and not rel.startswith(".st"):
            out[rel] = path
    return out


def sync(a: Computer, b: Computer, tool: str = "Syncthing", seen: dict[str, bytes] | None = None) -> list[str]:
    """One sync round between the two memory folders; returns the conflict copies made.

    `seen` is the content both sides agreed on at the last round (what the tool's index knows):
    a file changed on one side only is copied over; changed on both, `a` keeps the name and
    `b`'s version becomes the conflict copy, on both sides."""
    seen = {} if seen is None else seen
    made = []
    fa, fb = _files(a.home.memory), _files(b.home.memory)
    for rel in sorted(set(fa) | set(fb)):
        pa, pb = fa.get(rel), fb.get(rel)
        da = pa.read_bytes() if pa else None
        db = pb.read_bytes() if pb else None
        if da == db:
            if da is not None:
                seen[rel] = da
            continue
        base = seen.get(rel)
        if da is not None and db is not None and da != base and db != base:
            copy = str(Path(rel).with_name(conflict_name(Path(rel).name, tool)))
            for side in (a, b):
                (side.home.memory / copy).parent.mkdir(parents=True, exist_ok=True)
                (side.home.memory / copy).write_bytes(db)
                (side.home.memory / rel).write_bytes(da)
            made.append(copy)
            seen[rel], seen[copy] = da, db
            continue
        if (da is None and db == base) or (db is None and da == base):  # removed on one side
            for side in (a, b):
                (side.home.memory / rel).unlink(missing_ok=True)
            seen.pop(rel, None)
            continue
        newer = da if (db is None or db == base) else db
        if newer is None:
            continue
        for side in (a, b):
            (side.home.memory / rel).parent.mkdir(parents=True, exist_ok=True)
            (side.home.memory / rel).write_bytes(newer)
        seen[rel] = newer
    return made
