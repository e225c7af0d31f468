"""Bullet entries of a long-term body: their text, citations, superseded marks, and edits by line."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from datetime import date, time

from companion.memory import sections
from companion.memory.lang import fold
from companion.memory.records import SEQ_PART

# The grammar, here and nowhere else (tests/test_doors.py keeps it so).
# An entry is a list item: "-", "*", "+" or a number ("1." / "1)") and a space.
BULLET = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
_BULLET_PARTS = re.compile(r"^(?P<indent>\s*)(?P<bullet>[-*+]|\d+[.)])\s+")
# A record id "2026-11-29#17" ("2026-11-29#17.k3fq" from device k3fq of a synced folder);
# CITED: one in parentheses, with its day and number (with the device tag) as groups.
ID = re.compile(rf"\d{{4}}-\d{{2}}-\d{{2}}#{SEQ_PART}")
CITED = re.compile(rf"\((\d{{4}}-\d{{2}}-\d{{2}})#({SEQ_PART})\)")
_DAY = r"\d{4}-\d{2}-\d{2}"
_SOURCE = re.compile(_DAY + rf"(?:#{SEQ_PART})?")
# Citations of an entry: "(2026-11-29#17)", "(2026-11-29#17, 2026-11-30#2)", "<!-- src: 2026-11-29#17 -->"
# (also a day alone: "<!-- src: 2026-11-29 -->" for entries imported with only a date), and at the end a
# day alone in parentheses, "(2026-11-29)", as other apps write it. Other HTML comments are dropped too.
_CITE = re.compile(rf"\s*\((?:\d{{4}}-\d{{2}}-\d{{2}}#{SEQ_PART}(?:,\s*)?)+\)|\s*<!--.*?-->|\s*\(" + _DAY + r"\)\s*$")
# Superseded: "- ~~Lives in Paris~~ (2026-11-01#3) — superseded 2026-11-29".
_SUPERSEDED = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+~~.*~~.*\bsuperseded\b", re.I)
_MARK = re.compile(r"\s+[—-]+\s+superseded(?: (?P<on>\d{4}-\d{2}-\d{2}))?.*$", re.I)
# A dated entry (Upcoming, Timeline): "2026-12-01: Dentist", a timed reminder "2026-12-01 09:00: Dentist".
_STAMP = re.compile(r"^(?P<day>\d{4}-\d{2}-\d{2})(?![\d#])(?:[ T](?P<h>\d{1,2}):(?P<m>\d{2})(?!\d))?\s*[:：]?\s*")
_SPACE = re.compile(r"\s+")
_NAME = re.compile(r"^(?:Name|名字)\s*[:：]\s*(?P<v>.+)$")
NAME_SLOT = "Name:|名字："  # an update of either form replaces the other
PAREN, COMMENT = "paren", "comment"  # the two ways an entry cites its sources


@dataclass(frozen=True)
class Entry:
    """One entry of a long-term file, parsed: what every reader and writer of entry lines uses.

    `text` is the entry's words as written (a dated entry keeps its stamp: "2026-12-01 09:00: Dentist"),
    without bullet, citations or superseded mark; `more` holds the continuation lines of a multi-line
    entry as they are written."""

    text: str
    sources: tuple[str, ...] = ()
    superseded: bool = False
    superseded_on: date | None = None
    bullet: str = "-"
    indent: str = ""
    cite: str = PAREN
    more: tuple[str, ...] = ()

    @classmethod
    def parse(cls, line: str) -> Entry | None:
        """The entry a list-item line holds (its first line when `line` has several); None for other lines."""
        first, *rest = line.rstrip("\n").split("\n")
        first = first.rstrip("\r")
        parts = _BULLET_PARTS.match(first)
        if parts is None:
            return None
        body = first[parts.end() :]
        superseded, on = bool(_SUPERSEDED.match(first)), None
        if superseded:
            mark = _MARK.search(body)
            if mark is not None:
                on = _date(mark.group("on"))
                body = body[: mark.start()]
        sources: list[str] = []
        cite = PAREN
        for found in _CITE.finditer(body):
            piece = found.group(0).strip()
            if piece.startswith("<!--"):
                inner = piece[4:-3].strip()
                if not inner.lower().startswith("src:"):
                    continue
                cite = COMMENT
            sources.extend(_SOURCE.findall(piece))
        text = _CITE.sub("", body).strip()
        if superseded and text.startswith("~~") and text.endswith("~~") and len(text) >= 4:
            text = text[2:-2].strip()
        return cls(text, tuple(dict.fromkeys(sources)), superseded, on, parts.group("bullet"), parts.group("indent"),
                   cite, tuple(r.rstrip("\r") for r in rest))

    @classmethod
    def timed(cls, day: date, at: time | None, what: str, sources: tuple[str, ...] | list[str] = ()) -> Entry:
        """A dated entry, e.g. a reminder: '2026-12-01 09:00: Dentist' (no time: '2026-12-01: Dentist')."""
        stamp = day.isoformat() + (f" {at:%H:%M}" if at is not None else "")
        what = " ".join(what.split())
        return cls(f"{stamp}: {what[:1].upper()}{what[1:]}", tuple(sources))

    def line(self) -> str:
        """The entry's first line in the one written form."""
        words = f"~~{self.text}~~" if self.superseded else self.text
        out = f"{self.indent}{self.bullet} {words}"
        if self.sources:
            if self.cite == COMMENT:
                out += f" <!-- src: {', '.join(self.sources)} -->"
            else:
                out += f" ({', '.join(self.sources)})"
        if self.superseded:
            out += " — superseded" + (f" {self.superseded_on.isoformat()}" if self.superseded_on else "")
        return out

    def render(self) -> str:
        """All of the entry's lines."""
        return "\n".join((self.line(), *self.more))

    def with_text(self, text: str) -> Entry:
        return replace(self, text=text)

    def cited(self, sources: list[str] | tuple[str, ...]) -> Entry:
        return replace(self, sources=tuple(dict.fromkeys((*self.sources, *sources))))

    def superseded_at(self, on: date) -> Entry:
        return replace(self, superseded=True, superseded_on=on, bullet="-", indent="")

    @property
    def stamp(self) -> re.Match[str] | None:
        return _STAMP.match(self.text)

    @property
    def day(self) -> date | None:
        """The date a dated entry starts with ('2026-12-01: Dentist' -> 2026-12-01)."""
        stamp = self.stamp
        return _date(stamp.group("day")) if stamp else None

    @property
    def at(self) -> time | None:
        """The time of a timed entry ('2026-12-01 09:00: Dentist' -> 09:00), None without one."""
        stamp = self.stamp
        if stamp is None or stamp.group("h") is None:
            return None
        hour, minute = int(stamp.group("h")), int(stamp.group("m"))
        return time(hour, minute) if hour < 24 and minute < 60 else None

    @property
    def what(self) -> str:
        """A dated entry's words without the stamp ('2026-12-01 09:00: Dentist' -> 'Dentist')."""
        stamp = self.stamp
        return self.text[stamp.end() :].strip() if stamp and self.day is not None else self.text

    @property
    def name(self) -> str | None:
        """The name an active 'Name: Lea' / '名字：小明' entry gives."""
        match = None if self.superseded else _NAME.match(self.text)
        return match.group("v").strip() if match else None

    @property
    def key(self) -> str:
        """The words compared when looking for duplicates and for what a forget names."""
        return normalize_text(self.text)


