"""Assemble the prompt: a stable system part, history in blocks, then what changes every turn."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from typing import Callable

from companion.llm.base import Message
from companion.memory.records import Record

_COMMENT = re.compile(r"<!--.*?-->", re.S)
_BLANKS = re.compile(r"\n{3,}")
_HEADING_ONLY = re.compile(r"^\s*#{1,6}\s")
STAMP_FORMAT = "%A %Y-%m-%d %H:%M"
_STAMP_ECHO = re.compile(r"^\s*\[[A-Za-z]+ \d{4}-\d{2}-\d{2} \d{2}:\d{2}\]\s*")


def strip_comments(body: str) -> str:
    return _BLANKS.sub("\n\n", _COMMENT.sub("", body)).strip()


def has_content(body: str) -> bool:
    """True when a body holds more than headings, comments and blank lines."""
    for line in strip_comments(body).splitlines():
        if line.strip() and not _HEADING_ONLY.match(line):
            return True
    return False


def stamp(moment: datetime) -> str:
    return f"[{moment.strftime(STAMP_FORMAT)}]"


def strip_stamp_echo(text: str) -> str:
    """Drop a leading '[Sunday 2026-11-29 14:03]' that a small model copied from the user turns."""
    return _STAMP_ECHO.sub("", text, count=1)


def _demote(body: str) -> str:
    """Nest a file's headings under the prompt's own '##' headings."""
    return re.sub(r"^(#{1,5})(\s)", lambda m: "#" + m.group(1) + m.group(2), body, flags=re.M)


def build_system_prompt(
    base: str,
    soul: str,
    user: str,
    memory: str,
    bootstrap: str | None = None,
) -> str:
    """Base instructions + '## Soul' + '## User Profile' + '## Long-term Memory' (+ bootstrap)."""
    parts = [base.strip()]
    for title, body in (("Soul", soul), ("User Profile", user), ("Long-term Memory", memory)):
        text = strip_comments(body)
        parts.append(f"## {title}\n{_demote(text) if has_content(text) else '(nothing yet)'}")
    if bootstrap:
        parts.append(f"## First conversation\n{bootstrap.strip()}")
    return "\n\n".join(parts) + "\n"


def render_user(record: Record) -> str:
    """A past user turn as the model saw it (its own time stamp, no per-turn extras)."""
    try:
        when = stamp(record.timestamp)
    except ValueError:
        return record.text
    return f"{when}\n{record.text}"


def render_final_user(record: Record, blocks: list[str], notes: list[str]) -> str:
    """The new user turn: stamp, text, then recalled memory and notes for this turn only."""
    content = render_user(record)
    extras = [b.strip() for b in blocks if b and b.strip()]
    if notes:
        extras.append("Notes for this reply:\n" + "\n".join(f"- {n}" for n in notes))
    if extras:
        content += "\n\n<context>\n" + "\n\n".join(extras) + "\n</context>"
    return content


def history_messages(records: list[Record]) -> list[Message]:
    messages: list[Message] = []
    for record in records:
        if record.role == "user":
            messages.append({"role": "user", "content": render_user(record)})
        elif record.role == "assistant" and record.text:
            messages.append({"role": "assistant", "content": record.text})
    return messages


def conversational(records: list[Record]) -> list[Record]:
    """User and assistant records that belong in the history. A regenerated reply carries
    `replaces: <old id>`; the replaced one is left out (the log keeps both)."""
    replaced = {r.extra.get("replaces") for r in records if r.extra.get("replaces")}
    return [r for r in records if r.role in ("user", "assistant") and r.id not in replaced]


@dataclass
class HistoryWindow:
    """Which recent records go in the prompt. The start moves only in blocks, so the prompt
    prefix stays the same from turn to turn and the backend can reuse its KV cache."""

    fill: float = 0.6  # after a drop, the history uses at most this share of its budget
    start_id: str | None = None
    _costs: dict[str, int] = field(default_factory=dict)

    def select(self, records: list[Record], cost: Callable[[Record], int], budget: int) -> list[Record]:
        if budget <= 0 or not records:
            return []

        def cost_of(record: Record) -> int:
            if record.id not in self._costs:
                self._costs[record.id] = cost(record) + 6  # role markers
            return self._costs[record.id]

        ids = [r.id for r in records]
        start = ids.index(self.start_id) if self.start_id in ids else None
        if start is not None and sum(cost_of(r) for r in records[start:]) <= budget:
            return records[start:]
        # (re)start: keep the newest records that fit in `fill` of the budget
        total = 0
        start = len(records)
        while start > 0 and total + cost_of(records[start - 1]) <= budget * self.fill:
            start -= 1
            total += cost_of(records[start])
        while start < len(records) and records[start].role != "user":
            start += 1
        self.start_id = records[start].id if start < len(records) else None
        return records[start:]
