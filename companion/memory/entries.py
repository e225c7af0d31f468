"""Bullet entries of a long-term body: their text, citations, superseded marks, and edits by line."""

from __future__ import annotations

import re
import unicodedata
from datetime import date

from companion.memory import sections

# The grammar. An entry is a list item: "-", "*", "+" or a number ("1." / "1)") and a space.
BULLET = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
# A record id "2026-11-29#17"; CITED: one in parentheses, with its day and number as groups.
ID = re.compile(r"\d{4}-\d{2}-\d{2}#\d+")
CITED = re.compile(r"\((\d{4}-\d{2}-\d{2})#(\d+)\)")
# Citations at the end of an entry: "(2026-11-29#17)", "(2026-11-29#17, 2026-11-30#2)" or "<!-- src: ... -->".
_CITE = re.compile(r"\s*\((?:\d{4}-\d{2}-\d{2}#\d+(?:,\s*)?)+\)|\s*<!--.*?-->")
# Superseded: "- ~~Lives in Paris~~ (2026-11-01#3) — superseded 2026-11-29".
_SUPERSEDED = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+~~.*~~.*\bsuperseded\b", re.I)
_MARK = re.compile(r"\s+[—-]+\s+superseded \d{4}-\d{2}-\d{2}.*$", re.I)
_SPACE = re.compile(r"\s+")
_NAME = re.compile(r"^(?:Name|名字)\s*[:：]\s*(?P<v>.+)$")
NAME_SLOT = "Name:|名字："  # an update of either form replaces the other


def is_entry(line: str) -> bool:
    return BULLET.match(line) is not None


def is_superseded(line: str) -> bool:
    return _SUPERSEDED.match(line) is not None


def entry_text(line: str) -> str:
    """'- Lives in Paris (2026-11-01#3)' -> 'Lives in Paris'."""
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
    if not is_entry(line) or is_superseded(line):
        return None
    match = _NAME.match(entry_text(line))
    return match.group("v").strip() if match else None


def cited_ids(line: str) -> list[str]:
    return ID.findall(line)


def cited_days(line: str) -> list[date]:
    """The days of the records a line cites (ids that are no real date are skipped)."""
    days = []
    for rid in cited_ids(line):
        try:
            days.append(date.fromisoformat(rid.split("#", 1)[0]))
        except ValueError:
            continue
    return days


def active_entries(body: str) -> list[str]:
    """Entry lines not marked superseded."""
    return [l for l in body.splitlines() if is_entry(l) and not is_superseded(l)]


def format_entry(text: str, sources: list[str]) -> str:
    return f"- {text} ({', '.join(sources)})"


def supersede_line(line: str, on: date) -> str:
    """'- Lives in Paris (2026-11-01#3)' -> '- ~~Lives in Paris~~ (2026-11-01#3) — superseded 2026-11-29'."""
    cites = " ".join(m.group(0).strip() for m in _CITE.finditer(line))
    marked = f"- ~~{entry_text(line)}~~"
    return f"{marked} {cites} — superseded {on.isoformat()}".replace("  ", " ")


def normalize(text: str) -> str:
    """An entry's words for comparison: no bullet, citation or mark, single spaces, NFKC and case folded
    (so a decomposed "Müller" and full-width "Ｍｕｌｌｅｒ" compare as they read)."""
    folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", text).casefold())
    return _SPACE.sub(" ", entry_text(folded)).strip()


def find_duplicate_entry(text: str, body: str) -> str | None:
    from companion.memory.dedupe import is_duplicate  # the duplicate rule reads this grammar

    for line in active_entries(body):
        if is_duplicate(text, entry_text(line)):
            return line
    return None


def find_entries(body: str, old: str) -> list[str]:
    """Active entries that `old` names: same text, or starting with it (a slot like 'Lives in')."""
    from companion.memory.dedupe import is_duplicate

    wanted = entry_text(old).casefold()
    if not wanted:
        return []
    found = []
    for line in active_entries(body):
        text = entry_text(line).casefold()
        if text == wanted or text.startswith(wanted) or is_duplicate(wanted, text):
            found.append(line)
    return found


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