def _date(text: str | None) -> date | None:
    try:
        return date.fromisoformat(text) if text else None
    except ValueError:
        return None


def parse(line: str) -> Entry | None:
    return Entry.parse(line)


def entries_of(body: str) -> list[Entry]:
    """The entries of a body (first lines of list items; superseded ones included)."""
    return [e for e in map(Entry.parse, body.splitlines()) if e is not None]


@dataclass(frozen=True)
class Block:
    """One entry of a body with its place: a list item with its continuation lines, or a paragraph line,
    under its nearest `##` section (None before the first). Fenced code stays inside one block."""

    section: str | None
    text: str
    start: int  # 0-based index of its first line in the body

    @property
    def first_line(self) -> str:
        return self.text.split("\n", 1)[0]

    @property
    def entry(self) -> Entry | None:
        return Entry.parse(self.text)


_LIST_ITEM = re.compile(r"^ {0,3}(?:[-*+]|\d+[.)])\s+\S")
_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")
_COMMENT_LINE = re.compile(r"^\s*<!--.*-->\s*$")


def blocks(body: str) -> list[Block]:
    """The entries of a body, each under its nearest `##` section."""
    found: list[Block] = []
    section: str | None = None
    current: list[str] = []
    start = 0
    in_fence = False

    def flush() -> None:
        if current:
            found.append(Block(section, "\n".join(current), start))
            current.clear()

    for index, line in enumerate(body.splitlines()):
        if _FENCE.match(line) or in_fence:
            if _FENCE.match(line):
                in_fence = not in_fence
            if not current:
                start = index
            current.append(line)
            continue
        heading = _HEADING.match(line)
        if heading:
            flush()
            if len(heading.group(1)) == 2:
                section = heading.group(2).strip()
            continue
        if not line.strip() or _COMMENT_LINE.match(line):
            flush()
            continue
        if _LIST_ITEM.match(line) or not line[:1].isspace() or not current:
            flush()
            start = index
        current.append(line)
    flush()
    return found


