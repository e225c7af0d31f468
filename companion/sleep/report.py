"""The morning report: what a run changed, saved in state/ and the day log, with undo per entry or per run."""

from __future__ import annotations

import json
import logging
from dataclasses import asdict, dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from companion.errors import CompanionError, SchemaVersionError
from companion.atomic import atomic_write
from companion.curate.gate import MemoryWriter
from companion.curate.policy import Actor
from companion.memory.longterm import LongTermStore
from companion.paths import Home
from companion.memory import entries as E
from companion.curate.ops import APPLIED, Outcome
from companion.sleep.distill import ModelStats

log = logging.getLogger(__name__)

REPORT_VERSION = 1
COST_LABELS = {"check": "Model check", "digests": "Digests"}


@dataclass
class SleepReport:
    id: str
    started: str
    finished: str = ""
    dry_run: bool = False
    cancelled: bool = False
    days: list[str] = field(default_factory=list)
    records: int = 0
    outcomes: list[Outcome] = field(default_factory=list)
    digests: list[str] = field(default_factory=list)
    stats: dict[str, Any] = field(default_factory=dict)  # see cost_summary()
    notes: list[str] = field(default_factory=list)  # e.g. why the model path did not run
    seen: bool = False
    undone: list[int] = field(default_factory=list)  # indexes of outcomes already undone

    def applied(self) -> list[tuple[int, Outcome]]:
        return [(i, o) for i, o in enumerate(self.outcomes) if o.status in APPLIED]

    def refused(self) -> list[Outcome]:
        return [o for o in self.outcomes if o.status == "refused"]

    def counts(self) -> dict[str, dict[str, int]]:
        """{file: {status: n}} for applied and refused outcomes."""
        table: dict[str, dict[str, int]] = {}
        for outcome in self.outcomes:
            if outcome.status == "skipped":
                continue
            row = table.setdefault(outcome.op.file, {})
            row[outcome.status] = row.get(outcome.status, 0) + 1
        return table

    def summary(self) -> str:
        """One line for the day log and the status bar."""
        if not self.days and not self.digests:
            return "Sleep: nothing new to learn."
        changed = len(self.applied())
        parts = [f"Sleep: {changed} change{'s' * (changed != 1)} to memory from {len(self.days)} day(s)"]
        if self.refused():
            parts.append(f"{len(self.refused())} refused")
        if self.digests:
            parts.append(f"{len(self.digests)} digest(s) written")
        if self.cancelled:
            parts.append("stopped early; the rest runs next time")
        return ", ".join(parts) + "."

    def render(self) -> str:
        """The report as Markdown, for the terminal and the app."""
        lines = [f"# What I learned ({self.started[:16].replace('T', ' ')})", "", self.summary(), ""]
        for file in ("USER.md", "MEMORY.md", "SOUL.md"):
            mine = [o for o in self.outcomes if o.op.file == file and o.status != "skipped"]
            if not mine:
                continue
            lines.append(f"## {file}")
            for outcome in mine:
                src = ", ".join(outcome.op.sources)
                if outcome.status in ("retired", "merged"):
                    lines.append(f"- {outcome.status}: {E.entry_text(outcome.old_line)} ({outcome.reason or 'no longer true'}) [{src}]")
                elif outcome.status in APPLIED:
                    extra = f" (was: {E.entry_text(outcome.old_line)})" if outcome.old_line and outcome.status != "moved" else ""
                    lines.append(f"- {outcome.status}: {outcome.op.text}{extra} [{src}]")
                elif outcome.status == "archived":
                    lines.append(f"- archived: {outcome.op.text}")
                else:
                    lines.append(f"- refused: {outcome.op.text[:80]!r}: {outcome.reason}")
            lines.append("")
        if self.digests:
            lines.append("## Digests")
            lines.extend(f"- {d}" for d in self.digests)
            lines.append("")
        cost = self.cost_lines() if self.days or self.digests else []
        if cost or self.notes:
            lines.append("## Cost")
            lines.extend(f"- {n}" for n in self.notes)
            lines.extend(f"- {c}" for c in cost)
        return "\n".join(lines).rstrip() + "\n"

    def cost_lines(self) -> list[str]:
        """Seconds and tokens the model spent per file, then the run's total time."""
        lines = []
        for name, row in self.stats.get("per_file", {}).items():
            invalid = f", {row['invalid']} unusable" if row.get("invalid") else ""
            lines.append(
                f"{COST_LABELS.get(name, name)}: {row['seconds']:.1f} s, {row['calls']} model call{'s' * (row['calls'] != 1)}, "
                f"{row['prompt_tokens']} prompt + {row['generated_tokens']} generated tokens{invalid}"
            )
        if "seconds_total" in self.stats:
            lines.append(f"Whole run: {self.stats['seconds_total']:.1f} s")
        return lines

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema_version": REPORT_VERSION,
            "id": self.id, "started": self.started, "finished": self.finished, "dry_run": self.dry_run,
            "cancelled": self.cancelled, "days": self.days, "records": self.records,
            "outcomes": [o.to_dict() for o in self.outcomes], "digests": self.digests, "stats": self.stats,
            "notes": self.notes, "seen": self.seen, "undone": self.undone,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "SleepReport":
        version = data.get("schema_version", REPORT_VERSION)
        if isinstance(version, int) and version > REPORT_VERSION:
            raise SchemaVersionError("A sleep report was written by a newer Companion; update Companion.")
        return cls(
            id=data["id"], started=data["started"], finished=data.get("finished", ""), dry_run=data.get("dry_run", False),
            cancelled=data.get("cancelled", False), days=list(data.get("days", [])), records=data.get("records", 0),
            outcomes=[Outcome.from_dict(o) for o in data.get("outcomes", [])], digests=list(data.get("digests", [])),
            stats=dict(data.get("stats", {})), notes=list(data.get("notes", [])), seen=data.get("seen", False), undone=list(data.get("undone", [])),
        )


