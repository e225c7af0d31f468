"""Assemble the prompt: a stable system part, history in blocks, then what changes every turn."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Callable

from companion.llm.base import Message
from companion.memory import records as R
from companion.memory.records import Record
from companion.memory import entries as E

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
    parts = [base.strip(), memory_sections({"SOUL.md": soul, "USER.md": user, "MEMORY.md": memory})]
    if bootstrap:
        parts.append(f"## First conversation\n{bootstrap.strip()}")
    return "\n\n".join(parts) + "\n"


# -- the memory budget ---------------------------------------------------------

LONG_TERM_TITLES = (("SOUL.md", "Soul"), ("USER.md", "User Profile"), ("MEMORY.md", "Long-term Memory"))
_DROP_ORDER = ("MEMORY.md", "USER.md", "SOUL.md")  # the persona goes last


def memory_sections(bodies: dict[str, str]) -> str:
    """The long-term part of the system prompt, as it is rendered there."""
    parts = []
    for name, title in LONG_TERM_TITLES:
        text = strip_comments(bodies.get(name, ""))
        parts.append(f"## {title}\n{_demote(text) if has_content(text) else '(nothing yet)'}")
    return "\n\n".join(parts)


def _entries(body: str) -> list[list[str]]:
    """A body cut into blocks: a heading alone, or an entry (bullet with its continuation lines, or paragraph)."""
    blocks: list[list[str]] = []
    for line in strip_comments(body).splitlines():
        starts = _HEADING_ONLY.match(line) or E.is_entry(line) or not line.strip()
        if starts or not blocks or _HEADING_ONLY.match(blocks[-1][0]):
            blocks.append([line])
        else:
            blocks[-1].append(line)
    return [b for b in blocks if "".join(b).strip()]


def _drop_rank(block: list[str], position: int) -> tuple[str, int]:
    """Older entries go first (by the newest date they cite); undated ones from the end of the file."""
    days = E.mentioned_days("\n".join(block))
    return (max(days) if days else "9999-99-99", -position if not days else position)


RECALL_SHARE = 0.4  # of the memory budget, kept free for recalled snippets when the files are long


@dataclass
class MemoryFit:
    """The long-term part of the prompt within the budget, and what is left for recall."""

    bodies: dict[str, str]
    dropped: list[str]
    tokens: int  # the long-term sections as rendered
    budget: int

    @property
    def recall_budget(self) -> int:
        return max(0, self.budget - self.tokens)


def fit_memory(bodies: dict[str, str], budget: int, count: Callable[[str], int]) -> MemoryFit:
    """Long-term files take at most (1 - RECALL_SHARE) of the budget; recall gets the rest."""
    cap = int(budget * (1 - RECALL_SHARE))
    kept, dropped = fit_long_term(bodies, cap, count)
    return MemoryFit(kept, dropped, count(memory_sections(kept)), budget)


def fit_long_term(bodies: dict[str, str], budget: int, count: Callable[[str], int]) -> tuple[dict[str, str], list[str]]:
    """Long-term bodies cut to fit `budget` tokens once rendered, and the entries left out.

    MEMORY.md entries go first (oldest dated first), then USER.md, then SOUL.md; headings stay.
    The result depends only on the files and the budget, so the system prompt stays the same
    from turn to turn. Entries left out are still found by recall.
    """
    if count(memory_sections(bodies)) <= budget:
        return dict(bodies), []
    blocks = {name: _entries(bodies.get(name, "")) for name, _ in LONG_TERM_TITLES}
    dropped: list[str] = []
    kept = {name: list(range(len(b))) for name, b in blocks.items()}

    def render() -> dict[str, str]:
        return {n: "\n".join("\n".join(blocks[n][i]) for i in kept[n]) for n in blocks}

    for name in _DROP_ORDER:
        order = sorted(
            (i for i in kept[name] if not _HEADING_ONLY.match(blocks[name][i][0])),
            key=lambda i: _drop_rank(blocks[name][i], i),
        )
        costs = {i: count("\n".join(blocks[name][i])) + 1 for i in order}
        excess = count(memory_sections(render())) - budget
        for index in order:
            if excess <= 0:
                break
            kept[name].remove(index)
            dropped.append("\n".join(blocks[name][index]))
            excess -= costs[index]
            if excess <= 0:  # the per-entry estimate may be off by a token or two: check the real thing
                excess = count(memory_sections(render())) - budget
        if excess <= 0:
            break
    return render(), dropped


STAMP_GAP = timedelta(minutes=30)


def needs_stamp(record: Record, previous: Record | None) -> bool:
    """A user turn carries its date and time when it opens a day or follows a pause.

    Stamping every turn would cost ~15 prompt tokens each, for a time the model can
    take from the last stamp during a lively exchange.
    """
    if previous is None:
        return True
    try:
        now, before = record.timestamp, previous.timestamp
    except ValueError:
        return True
    return now.date() != before.date() or now - before >= STAMP_GAP


MAX_MESSAGE_CHARS = 16_000  # ~5k tokens; the day log keeps the whole text


def clip(text: str) -> str:
    """A message cut to what a prompt can hold (a pasted megabyte would stall the tokenizer for minutes)."""
    if len(text) <= MAX_MESSAGE_CHARS:
        return text
    return text[:MAX_MESSAGE_CHARS] + f"\n[... {len(text) - MAX_MESSAGE_CHARS} more characters not shown]"


def render_user(record: Record, previous: Record | None = None) -> str:
    """A user turn as the model sees it, derived from the log alone (so the prefix stays stable)."""
    text = clip(record.text)
    if not needs_stamp(record, previous):
        return text
    try:
        when = stamp(record.timestamp)
    except ValueError:
        return text
    return f"{when}\n{text}"


def render_final_user(record: Record, blocks: list[str], notes: list[str], previous: Record | None = None) -> str:
    """The new user turn: recalled memory and notes for this turn only, then (stamp) and text.

    The block comes first: it can be read ahead while the user types (it depends on the words, not on
    the minute the message is sent), and the model's last input is the message it answers."""
    content = render_user(record, previous)
    extras = [b.strip() for b in blocks if b and b.strip()]
    if notes:
        extras.append("Notes for this reply:\n" + "\n".join(f"- {n}" for n in notes))
    if extras:
        content = "<context>\n" + "\n\n".join(extras) + "\n</context>\n\n" + content
    return content


def history_messages(records: list[Record]) -> list[Message]:
    messages: list[Message] = []
    previous: Record | None = None
    for record in records:
        if record.role == "user":
            messages.append({"role": "user", "content": render_user(record, previous)})
            previous = record
        elif record.role == "assistant" and record.text:
            messages.append({"role": "assistant", "content": clip(record.text)})
    return messages


def conversational(records: list[Record]) -> list[Record]:
    """User and assistant records that belong in the history (a replaced reply does not)."""
    return R.conversational(records)


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
