"""Forget everywhere: erase what the user asked to forget from day logs, digests, snapshots, backups,
sleep reports and the search index, not only from the long-term files.

Day logs are append-only, with this one exception the user asks for by name. Each file is
rewritten whole (a temp file and a rename, under the day log's own lock), so a crash leaves the
old or the new file, never half. In a record only the sentences that match are replaced by
FORGOTTEN (the whole text when the match spans sentences), and the record is marked `forgotten`;
a tombstone event (without the text) is appended to today's log.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator

from companion.atomic import atomic_write
from companion.filelock import locked
from companion.memory import maintenance
from companion.memory.daylog import DayLog
from companion.memory.dedupe import normalize
from companion.memory.records import Record
from companion.memory.search import SearchIndex
from companion.memory.search.vectors import prune_stores
from companion.paths import Home

Matcher = Callable[[str], bool]  # called with normalized text (memory.dedupe.normalize)
FORGOTTEN = "[forgotten]"
_SENTENCE = re.compile(r"(?<=[.!?。！？\n])\s*")


@dataclass
class Erased:
    """Where the text was found (and, unless it was a dry run, erased)."""

    records: int = 0
    days: set[str] = field(default_factory=set)
    texts: dict[str, str] = field(default_factory=dict)  # day-log record id -> its text now
    files: list[Path] = field(default_factory=list)  # digests, snapshots, backups and reports changed

    @property
    def found(self) -> bool:
        return bool(self.records or self.files)

    def summary(self) -> str:
        days = len(self.days)
        return (f"{self.records} message{'s' if self.records != 1 else ''} on {days} day{'s' if days != 1 else ''}, "
                f"and {len(self.files)} other file{'s' if len(self.files) != 1 else ''} "
                "(digests, earlier versions, backups, sleep reports)")


def scrub_text(text: str, matches: Matcher) -> str:
    """`text` with every matching sentence replaced by FORGOTTEN (all of it when no single sentence matches)."""
    if not matches(normalize(text)):
        return text
    parts = [p for p in _SENTENCE.split(text) if p]
    hit = [matches(normalize(p)) for p in parts]
    if not any(hit):
        return FORGOTTEN
    kept = [FORGOTTEN if h else p for p, h in zip(parts, hit)]
    return " ".join(p.strip() for p in kept if p.strip())


def _scrub_record(record: Record, matches: Matcher) -> bool:
    """Scrub the record's text and any string in its extra fields; True when anything changed."""
    changed = False
    text = scrub_text(record.text, matches)
    if text != record.text:
        record.text, changed = text, True
    extra = _scrub_json(record.extra, matches)
    if extra != record.extra:
        record.extra, changed = extra, True
    if changed:
        record.extra["forgotten"] = True
    return changed


def _scrub_json(value: Any, matches: Matcher) -> Any:
    if isinstance(value, str):
        return scrub_text(value, matches)
    if isinstance(value, list):
        return [_scrub_json(v, matches) for v in value]
    if isinstance(value, dict):
        return {k: _scrub_json(v, matches) for k, v in value.items()}
    return value


def _scrub_log(data: bytes, matches: Matcher, texts: dict[str, str]) -> tuple[bytes, int]:
    """A day log with matching records scrubbed and unreadable lines that match dropped; (bytes, records
    changed). The new text of each changed record goes into `texts`."""
    out: list[bytes] = []
    changed = 0
    for line in data.splitlines(keepends=True):
        try:
            record = Record.from_dict(json.loads(line))
        except (ValueError, RecursionError):
            if matches(normalize(line.decode("utf-8", "replace"))):
                changed += 1
                continue
            out.append(line)
            continue
        if _scrub_record(record, matches):
            changed += 1
            texts[record.id] = record.text
            out.append(record.to_line())
        else:
            out.append(line)
    return b"".join(out), changed


def _scrub_markdown(text: str, matches: Matcher) -> str:
    return "".join(line for line in text.splitlines(keepends=True) if not matches(normalize(line)))