class ReportStore:
    """state/sleep_reports/<id>.json, newest last."""

    def __init__(self, home: Home) -> None:
        self.folder = home.state / "sleep_reports"

    def path(self, report_id: str) -> Path:
        return self.folder / f"{report_id}.json"

    def save(self, report: SleepReport) -> None:
        atomic_write(self.path(report.id), json.dumps(report.to_dict(), ensure_ascii=False, indent=1))

    def load(self, report_id: str) -> SleepReport:
        try:
            return SleepReport.from_dict(json.loads(self.path(report_id).read_text(encoding="utf-8")))
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise CompanionError(f"The sleep report {report_id} cannot be read ({exc}).") from exc

    def all(self) -> list[SleepReport]:
        found = []
        for path in sorted(self.folder.glob("*.json")) if self.folder.is_dir() else []:
            try:
                found.append(self.load(path.stem))
            except CompanionError as exc:
                log.warning("%s", exc)
        return found

    def latest_unseen(self) -> SleepReport | None:
        unseen = [r for r in self.all() if not r.seen and not r.dry_run and r.applied()]
        return unseen[-1] if unseen else None

    def mark_seen(self, report: SleepReport) -> None:
        report.seen = True
        self.save(report)


def cost_summary(costs: dict[str, ModelStats], seconds_total: float) -> dict[str, Any]:
    """The report's `stats`: model totals, the same per file (and for the check and digests), the run's seconds."""
    total = ModelStats()
    per_file: dict[str, dict[str, Any]] = {}
    for name, stats in costs.items():
        total.add(stats)
        if stats.calls or stats.invalid:
            per_file[name] = {**asdict(stats), "seconds": round(stats.seconds, 3)}
    return {**asdict(total), "seconds": round(total.seconds, 3), "per_file": per_file, "seconds_total": round(seconds_total, 3)}


def new_report_id(now: datetime) -> str:
    return now.strftime("%Y%m%dT%H%M%S%f")


def undo_entry(store: LongTermStore, report: SleepReport, index: int) -> str:
    """Take back one change of a run: remove the added line, un-mark what it superseded. Returns a message."""
    if index in report.undone:
        return "Already undone."
    outcome = report.outcomes[index]
    if outcome.status not in APPLIED:
        return "Nothing to undo for this entry."
    name = outcome.op.file
    doc = store.read(name)
    body = doc.body
    lines = body.splitlines()
    if outcome.status == "moved":
        return "Moving past events to the timeline is not undone (the entry is unchanged)."
    if outcome.line not in lines:
        report.undone.append(index)
        return f"The entry is no longer in {name} (it was edited or removed)."
    if outcome.status in ("retired", "merged"):  # the entry was only marked: unmark it
        body = E.replace_line(body, outcome.line, [outcome.old_line])
        MemoryWriter(store).write(name, doc.with_body(body), actor=Actor.RESTORE, expected_sha=doc.sha)
        report.undone.append(index)
        return f"Undone in {name}: {E.entry_text(outcome.old_line)} is active again"
    body = E.remove_line(body, outcome.line)
    if outcome.old_line:
        marked = next((l for l in body.splitlines() if E.is_superseded(l) and E.entry_text(l) == E.entry_text(outcome.old_line)), None)
        if marked is not None:
            body = E.replace_line(body, marked, [outcome.old_line])
    MemoryWriter(store).write(name, doc.with_body(body), actor=Actor.RESTORE, expected_sha=doc.sha)
    report.undone.append(index)
    return f"Undone in {name}: {outcome.op.text}"


def undo_run(store: LongTermStore, report: SleepReport) -> list[str]:
    """Undo every change of a run, newest first, keeping anything the user edited since."""
    return [undo_entry(store, report, index) for index, _ in reversed(report.applied()) if index not in report.undone]
