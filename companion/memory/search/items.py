"""What the search index holds: items cut from day-log records, long-term files and digests."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date
from pathlib import PurePosixPath

from companion.memory import entries as E
from companion.memory.records import Record
from companion.memory.sections import headings

KINDS = ("turn", "entry", "digest")
INDEXED_ROLES = ("user", "assistant")
_COMMENT = re.compile(r"<!--.*?-->", re.S)
_WEEK = re.compile(r"^(\d{4})-W(\d{2})$")


@dataclass
class Item:
    """One searchable unit. `locator` is a record id for turns and a 1-based line for file entries."""

    kind: str
    source: str  # path relative to the memory folder, '/'-separated
    locator: str
    day: str | None  # ISO date of the item, None for undated long-term entries
    text: str
    role: str = ""
    context: str = ""  # section heading of a file entry
    cites: list[str] = field(default_factory=list)
    ref: str = ""  # an id carried over from an imported conversation

    @property
    def key(self) -> str:
        return f"{self.source}:{self.locator}"


def record_item(record: Record, source: str) -> Item | None:
    """A day-log record as an item; None for tool/event records, empty text and private turns."""
    if record.role not in INDEXED_ROLES or not record.text.strip() or record.private:
        return None
    ref = record.extra.get("ref")
    return Item(
        kind="turn",
        source=source,
        locator=record.id,
        day=record.id.split("#", 1)[0],
        text=record.text.encode("utf-8", "replace").decode("utf-8"),  # a lone surrogate would fail in SQLite
        role=record.role,
        ref=ref if isinstance(ref, str) else "",
    )


def digest_day(source: str) -> str | None:
    """The first day a digest covers, from its file name (day, ISO week, month or year)."""
    stem = PurePosixPath(source).stem
    try:
        if len(stem) == 10:
            return date.fromisoformat(stem).isoformat()
        week = _WEEK.match(stem)
        if week:
            return date.fromisocalendar(int(week.group(1)), int(week.group(2)), 1).isoformat()
        if len(stem) == 7:
            return date.fromisoformat(stem + "-01").isoformat()
        if len(stem) == 4 and stem.isdigit():
            return f"{stem}-01-01"
    except ValueError:
        return None
    return None


def markdown_items(body: str, source: str, kind: str, first_line: int = 1) -> list[Item]:
    """Entries of a Markdown body: each bullet (with its continuation lines) or paragraph.

    `first_line` is the file line where the body starts, so locators point into the file.
    Superseded entries are skipped: they stay in the file's history, not in recall.
    """
    lines = body.splitlines()
    titles = {h.line: h.title for h in headings(body)}
    items: list[Item] = []
    section = ""
    chunk: list[str] = []
    start = 0
    file_day = digest_day(source) if kind == "digest" else None

    def flush() -> None:
        text = _COMMENT.sub("", "\n".join(chunk)).strip()
        chunk.clear()
        if not text or E.is_superseded(text.splitlines()[0]):
            return
        cites = E.cited_ids(text)
        dated = E.mentioned_days(text)
        day = file_day or (cites[0].split("#")[0] if cites else (dated[0] if dated else None))
        items.append(
            Item(kind=kind, source=source, locator=str(start + first_line), day=day if kind == "digest" else day,
                 text=E.without_bullet(text), context=section, cites=cites)
        )

    for index, line in enumerate(lines):
        if index in titles:
            flush()
            section = titles[index]
            continue
        stripped = line.strip()
        if not stripped or E.is_entry(line) and not line.startswith((" ", "\t")):
            flush()
            start = index
            if stripped:
                chunk.append(line)
            continue
        if not chunk:
            start = index
        chunk.append(line)
    flush()
    return items
