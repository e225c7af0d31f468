"""Change the memory folder all at once: work on a staged copy, swap it in, recover from a cut-off swap.

The copy lives in `state/scratch/<kind>-<pid>-<random>`; the swap is two renames, and the old folder
waits as `.companion-memory.replaced-<pid>` until the new one is in place. A process killed at any
point leaves the home as it was before, or as it is after; the next start puts a half-done swap back
and removes the scratch folders of processes that are gone.
"""

from __future__ import annotations

import os
import secrets
import shutil
from pathlib import Path

from companion.errors import StorageError
from companion.atomic import describe_os_error
from companion.filelock import process_alive
from companion.paths import Home

_REPLACED = ".replaced-"


def scratch_folder(home: Home, kind: str) -> Path:
    """A new private work folder under the home (never the system temp folder, which nobody cleans)."""
    home.scratch.mkdir(mode=0o700, parents=True, exist_ok=True)
    folder = home.scratch / f"{kind}-{os.getpid()}-{secrets.token_hex(4)}"
    folder.mkdir(mode=0o700)
    return folder


def _owner(part: str) -> int | None:
    return int(part) if part.isdigit() else None


class StagedMemory:
    """A copy of the memory folder to change freely; `commit()` swaps it in, `discard()` drops it."""

    def __init__(self, home: Home) -> None:
        self.live = home
        self.folder = scratch_folder(home, "stage")
        self.home = Home(self.folder)
        try:
            if home.memory.exists():
                shutil.copytree(home.memory, self.home.memory, symlinks=True)
            else:
                self.home.memory.mkdir(mode=0o700)
        except OSError as exc:
            self.discard()
            raise StorageError(describe_os_error(exc, self.home.memory)) from exc
        except BaseException:
            self.discard()
            raise

    def commit(self, keep: Path | None = None) -> None:
        """Put the staged folder in the live one's place (two renames on the same disk); the folder
        it replaces moves to `keep` (a backup), or is deleted."""
        old = self.live.root / f".{self.live.memory.name}{_REPLACED}{os.getpid()}"
        shutil.rmtree(old, ignore_errors=True)
        try:
            os.rename(self.live.memory, old)
            try:
                os.rename(self.home.memory, self.live.memory)
            except OSError:
                os.rename(old, self.live.memory)
                raise
        except OSError as exc:
            raise StorageError(describe_os_error(exc, self.live.memory)) from exc
        if keep is not None:
            try:
                keep.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
                os.rename(old, keep)
            except OSError:
                pass
        shutil.rmtree(old, ignore_errors=True)
        self.discard()

    def discard(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)


def recover(home: Home, *, clean: bool) -> None:
    """Finish what a killed swap left: the old memory folder goes back if the new one never arrived.
    With `clean` (the home's exclusive lock is held) also remove dead processes' scratch folders."""
    prefix = f".{home.memory.name}{_REPLACED}"
    try:
        leftovers = [p for p in home.root.iterdir() if p.name.startswith(prefix)]
    except OSError:
        return
    for old in leftovers:
        pid = _owner(old.name.rsplit(_REPLACED, 1)[-1])
        if pid is not None and process_alive(pid):
            continue
        if not home.memory.exists():
            os.rename(old, home.memory)
        elif clean:
            shutil.rmtree(old, ignore_errors=True)
    if clean and home.scratch.is_dir():
        for folder in home.scratch.iterdir():
            parts = folder.name.split("-")  # <kind>-<pid>-<random>
            pid = _owner(parts[1]) if len(parts) == 3 else None
            if pid is None or not process_alive(pid):
                shutil.rmtree(folder, ignore_errors=True)
