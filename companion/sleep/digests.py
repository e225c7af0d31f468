"""Rollups: day, week, month and year digests with frontmatter naming their sources; rebuilt when sources change."""

from __future__ import annotations

import functools
import hashlib
import logging
import re
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path
from typing import Any, Callable

from companion.errors import CompanionError
from companion.llm.base import Backend
from companion.atomic import atomic_write
from companion.memory.daylog import DayLog
from companion.memory.document import parse_document, render_front
from companion.memory.records import Record
from companion.curate.sensitive import flagged
from companion.paths import Home
from companion.curate import extract as rules
from companion.curate.dates import absolutize, has_relative_date
from companion.sleep.distill import ModelStats, conversational, generate_json, render_record
from companion.memory import entries as E

log = logging.getLogger(__name__)

DIGEST_VERSION = 1
DAY_EVENTS = 10
WEEK_EVENTS_PER_DAY = 4
LINE_CHARS = 140
MONTH_CHANGES = 12  # the extractive month keeps the most important stated changes, not every one
YEAR_MILESTONES = 12
_TIME = re.compile(r"^\d{2}:\d{2}$")
_MILESTONE_SECTIONS = ("Decisions", "Corrections", "Timeline", "Profile")


@dataclass
class Written:
    period: str
    key: str
    path: Path
    generator: str


# -- periods ------------------------------------------------------------------


def week_key(day: date) -> str:
    year, week, _ = day.isocalendar()
    return f"{year}-W{week:02d}"


def week_span(key: str) -> tuple[date, date]:
    start = date.fromisocalendar(int(key[:4]), int(key[6:]), 1)
    return start, start + timedelta(days=6)


def month_span(key: str) -> tuple[date, date]:
    start = date(int(key[:4]), int(key[5:7]), 1)
    nxt = date(start.year + (start.month == 12), start.month % 12 + 1, 1)
    return start, nxt - timedelta(days=1)


def digest_path(home: Home, period: str, key: str) -> Path:
    return home.digests / period / f"{key}.md"


# -- source fingerprints ------------------------------------------------------


def _fingerprint(path: Path) -> str:
    """Append-only day logs: the size says whether they changed. Digests: a short content hash."""
    if path.suffix == ".jsonl":
        return f"{path.stat().st_size} bytes"
    return "sha256:" + hashlib.sha256(path.read_bytes()).hexdigest()[:16]


def _relative(home: Home, path: Path) -> str:
    return path.relative_to(home.memory).as_posix()


def _stored_meta(path: Path) -> dict[str, Any] | None:
    try:
        return parse_document(path.name, path.read_text(encoding="utf-8")).meta
    except (OSError, UnicodeDecodeError, CompanionError):  # a damaged digest is simply rebuilt
        return None


def _up_to_date(home: Home, path: Path, sources: list[Path]) -> bool:
    meta = _stored_meta(path) if path.exists() else None
    if not meta:
        return False
    stored = meta.get("source_fingerprints")
    wanted = {_relative(home, s): _fingerprint(s) for s in sources}
    return isinstance(stored, dict) and stored == wanted


def _write(home: Home, period: str, key: str, start: date, end: date, sources: list[Path], generator: str, body: str) -> Written:
    meta = {
        "schema_version": DIGEST_VERSION,
        "period": period,
        "key": key,
        "start": start.isoformat(),
        "end": end.isoformat(),
        "generator": generator,
        "sources": [_relative(home, s) for s in sources],
        "source_fingerprints": {_relative(home, s): _fingerprint(s) for s in sources},
    }
    path = digest_path(home, period, key)
    atomic_write(path, render_front(meta) + body.rstrip("\n") + "\n")
    return Written(period, key, path, generator)


# -- extractive pieces ----------------------------------------------------------


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= LINE_CHARS else text[: LINE_CHARS - 1].rstrip() + "…"


def salience(record: Record) -> float:
    """How much a user turn is worth keeping in a timeline: statements about self, plans, names, length."""
    text = record.text
    score = min(len(text), 200) / 40
    if re.search(r"\b(I|my|we|our)\b|我", text, re.I):
        score += 2
    if re.search(r"\d|tomorrow|monday|tuesday|wednesday|thursday|friday|saturday|sunday|明天|下周|月", text, re.I):
        score += 2
    if re.search(r"\b[A-Z][a-z]+\b", text[1:]):
        score += 1
    if rules.extract([record]):
        score += 4
    if len(text) < 12:
        score -= 3
    return score


def extractive_events(records: list[Record], limit: int) -> list[Record]:
    """The most salient user turns, in time order; a line with a secret or contact data is never copied."""
    candidates = [r for r in records if r.role == "user" and r.text.strip() and not r.private and not flagged(r.text)]
    chosen = sorted(candidates, key=salience, reverse=True)[:limit]
    order = {id(r): n for n, r in enumerate(records)}  # the day's time order (several computers' files)
    return sorted(chosen, key=lambda r: order[id(r)])


