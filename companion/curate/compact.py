"""Keep a long-term file under its size cap: move superseded, then oldest entries to an archive."""

from __future__ import annotations

from datetime import date
from pathlib import Path

from companion.atomic import atomic_write
from companion.memory.longterm import MAX_FILE_BYTES
from companion.memory import entries as E

SOFT_LIMIT = int(MAX_FILE_BYTES * 0.9)  # compact once a file passes this
TARGET = int(MAX_FILE_BYTES * 0.75)  # ...down to this, so it is not needed again every night
ARCHIVE_DIR = "archive"


def _size(text: str) -> int:
    return len(text.encode("utf-8", "surrogateescape"))


def _age(line: str) -> date:
    """The oldest date a line cites (lines without a citation count as newest)."""
    return min(E.cited_days(line), default=date.max)


def compact(front: str, body: str, limit: int = SOFT_LIMIT, target: int = TARGET) -> tuple[str, list[str]]:
    """(new body, archived lines). Superseded entries go first, then the oldest cited ones."""
    if _size(front + body) <= limit:
        return body, []
    lines = body.splitlines(keepends=True)
    candidates = [i for i, line in enumerate(lines) if E.is_entry(line)]
    candidates.sort(key=lambda i: (not E.is_superseded(lines[i]), _age(lines[i]), i))
    excess = _size(front + body) - target
    dropped: set[int] = set()
    for index in candidates:
        if excess <= 0:
            break
        dropped.add(index)
        excess -= _size(lines[index])
    archived = [lines[i].rstrip("\n") for i in sorted(dropped)]
    return "".join(line for i, line in enumerate(lines) if i not in dropped), archived


def archive_path(memory_dir: Path, file: str) -> Path:
    return memory_dir / ARCHIVE_DIR / file


def append_archive(memory_dir: Path, file: str, lines: list[str], on: date) -> None:
    """Add lines to archive/<FILE> (kept with the memory, out of the prompt); repeats are skipped,
    so a run that stopped after archiving and before saving can simply run again."""
    if not lines:
        return
    path = archive_path(memory_dir, file)
    existing = path.read_text(encoding="utf-8", errors="surrogateescape") if path.exists() else (
        f"# Archive of {file}\n\nEntries moved out of {file} to keep it small. Nothing here is lost; "
        "search still finds it.\n"
    )
    known = set(existing.splitlines())
    new = [line for line in lines if line not in known]
    if not new:
        return
    block = f"\n## Archived {on.isoformat()}\n" + "\n".join(new) + "\n"
    atomic_write(path, (existing.rstrip("\n") + "\n" + block).encode("utf-8", "surrogateescape"))
