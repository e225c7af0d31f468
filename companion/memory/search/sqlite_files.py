"""Remove a broken SQLite database of derived data (the search index, the vectors) with its side files."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from companion.errors import SearchError


def remove_database(db: sqlite3.Connection | None, path: Path, what: str) -> None:
    """Close `db` (if open) and delete `path` and its -wal/-shm/-journal files; `what` names it in the error."""
    if db is not None:
        try:
            db.close()
        except sqlite3.Error:
            pass
    for suffix in ("", "-wal", "-shm", "-journal"):
        try:
            os.remove(str(path) + suffix)
        except FileNotFoundError:
            pass
        except OSError as exc:
            raise SearchError(f"Cannot remove the broken {what} {path}: {exc.strerror or exc}") from exc