def mentioned_days(text: str) -> list[str]:
    """Every ISO day a text names, cited or written ('2026-12-01: Dentist (2026-11-29#4)')."""
    return re.findall(r"\b(" + _DAY + r")(?:#\d+)?\b", text)


def without_bullet(text: str) -> str:
    """'- Likes tea (2026-11-29#17)' -> 'Likes tea (2026-11-29#17)'."""
    return BULLET.sub("", text, count=1)


def normalize_text(text: str) -> str:
    """Words for comparison: single spaces, Unicode forms unified and case folded."""
    return fold(_SPACE.sub(" ", text).strip())


def is_entry(line: str) -> bool:
    return BULLET.match(line) is not None


def is_superseded(line: str) -> bool:
    return _SUPERSEDED.match(line) is not None


def entry_text(line: str) -> str:
    """'- Lives in Paris (2026-11-01#3)' -> 'Lives in Paris' (a line without a bullet: its words alike)."""
    text = BULLET.sub("", line.rstrip("\n"), count=1)
    text = _MARK.sub("", text)
    text = _CITE.sub("", text).strip()
    if text.startswith("~~") and text.endswith("~~"):
        text = text[2:-2]
    return text.strip()


def name_entry(name: str) -> str:
    """The one form of a name entry, in every file and language: 'Name: Lea'."""
    return f"Name: {name}"


def name_of(line: str) -> str | None:
    """'- Name: Lea (2026-11-01#3)' or '* 名字：小明' -> the name; None for other lines."""
    entry = Entry.parse(line)
    return entry.name if entry is not None else None


def cited_ids(line: str) -> list[str]:
    return ID.findall(line)


def cited_days(line: str) -> list[date]:
    """The days of the records a line cites (ids that are no real date are skipped)."""
    days = []
    for rid in cited_ids(line):
        day = _date(rid.split("#", 1)[0])
        if day is not None:
            days.append(day)
    return days


def active_entries(body: str) -> list[str]:
    """Entry lines not marked superseded."""
    return [l for l in body.splitlines() if is_entry(l) and not is_superseded(l)]


def format_entry(text: str, sources: list[str] | tuple[str, ...] = ()) -> str:
    """'- Likes tea (2026-11-29#17)': the line of a new entry."""
    return Entry(text.strip(), tuple(sources)).line()


def supersede_line(line: str, on: date) -> str:
    """'- Lives in Paris (2026-11-01#3)' -> '- ~~Lives in Paris~~ (2026-11-01#3) — superseded 2026-11-29'."""
    entry = Entry.parse(line) or Entry(entry_text(line), tuple(_SOURCE.findall(line)))
    return entry.superseded_at(on).line()


def normalize(text: str) -> str:
    """An entry's words for comparison: no bullet, citation or mark, single spaces, Unicode forms unified
    and case folded."""
    return normalize_text(entry_text(text))


def section_of(body: str, line: str) -> str | None:
    """Title of the section holding `line`."""
    lines = body.splitlines()
    if line not in lines:
        return None
    index = lines.index(line)
    title = None
    for head in sections.headings(body):
        if head.line < index and head.level >= 2:
            title = head.title
    return title


def replace_line(body: str, old_line: str, new_lines: list[str]) -> str:
    """Replace the first line equal to `old_line` with `new_lines` (keeps line endings)."""
    lines = body.splitlines(keepends=True)
    for index, line in enumerate(lines):
        if line.rstrip("\r\n") == old_line:
            ending = line[len(line.rstrip("\r\n")) :] or "\n"
            lines[index : index + 1] = [l + ending for l in new_lines]
            return "".join(lines)
    return body


def remove_line(body: str, line: str) -> str:
    return replace_line(body, line, [])