def _files(folder: Path, pattern: str) -> Iterator[Path]:
    if folder.is_dir():
        yield from (p for p in sorted(folder.rglob(pattern)) if p.is_file() and not p.is_symlink())


def _erase_day_logs(folder: Path, matches: Matcher, erased: Erased, dry_run: bool, counted: bool) -> None:
    for path in _files(folder, "*.jsonl"):
        with locked(path.with_name("." + path.name + ".lock")):  # the lock every append takes
            data = path.read_bytes()
            new, changed = _scrub_log(data, matches, erased.texts if counted else {})
            if not changed:
                continue
            if counted:
                erased.records += changed
                erased.days.add(path.stem)
            else:
                erased.files.append(path)
            if not dry_run:
                atomic_write(path, new)


def _erase_text_files(folder: Path, matches: Matcher, erased: Erased, dry_run: bool) -> None:
    for path in _files(folder, "*.md"):
        text = path.read_text(encoding="utf-8", errors="surrogateescape")
        new = _scrub_markdown(text, matches)
        if new != text:
            erased.files.append(path)
            if not dry_run:
                atomic_write(path, new.encode("utf-8", "surrogateescape"))


def _erase_json_files(folder: Path, matches: Matcher, erased: Erased, dry_run: bool) -> None:
    for path in _files(folder, "*.json"):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        new = _scrub_json(data, matches)
        if new != data:
            erased.files.append(path)
            if not dry_run:
                atomic_write(path, json.dumps(new, ensure_ascii=False, indent=1))


def _erase_reminder_state(path: Path, matches: Matcher, erased: Erased, dry_run: bool) -> None:
    """The reminders already shown keep their text: drop the ones that match."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return
    shown = data.get("shown") if isinstance(data, dict) else None
    if not isinstance(shown, list):
        return
    kept = [k for k in shown if not (isinstance(k, str) and matches(normalize(k)))]
    if kept != shown:
        erased.files.append(path)
        if not dry_run:
            atomic_write(path, json.dumps({**data, "shown": kept}, ensure_ascii=False))


def erase_everywhere(home: Home, matches: Matcher, daylog: DayLog, index: SearchIndex | None = None,
                     *, dry_run: bool = False) -> Erased:
    """Erase what `matches` from every copy outside the long-term files (those are the caller's:
    the ordinary "forget" removes their entries). With `dry_run`, only count. Holds the memory lock
    exclusively (`memory/maintenance.py`): no night step or import reads a copy it is erasing."""
    if dry_run:  # only counts: a night step or an import may run meanwhile
        return _erase_everywhere(home, matches, daylog, index, dry_run)
    with maintenance.exclusive(home):
        maintenance.note_forget(home)
        return _erase_everywhere(home, matches, daylog, index, dry_run)


def _erase_everywhere(home: Home, matches: Matcher, daylog: DayLog, index: SearchIndex | None, dry_run: bool) -> Erased:
    erased = Erased()
    _erase_day_logs(home.days, matches, erased, dry_run, counted=True)
    _erase_text_files(home.digests, matches, erased, dry_run)
    _erase_text_files(home.history, matches, erased, dry_run)
    backups = home.state / "backups"
    _erase_text_files(backups, matches, erased, dry_run)
    _erase_day_logs(backups, matches, erased, dry_run, counted=False)
    conflicts = home.state / "sync-conflicts"  # conflict copies a sync tool made, kept after they were merged
    _erase_text_files(conflicts, matches, erased, dry_run)
    _erase_day_logs(conflicts, matches, erased, dry_run, counted=False)
    _erase_json_files(home.state / "sleep_reports", matches, erased, dry_run)
    _erase_reminder_state(home.reminder_state, matches, erased, dry_run)
    if dry_run or not erased.found:
        return erased
    daylog.append("event", f"Forgotten everywhere at the user's request: {erased.summary()}.", tombstone=True)
    own = index is None
    index = index or SearchIndex(home)
    try:
        index.rebuild()  # a fresh file: deleted rows can linger in an SQLite file's free pages
        prune_stores(home.state, index.text_keys())  # and the erased text's vectors go with it
    finally:
        if own:
            index.close()
    return erased