def event_line(record: Record) -> str:
    text = _short(absolutize(record.text, record.day))
    return E.format_entry(f"{record.timestamp:%H:%M} {text}", [record.id])


# -- day ----------------------------------------------------------------------------


def _day_schema(ids: list[str]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            "events": {
                "type": "array",
                "minItems": 1,
                "maxItems": 8,
                "items": {
                    "type": "object",
                    "properties": {
                        "time": {"type": "string", "pattern": "^[0-2][0-9]:[0-5][0-9]$"},
                        "text": {"type": "string", "maxLength": LINE_CHARS},
                        "sources": {"type": "array", "minItems": 1, "maxItems": 3, "items": {"type": "string", "enum": ids}},
                    },
                    "required": ["time", "text", "sources"],
                },
            }
        },
        "required": ["events"],
    }


def model_day_lines(backend: Backend, day: date, records: list[Record], stats: ModelStats) -> list[str] | None:
    """A model-written timeline, or None when it fails validation (then the extractive one is used)."""
    convo = conversational(records)[-60:]
    if not any(r.role == "user" for r in convo):
        return None
    by_id = {r.id: r for r in convo}
    messages = [
        {"role": "system", "content": "Summarize the day's conversation as a short timeline of what happened. "
         "Each event: time HH:MM, one sentence in the third person with absolute dates, and the ids of its lines. JSON only."},
        {"role": "user", "content": f"Conversation of {day.isoformat()}:\n" + "\n".join(render_record(r) for r in convo)},
    ]
    data = generate_json(backend, messages, _day_schema(list(by_id)), stats)
    events = data.get("events") if isinstance(data, dict) else None
    if not isinstance(events, list) or not events:
        return None
    lines: list[str] = []
    seen: set[str] = set()
    for event in events:
        if not isinstance(event, dict):
            return None
        text = absolutize(" ".join(str(event.get("text", "")).split()), day)
        sources = [s for s in event.get("sources") or [] if s in by_id]
        letters = re.findall(r"[^\W\d_]", E.ID.sub("", text))
        if (not sources or len(text) < 5 or len(letters) < 3 or flagged(text)
                or has_relative_date(text) or text.casefold() in seen or not _TIME.match(str(event.get("time", "")))):
            return None  # one bad line means the summary is not trustworthy
        seen.add(text.casefold())
        lines.append(E.format_entry(f"{event['time']} {text}", sources))
    return lines


def build_day(home: Home, daylog: DayLog, day: date, backend: Backend | None, stats: ModelStats) -> Written:
    read = daylog.read_day(day)
    lines = model_day_lines(backend, day, read.records, stats) if backend is not None else None
    generator = "model" if lines else "extractive"
    if not lines:
        lines = [event_line(r) for r in extractive_events(read.records, DAY_EVENTS)] or ["- (no conversation)"]
    users = sum(1 for r in read.records if r.role == "user" and not r.private)
    body = f"# {day.isoformat()} ({day:%A})\n\n{users} messages from the user.\n\n## Timeline\n" + "\n".join(lines)
    return _write(home, "day", day.isoformat(), day, day, daylog.files(day), generator, body)


# -- week, month, year ------------------------------------------------------------


def build_week(home: Home, daylog: DayLog, key: str, days: list[date]) -> Written:
    start, end = week_span(key)
    parts = [f"# Week {key} ({start.isoformat()} to {end.isoformat()})", "", "## Events, day by day"]
    for day in days:
        records = daylog.read_day(day).records
        users = sum(1 for r in records if r.role == "user" and not r.private)
        parts.append(f"\n### {day.isoformat()} ({day:%A}), {users} messages")
        parts.extend(event_line(r) for r in extractive_events(records, WEEK_EVENTS_PER_DAY))
    return _write(home, "week", key, start, end, [p for d in days for p in daylog.files(d)], "extractive", "\n".join(parts))


def importance(line: str) -> int:
    """How much a stated change matters in a month or year: a life change (home, work, name, diet)
    over a decision over a correction over a dated event."""
    entry = E.Entry.parse(line)
    text = entry.what if entry is not None else line
    if rules.slot_of("USER.md", text):
        return 4
    if re.match(r"(?:Decided|决定)", text):
        return 3
    if "(not " in text or text.startswith(("Correction", "更正")):
        return 2
    return 1


def most_important(lines: list[str], limit: int) -> list[str]:
    """The `limit` most important lines, in their original (time) order."""
    ranked = sorted(range(len(lines)), key=lambda i: (-importance(lines[i]), i))[:limit]
    return [lines[i] for i in sorted(ranked)]


