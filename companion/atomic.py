"""The one helper for whole-file writes: temp file in the same folder, fsync, rename."""

from __future__ import annotations

import errno
import os
import tempfile
from pathlib import Path

from companion.errors import StorageError
from companion.filelock import process_alive

TEMP_PREFIX = ".tmp-"


def atomic_write(path: Path, data: str | bytes) -> None:
    """Replace `path` with `data` so that readers see the old or the new file, never half."""
    payload = data.encode("utf-8") if isinstance(data, str) else data
    if path.is_symlink():  # the user linked the file elsewhere (a synced folder): write the file it points to
        path = Path(os.path.realpath(path))
        if path.exists() and not path.is_file():
            raise StorageError(f"Could not write {path}: a link points to something that is not a file.")
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f"{TEMP_PREFIX}{path.name}.{os.getpid()}.", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as tmp:
            tmp.write(payload)
            tmp.flush()
            os.fsync(tmp.fileno())
        os.replace(tmp_name, path)
    except OSError as exc:
        _remove_quietly(tmp_name)
        raise StorageError(describe_os_error(exc, path)) from exc
    except BaseException:
        _remove_quietly(tmp_name)
        raise
    _fsync_dir(path.parent)


def describe_os_error(exc: OSError, path: Path) -> str:
    """A message a user can act on for a failed write."""
    if exc.errno == errno.ENOSPC:
        return f"The disk is full: could not save {path.name}. Free some space and try again; nothing was lost."
    if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        return f"No permission to write {path}. Check the folder's permissions."
    return f"Could not write {path}: {exc.strerror or exc}"


def remove_stale_temp_files(folder: Path) -> int:
    """Delete temp files an interrupted write left behind; returns how many.

    Call it only while holding the home's exclusive lock: a temp file whose writer is still running
    (another process, a thread of this one) is in use and stays."""
    removed = 0
    if not folder.is_dir():
        return 0
    for tmp in folder.rglob(TEMP_PREFIX + "*"):
        if tmp.is_file() and not _owner_alive(tmp.name):
            _remove_quietly(str(tmp))
            removed += 1
    return removed


def _owner_alive(name: str) -> bool:
    """Whether the process named in a temp file's name still runs (names without a pid: unknown, so no)."""
    parts = name.rsplit(".", 2)
    return len(parts) == 3 and parts[1].isdigit() and process_alive(int(parts[1]))


def _remove_quietly(name: str) -> None:
    try:
        os.unlink(name)
    except OSError:
        pass


def _fsync_dir(folder: Path) -> None:
    if os.name != "posix":
        return
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
