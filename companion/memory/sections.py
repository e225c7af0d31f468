"""Markdown `## Heading` sections of a body: find, replace, append (pure string functions)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from companion.memory.section_names import file_language, localized, same_section

_HEADING = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t#]*$")
_FENCE = re.compile(r"^\s*(```|~~~)")


@dataclass(frozen=True)
class Heading:
    level: int
    title: str
    line: int  # index into body.splitlines(keepends=True)


def headings(body: str) -> list[Heading]:
    """ATX headings outside fenced code blocks."""
    found: list[Heading] = []
    in_fence = False
    for index, line in enumerate(body.splitlines()):
        if _FENCE.match(line):
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        match = _HEADING.match(line)
        if match:
            found.append(Heading(len(match.group(1)), match.group(2).strip(), index))
    return found


def parse_heading(text: str) -> tuple[int, str]:
    """'## Facts' -> (2, 'Facts'); a bare 'Facts' means a level-2 heading."""
    match = _HEADING.match(text.strip())
    if match:
        return len(match.group(1)), match.group(2).strip()
    return 2, text.strip()


def find_section(body: str, heading: str) -> tuple[int, int, int] | None:
    """(heading line, first content line, end line) of the section, in line indices, or None.

    A section runs from its heading to the next heading of the same or higher level.
    Titles compare case-insensitively and across languages ('## Facts' finds '## 事实'); the first match wins.
    """
    level, title = parse_heading(heading)
    all_headings = headings(body)
    total = len(body.splitlines())
    for position, head in enumerate(all_headings):
        if head.level == level and same_section(head.title, title):
            end = total
            for later in all_headings[position + 1 :]:
                if later.level <= level:
                    end = later.line
                    break
            return head.line, head.line + 1, end
    return None


def _join(lines: list[str]) -> str:
    return "".join(lines)


def _ensure_newline(text: str) -> str:
    return text if text.endswith("\n") or not text else text + "\n"


def replace_section(body: str, heading: str, content: str) -> str | None:
    """Body with the section's content replaced (heading kept); None if the heading is absent."""
    span = find_section(body, heading)
    if span is None:
        return None
    _, start, end = span
    lines = body.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n") and end == len(lines):
        lines[-1] += "\n"
    new_content = _ensure_newline(content.strip("\n")) if content.strip() else ""
    trailing = "\n" if end < len(lines) else ""
    block = new_content + trailing if new_content else trailing
    return _join(lines[:start]) + block + _join(lines[end:])


def append_to_section(body: str, heading: str, text: str) -> str | None:
    """Body with `text` added as the last lines of the section; None if the heading is absent."""
    span = find_section(body, heading)
    if span is None:
        return None
    _, start, end = span
    lines = body.splitlines(keepends=True)
    insert_at = end
    while insert_at > start and not lines[insert_at - 1].strip():
        insert_at -= 1
    if insert_at > 0 and not lines[insert_at - 1].endswith("\n"):
        lines[insert_at - 1] += "\n"
    addition = [_ensure_newline(text.strip("\n"))]
    return _join(lines[:insert_at] + addition + lines[insert_at:])


def add_section(body: str, heading: str, content: str) -> str:
    """Body with a new section at its end; a known section is titled in the language the file uses."""
    level, title = parse_heading(heading)
    title = localized(title, file_language(h.title for h in headings(body)))
    prefix = body
    if prefix and not prefix.endswith("\n"):
        prefix += "\n"
    if prefix.strip() and not prefix.endswith("\n\n"):
        prefix += "\n"
    section = f"{'#' * level} {title}\n"
    if content.strip():
        section += _ensure_newline(content.strip("\n"))
    return prefix + section


def append_text(body: str, text: str) -> str:
    """Body with `text` added at the very end."""
    prefix = body
    if prefix and not prefix.endswith("\n"):
        prefix += "\n"
    return prefix + _ensure_newline(text.strip("\n"))


_COMMENT_ONLY = re.compile(r"^\s*(?:<!--.*?-->\s*)*$")


def empty_sections(body: str, level: int = 2) -> list[Heading]:
    """Headings of `level` whose section holds nothing but blank lines and comments (subsections count as content)."""
    lines = body.splitlines()
    found = headings(body)
    empty = []
    for position, head in enumerate(found):
        if head.level != level:
            continue
        end = found[position + 1].line if position + 1 < len(found) else len(lines)
        if all(_COMMENT_ONLY.match(line) for line in lines[head.line + 1 : end]):
            empty.append(head)
    return empty
