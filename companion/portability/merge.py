"""Merge memory from elsewhere: Markdown entries by section without duplicates, day-log records by id."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Callable, Iterable

from companion.memory import entries as E
from companion.memory import sections
from companion.memory.daylog import DayLog
from companion.memory.dedupe import normalize
from companion.curate.policy import import_refusal
from companion.filelock import locked
from companion.memory.records import Record, make_id

UNSECTIONED = "Imported"
FUTURE_SLACK = timedelta(days=1)  # imported records may be this far ahead (clocks, time zones); 2099 may not
@dataclass
class MergeCount:
    added: int = 0
    skipped: int = 0
    secrets: int = 0  # entries (and section titles) the write policy refused: a secret or an instruction


def merge_body(target: str, source: str, rewrite: Callable[[str], str] = lambda text: text) -> tuple[str, MergeCount]:
    """`target` with every entry of `source` that it lacks, appended to the same-named section.

    Linear in the size of both: known lines are a set of normalized texts, and every addition is
    placed in one pass at the end."""
    count = MergeCount()
    known = {normalize(line) for line in target.splitlines() if line.strip()}
    additions: list[tuple[str, str]] = []
    for entry in E.blocks(source):
        key = normalize(entry.first_line)
        if not key or key in known:
            count.skipped += 1
            continue
        if import_refusal(entry.text) is not None:
            count.secrets += 1
            continue
        section = entry.section or UNSECTIONED
        if import_refusal(section) is not None:  # a title is in every prompt as much as an entry is
            count.secrets += 1
            section = UNSECTIONED
        text = rewrite(entry.text)
        additions.append((section, text))
        known.update(normalize(line) for line in text.splitlines() if line.strip())
        count.added += 1
    return place_in_sections(target, additions), count


def place_in_sections(body: str, additions: list[tuple[str, str]]) -> str:
    """`body` with each (section title, text) at the end of its `##` section, or in a new section at
    the end: what `sections.append_to_section` / `add_section` do one by one, in a single pass."""
    if not additions:
        return body
    lines = body.splitlines(keepends=True)
    heads = sections.headings(body)
    ends = [len(lines)] * len(heads)
    following = len(lines)
    for index in range(len(heads) - 1, -1, -1):  # a section runs to the next heading of level 1 or 2
        ends[index] = following
        if heads[index].level <= 2:
            following = heads[index].line
    where: dict[str, int] = {}
    for index, head in enumerate(heads):
        if head.level == 2 and head.title.casefold() not in where:
            at = ends[index]
            while at > head.line + 1 and not lines[at - 1].strip():
                at -= 1
            where[head.title.casefold()] = at
    inserts: dict[int, list[str]] = {}
    new: dict[str, tuple[str, list[str]]] = {}
    for title, text in additions:
        piece = text.strip("\n") + "\n"
        found = where.get(title.casefold())
        if found is None:
            new.setdefault(title.casefold(), (title, []))[1].append(piece)
        else:
            inserts.setdefault(found, []).append(piece)
    out: list[str] = []
    for index, line in enumerate(lines):
        if index in inserts:
            if out and not out[-1].endswith("\n"):
                out[-1] += "\n"
            out.extend(inserts[index])
        out.append(line)
    if len(lines) in inserts:
        if out and not out[-1].endswith("\n"):
            out[-1] += "\n"
        out.extend(inserts[len(lines)])
    merged = "".join(out)
    tail, last, has_text = [merged], merged[-2:], bool(merged.strip())
    for title, pieces in new.values():  # as sections.add_section does, without copying the body each time
        if last and not last.endswith("\n"):
            tail.append("\n")
            last = last[-1:] + "\n"
        if has_text and not last.endswith("\n\n"):
            tail.append("\n")
        content = "".join(pieces).strip("\n")
        section = f"## {title}\n" + (content + "\n" if content.strip() else "")
        tail.append(section)
        last, has_text = section[-2:], True
    return "".join(tail)


def rewrite_citations(id_map: dict[str, str]) -> Callable[[str], str]:
    """Point citations of imported records at the ids those records got here."""
    return lambda text: E.ID.sub(lambda m: id_map.get(m.group(0), m.group(0)), text)


# -- day logs -------------------------------------------------------------------------------


def _moment(ts: str) -> datetime:
    stamp = datetime.fromisoformat(ts)
    if stamp.tzinfo is None:
        stamp = stamp.astimezone()
    return stamp.replace(microsecond=stamp.microsecond // 1000 * 1000)


def _fingerprint(record: Record) -> tuple[float, str, str]:
    return (_moment(record.ts).timestamp(), record.role, record.text)


@dataclass
class LogMerge:
    added: int = 0
    skipped: int = 0
    id_map: dict[str, str] = field(default_factory=dict)  # source id -> id here


@dataclass
class _Pending:
    record: Record
    moment: datetime
    fields: dict[str, object]


class DayLogMerger:
    """Adds records to the day logs under `days_dir`, skipping those already there (same time, role, text).

    Added records get a new local id (ids restart per Companion, so a foreign `2026-11-29#3` may mean
    another record here); the id they had at the source is kept in `ref`, unless they already carried
    a `ref` from an earlier import, which stays. Records are queued by `add` and written by `flush`,
    one append (one fsync) per day file.
    """

    def __init__(self, days_dir: Path) -> None:
        self.log = DayLog(days_dir)
        self._seen: dict[date, dict[tuple[float, str, str], str]] = {}
        self._pending: dict[date, list[_Pending]] = {}
        self._queued: dict[tuple[float, str, str], str] = {}  # fingerprint -> source id, until flushed
        self._aliases: dict[str, str] = {}  # source id -> source id of an identical queued record
        self.result = LogMerge()

    def _known(self, day: date) -> dict[tuple[float, str, str], str]:
        if day not in self._seen:
            records = self.log.read_day(day).records  # every computer's file of a synced folder
            self._seen[day] = {_fingerprint(r): r.id for r in records}
        return self._seen[day]

    def add(self, record: Record, extra: dict[str, object] | None = None) -> None:
        """Queue `record` unless it is present; `extra` adds fields (e.g. imported)."""
        moment = _moment(record.ts)
        known = self._known(moment.date())
        key = _fingerprint(record)
        if key in known:
            self.result.skipped += 1
            self.result.id_map[record.id] = known[key]
            return
        if key in self._queued:  # the same message twice in this import
            self.result.skipped += 1
            self._aliases[record.id] = self._queued[key]
            return
        fields = dict(record.extra)
        fields.setdefault("ref", record.id)
        fields.update(extra or {})
        self._queued[key] = record.id
        self._pending.setdefault(moment.date(), []).append(_Pending(record, moment, fields))

    def add_all(self, records: Iterable[Record], extra: dict[str, object] | None = None) -> None:
        for record in records:
            self.add(record, extra)

    def flush(self) -> LogMerge:
        """Append the queued records, day by day, and return what was merged."""
        for day in sorted(self._pending):
            items = sorted(self._pending[day], key=lambda p: p.moment)
            path = self.log.path_for(day)
            path.parent.mkdir(parents=True, exist_ok=True)
            with locked(path.with_name("." + path.name + ".lock")):  # the lock DayLog.append takes
                seq, ends_clean = self.log._last_seq(path)
                lines = []
                for offset, item in enumerate(items, start=1):
                    new = Record(
                        id=make_id(day, seq + offset, self.log.device),
                        ts=item.moment.isoformat(timespec="milliseconds"),
                        role=item.record.role,
                        text=item.record.text,
                        extra=item.fields,
                    )
                    self.result.id_map[item.record.id] = new.id
                    self._seen[day][_fingerprint(new)] = new.id
                    lines.append(new.to_line())
                payload = b"".join(lines)
                if not ends_clean:
                    payload = b"\n" + payload  # seal a torn last line, as DayLog.append does
                self.log._write_all(path, payload)
            self.result.added += len(items)
        self._pending.clear()
        self._queued.clear()
        for alias, original in self._aliases.items():
            if original in self.result.id_map:
                self.result.id_map[alias] = self.result.id_map[original]
        self._aliases.clear()
        return self.result