def key_changes(records: list[Record]) -> list[str]:
    """Decisions, corrections, moves and dated events the user stated, as dated lines, most important first kept."""
    wanted = {"Decisions", "Corrections", "Timeline", "Upcoming"}
    lines: list[str] = []
    for op in rules.extract([r for r in records if not r.private]):
        if op.kind != "retire" and (op.section in wanted or op.old):
            day = op.sources[0].split("#")[0]
            text = op.text if E.Entry(op.text).day is not None else f"{day}: {op.text}"
            if not flagged(text):
                lines.append(E.format_entry(text, op.sources))
    return most_important(list(dict.fromkeys(lines)), MONTH_CHANGES)


def build_month(home: Home, daylog: DayLog, key: str, days: list[date]) -> Written:
    start, end = month_span(key)
    records = [r for d in days for r in daylog.read_day(d).records]
    weeks = sorted({week_key(d) for d in days})
    week_files = [p for p in (digest_path(home, "week", w) for w in weeks) if p.exists()]
    changes = key_changes(records) or ["- (no decisions or changes were stated)"]
    parts = [f"# {start:%B %Y}", "", f"{len(days)} days with conversation.", "", "## Key decisions and changes", *changes,
             "", "## Weeks", *(f"- [{p.stem}](../week/{p.name})" for p in week_files)]
    sources = [p for d in days for p in daylog.files(d)] + week_files
    return _write(home, "month", key, start, end, sources, "extractive", "\n".join(parts))


def build_year(home: Home, key: str, month_files: list[Path]) -> Written:
    milestones: list[str] = []
    for path in month_files:
        body = parse_document(path.name, path.read_text(encoding="utf-8")).body
        block = body.split("## Key decisions and changes", 1)[-1].split("\n## ", 1)[0]
        milestones.extend(l for l in block.splitlines() if E.is_entry(l) and "(no decisions" not in l)
    milestones = most_important(milestones, YEAR_MILESTONES)
    parts = [f"# {key}", "", "## Milestones", *(milestones or ["- (none recorded)"]), "", "## Months",
             *(f"- [{p.stem}](../month/{p.name})" for p in month_files)]
    return _write(home, "year", key, date(int(key), 1, 1), date(int(key), 12, 31), month_files, "extractive", "\n".join(parts))


# -- the rollup pass ---------------------------------------------------------------


def update_digests(
    home: Home,
    daylog: DayLog,
    today: date,
    *,
    backend: Backend | None = None,
    model_days: set[date] | None = None,
    stats: ModelStats | None = None,
    dry_run: bool = False,
    check: Callable[[], None] = lambda: None,
) -> list[Written]:
    """Write every digest whose period is complete and that is missing or stale; model summaries for `model_days`."""
    stats = stats or ModelStats()
    model_days = model_days or set()
    written: list[Written] = []
    days = [d for d in daylog.days() if d < today]
    for day in days:
        path = digest_path(home, "day", day.isoformat())
        if not _up_to_date(home, path, daylog.files(day)):
            check()
            if dry_run:
                written.append(Written("day", day.isoformat(), path, "dry-run"))
            else:
                written.append(build_day(home, daylog, day, backend if day in model_days else None, stats))
    weeks: dict[str, list[date]] = {}
    months: dict[str, list[date]] = {}
    for day in days:
        weeks.setdefault(week_key(day), []).append(day)
        months.setdefault(f"{day:%Y-%m}", []).append(day)
    for key, members in weeks.items():
        if week_span(key)[1] < today:
            written.extend(_rollup(home, "week", key, [p for d in members for p in daylog.files(d)], dry_run,
                                   functools.partial(build_week, home, daylog, key, members)))
    for key, members in months.items():
        if month_span(key)[1] < today:
            sources = [p for d in members for p in daylog.files(d)]
            sources += [p for p in (digest_path(home, "week", w) for w in sorted({week_key(d) for d in members})) if p.exists()]
            written.extend(_rollup(home, "month", key, sources, dry_run, functools.partial(build_month, home, daylog, key, members)))
    years = sorted({k[:4] for k in months})
    for key in years:
        if date(int(key), 12, 31) < today:
            month_files = sorted(p for p in (home.digests / "month").glob(f"{key}-*.md"))
            if month_files:
                written.extend(_rollup(home, "year", key, month_files, dry_run, functools.partial(build_year, home, key, month_files)))
    return written


def _rollup(home: Home, period: str, key: str, sources: list[Path], dry_run: bool, build: Callable[[], Written]) -> list[Written]:
    path = digest_path(home, period, key)
    if _up_to_date(home, path, sources):
        return []
    if dry_run:
        return [Written(period, key, path, "dry-run")]
    return [build()]
