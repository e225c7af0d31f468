"""Write SKILL.md for an exported memory: frontmatter within the Agent Skills limits, a guide for other agents."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date, datetime

from companion.errors import PortabilityError
from companion.memory import entries as E

SKILL_NAME = "companion-memory"
MAX_NAME = 64
MAX_DESCRIPTION = 1024
MAX_BODY_LINES = 500
DIGEST_LEVELS = ("day", "week", "month", "year")
_EXAMPLE_ID = "2026-11-29#17"  # the record the guide's example entry cites
_NAME = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")


@dataclass
class MemorySummary:
    """What an export holds, for the description, the metadata and the guide."""

    entries: dict[str, int] = field(default_factory=dict)  # long-term file -> entry count
    days: list[date] = field(default_factory=list)
    records: int = 0
    digests: dict[str, list[str]] = field(default_factory=dict)  # level -> file stems, sorted
    logs_included: bool = True
    redacted: bool = False

    @property
    def first_day(self) -> date | None:
        return self.days[0] if self.days else None

    @property
    def last_day(self) -> date | None:
        return self.days[-1] if self.days else None


def count_entries(body: str) -> int:
    """List items in a Markdown body: the unit of long-term memory."""
    return sum(1 for line in body.splitlines() if E.is_entry(line) and E.entry_text(line))


def check_name(name: str) -> str:
    """The skill name if the Agent Skills rules allow it, else PortabilityError."""
    if not 1 <= len(name) <= MAX_NAME or not _NAME.match(name):
        raise PortabilityError(
            f"{name!r} cannot name a skill: use 1-{MAX_NAME} lowercase letters, digits and single hyphens."
        )
    return name


def check_description(text: str) -> str:
    text = text.strip()
    if not text:
        raise PortabilityError("A skill needs a description.")
    if len(text) > MAX_DESCRIPTION:
        raise PortabilityError(f"The skill description is {len(text)} characters; the limit is {MAX_DESCRIPTION}.")
    return text


def describe(summary: MemorySummary) -> str:
    """The frontmatter description: what this memory holds and when to load it."""
    span = ""
    if summary.first_day and summary.last_day:
        span = f" from {summary.first_day.isoformat()} to {summary.last_day.isoformat()}"
    holds = [
        "who the user is (profile, instructions, preferences)",
        "facts and decisions learned in conversation, corrections and a dated timeline",
        "the companion's own persona",
    ]
    digest_count = sum(len(v) for v in summary.digests.values())
    if digest_count:
        holds.append(f"{digest_count} day/week/month/year digests")
    if summary.logs_included and summary.days:
        holds.append(f"the raw conversation logs of {len(summary.days)} days{span}")
    parts = ["Long-term memory of a personal companion about one user: ", "; ".join(holds[:-1]), "; and ", holds[-1]]
    if span and not (summary.logs_included and summary.days):
        parts.append(f", covering {summary.first_day} to {summary.last_day}")
    parts.append(
        ". Load it when acting as this user's assistant, when you need their preferences, earlier "
        "decisions or history, or when asked what happened on a given date."
    )
    return check_description("".join(parts))


def _q(value: object) -> str:
    """A double-quoted YAML scalar (strict YAML readers want plain strings)."""
    text = str(value).replace("\\", "\\\\").replace('"', '\\"')
    return f'"{text}"'


def render_front(name: str, description: str, metadata: dict[str, object]) -> str:
    lines = ["---", f"name: {check_name(name)}", f"description: {_q(check_description(description))}"]
    if metadata:
        lines.append("metadata:")
        lines.extend(f"  {key}: {_q(value)}" for key, value in metadata.items())
    lines.append("---")
    return "\n".join(lines) + "\n"


def metadata(summary: MemorySummary, exported_at: datetime, version: str) -> dict[str, object]:
    data: dict[str, object] = {
        "exported": exported_at.isoformat(timespec="seconds"),
        "app": "companion",
        "app_version": version,
    }
    for name, count in summary.entries.items():
        data[f"{name.removesuffix('.md').lower()}_entries"] = count
    data["days"] = len(summary.days)
    data["records"] = summary.records
    data["digests"] = sum(len(v) for v in summary.digests.values())
    data["logs_included"] = "yes" if summary.logs_included else "no"
    data["redacted"] = "yes" if summary.redacted else "no"
    return data


def _digest_lines(summary: MemorySummary) -> list[str]:
    patterns = {
        "day": "digests/day/YYYY-MM-DD.md",
        "week": "digests/week/YYYY-Www.md",
        "month": "digests/month/YYYY-MM.md",
        "year": "digests/year/YYYY.md",
    }
    uses = {
        "day": "what happened on one date, with a timeline",
        "week": "the events of one ISO week",
        "month": "key decisions and changes of a month",
        "year": "milestones of a year",
    }
    lines = []
    for level in DIGEST_LEVELS:
        stems = summary.digests.get(level, [])
        held = f"{len(stems)} files, {stems[0]} to {stems[-1]}" if stems else "none yet"
        lines.append(f"- `{patterns[level]}`: {uses[level]} ({held}).")
    return lines


def render_body(summary: MemorySummary) -> str:
    entries = summary.entries
    lines = [
        "# Companion memory",
        "",
        "This folder is the memory of a personal companion about one user. Read the three small",
        "Markdown files first; open digests, then day logs, only when a question needs them.",
        "",
        "## Start here",
        "",
        f"- `USER.md` ({entries.get('USER.md', 0)} entries): who the user is: profile, explicit instructions for",
        "  the assistant, and preferences. Read it before answering the user, every time.",
        f"- `MEMORY.md` ({entries.get('MEMORY.md', 0)} entries): facts, decisions, corrections, topics and",
        "  interests, a dated timeline and upcoming events. Read it when the user refers to the past",
        "  or when a fact, date or earlier decision matters.",
        f"- `SOUL.md` ({entries.get('SOUL.md', 0)} entries): the companion's persona: name, personality, tone",
        "  and boundaries. Read it when you should speak as the companion.",
        "",
        "## Digests: when the files above are not enough",
        "",
        "Summaries written each night from the conversation. Use them to answer \"what happened in",
        "...\" questions without reading raw logs; open the coarsest level that answers the question.",
        "",
        *_digest_lines(summary),
        "",
        "## Day logs: exact wording",
        "",
    ]
    if summary.logs_included and summary.days:
        first, last = summary.first_day, summary.last_day
        lines += [
            f"`days/YYYY-MM/YYYY-MM-DD.jsonl` holds the raw conversation, one file per local calendar day",
            f"({len(summary.days)} days, {first} to {last}, {summary.records} records). Each line is one JSON",
            "object: `id` (`YYYY-MM-DD#N`, N counts up within the day), `ts` (ISO 8601 time with offset),",
            "`role` (`user`, `assistant`, `tool` or `event`) and `text`; optional `tool`, `model`,",
            "`tokens`, and `ref` (the id a record had where it was imported from). A memory synced",
            "between computers has one file per computer for a day (`YYYY-MM-DD.<device>.jsonl`, ids",
            "`YYYY-MM-DD#N.<device>`): read them together, in `ts` order. Open a day only",
            "when exact wording or the order of events matters; search by date, not by scanning all.",
        ]
    elif summary.logs_included:
        lines.append("There are no day logs yet.")
    else:
        lines += [
            "The raw day logs were left out of this export on purpose. The citations below still name",
            "the records the entries came from, but those records are not in this folder.",
        ]
    lines += [
        "",
        "## Sources and dates",
        "",
        "Entries cite the day-log record they were learned from, e.g. "
        f"`{E.Entry('Prefers tea', (_EXAMPLE_ID,)).line()}` or",
        f"`{E.Entry('Prefers tea', (_EXAMPLE_ID,), cite=E.COMMENT).line()}`: record 17 of "
        "`days/2026-11/2026-11-29.jsonl`. An entry that a",
        "newer fact replaced is marked superseded; prefer the newer one. All dates are absolute.",
    ]
    if summary.redacted:
        lines += [
            "",
            "## Redaction",
            "",
            "Personal data was masked in every file of this export: `[email]`, `[phone]`, `[card]`,",
            "`[iban]` and `[secret]` stand for values that were removed. Do not guess them.",
        ]
    if len(lines) >= MAX_BODY_LINES:  # the template is fixed-size; this guards future edits
        raise PortabilityError("SKILL.md would exceed 500 lines.")
    return "\n".join(lines) + "\n"


def render_skill_md(summary: MemorySummary, exported_at: datetime, version: str, name: str = SKILL_NAME) -> str:
    """The complete SKILL.md of an export."""
    return render_front(name, describe(summary), metadata(summary, exported_at, version)) + "\n" + render_body(summary)
