"""The sleep job: for every pending day, distill new records into USER/MEMORY/SOUL, roll up digests, report."""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path
from typing import Callable

from companion.errors import SleepBusyError, SleepCancelledError
from companion.llm.base import Backend
from companion.memory.daylog import DayLog, now_local
from companion.filelock import ProcessLock
from companion.memory.longterm import LongTermStore, locked_by_user
from companion.memory.records import Record
from companion.paths import Home
from companion.curate import extract as rules
from companion.curate.apply import Context
from companion.curate.gate import MemoryWriter, forget_matcher, forgotten_later
from companion.curate.requests import memory_request
from companion.curate.policy import Actor
from companion.memory import maintenance
from companion.curate.proposals import ProposalQueue
from companion.curate.reconcile import reconcile
from companion.sleep.cursor import Cursor, cursor_path
from companion.sleep.digests import update_digests
from companion.sleep.distill import ModelStats, chunk_records, conversational, distill_chunk, record_budget
from companion.curate.ops import APPLIED, Op, Outcome
from companion.sleep.model_check import skip_reason
from companion.sleep.travel_lock import TravellingLock
from companion.sleep.report import ReportStore, SleepReport, cost_summary, new_report_id

log = logging.getLogger(__name__)

FILES = ("USER.md", "MEMORY.md", "SOUL.md")
EXTRACT_CONTEXT = 6  # earlier records of the day a correction may refer to
Progress = Callable[[str], None]


@dataclass
class PendingDay:
    day: date
    records: list[Record]  # every record of the day (citations may point at any of them)
    new: list[Record]  # not yet distilled
    size: int


class SleepJob:
    """One run at a time per home (state/sleep.lock, across processes). Cancel from any thread."""

    def __init__(
        self,
        home: Home,
        backend: Backend | None,
        *,
        clock: Callable[[], datetime] = now_local,
        store: LongTermStore | None = None,
        progress: Progress | None = None,
        check_model: bool = True,
    ) -> None:
        self.home = home
        self.backend = backend
        self.check_model = check_model  # probe the model first and skip it when it adds nothing
        self.clock = clock
        self.store = store or LongTermStore(home)
        self.writer = MemoryWriter(self.store)
        self.daylog = DayLog(home.days, clock)
        self.reports = ReportStore(home)
        self.progress = progress or (lambda message: None)
        self._cancel = threading.Event()

    @property
    def cursor_path(self) -> Path:
        return cursor_path(self.home)

    def cancel(self) -> None:
        self._cancel.set()
        if self.backend is not None:
            self.backend.cancel()

    def _check(self) -> None:
        if self._cancel.is_set():
            raise SleepCancelledError("The sleep job was cancelled.")

    # -- what is pending --------------------------------------------------------

    def pending_days(self, cursor: Cursor, only: date | None = None) -> list[PendingDay]:
        found: list[PendingDay] = []
        for day in self.daylog.days():
            if only is not None and day != only:
                continue
            size = self.daylog.size(day)  # every computer's file of the day
            mark = cursor.mark(day)
            if size == mark.size:
                continue  # append-only: nothing new since the last run
            records = self.daylog.read_day(day).records
            new = [r for r in records if not mark.covers(r)]
            found.append(PendingDay(day, records, new, size))
        return found

    # -- the run ------------------------------------------------------------------

    def run(self, *, day: date | None = None, dry_run: bool = False) -> SleepReport:
        lock = ProcessLock(self.home.state / "sleep.lock")
        if not lock.acquire():
            pid = lock.holder_pid()
            raise SleepBusyError(f"The sleep job is already running{f' (process {pid})' if pid else ''}; it will finish on its own.")
        device = self.daylog.device  # None: not synced, the night works exactly as it always has
        travelling = TravellingLock(self.home.memory, device) if device else None
        try:
            if travelling is not None and not travelling.acquire():
                holder = travelling.blocked_by
                who = f"{holder.node or 'another computer'} ({holder.device}), since {holder.since}" if holder else "another computer"
                raise SleepBusyError(f"The memory's other computer is sleeping for it: {who}. This computer skips the night.")
            notes = []
            if travelling is not None and not dry_run:
                with maintenance.shared(self.home):  # a forget or an import comes wholly before or after
                    merged = reconcile(self.home, self.writer, ProposalQueue(self.home))
                if merged.copies:
                    notes.append(merged.summary())
            return self._run(day, dry_run, notes)
        finally:
            if travelling is not None:
                travelling.release()
            lock.release()

    def _run(self, only: date | None, dry_run: bool, notes: list[str] | None = None) -> SleepReport:
        started = self.clock()
        forgets = maintenance.generation(self.home)
        t0 = time.perf_counter()
        report = SleepReport(new_report_id(started), started.isoformat(timespec="seconds"), dry_run=dry_run)
        report.notes.extend(notes or [])
        cursor = Cursor.load(self.cursor_path)
        costs: dict[str, ModelStats] = {}
        distilled: set[date] = set()
        backend = self.backend
        try:
            days = self.pending_days(cursor, only)
            if not any(conversational(p.new) for p in days):
                backend = None  # nothing for a model to read
            elif backend is not None and self.check_model:
                self.progress("Checking the model")
                reason = skip_reason(backend, costs.setdefault("check", ModelStats()))
                if reason:
                    backend = None
                    report.notes.append(f"Rules only: {reason}.")
            for listed in days:
                self._check()
                self.progress(f"Distilling {listed.day.isoformat()} ({len(listed.new)} new records)")
                # One step: read the day, distill it, write what it learned, move the cursor. A forget or an
                # import holds the memory lock exclusively, so it comes wholly before or after a step.
                with maintenance.shared(self.home):
                    pending = self._reread(listed, cursor)
                    if pending is None:
                        continue
                    report.outcomes.extend(self._distill_day(pending, started.date(), backend, costs, dry_run))
                    report.records += len(pending.new)
                    if pending.new:
                        report.days.append(pending.day.isoformat())
                    distilled.add(pending.day)
                    if not dry_run:
                        cursor.advance_records(pending.day, pending.records, pending.size)
                        cursor.save()  # per day: a killed run resumes at the next day
            if only is None:  # upcoming events whose date has passed move to the timeline
                ctx = Context({}, started.date(), actor=Actor.SLEEP)
                if not locked_by_user(self.store.path("MEMORY.md")):
                    report.outcomes.extend(self.writer.apply_ops("MEMORY.md", [], ctx, dry_run=dry_run))
                if not any(locked_by_user(self.store.path(name)) for name in ("USER.md", "MEMORY.md")):
                    self.progress("Checking memory for duplicates and contradictions")
                    report.outcomes.extend(self.writer.audit(started.date(), dry_run=dry_run))
            self.progress("Writing digests")
            with maintenance.shared(self.home):  # digests are read from the day logs a forget scrubs
                written = update_digests(
                    self.home, self.daylog, started.date(), backend=backend, model_days=distilled,
                    stats=costs.setdefault("digests", ModelStats()), dry_run=dry_run, check=self._check,
                )
            report.digests = [f"{w.period}/{w.key}" + ("" if w.generator == "dry-run" else f" ({w.generator})") for w in written]
        except SleepCancelledError:
            report.cancelled = True
        report.stats = cost_summary(costs, time.perf_counter() - t0)
        report.finished = self.clock().isoformat(timespec="seconds")
        if not dry_run:
            with maintenance.shared(self.home):
                if maintenance.generation(self.home) != forgets:
                    self._after_forget(report)
                self._finish(report, cursor, started)
        return report

    def _after_forget(self, report: SleepReport) -> None:
        """Something was forgotten while the night ran: the report keeps only changes whose entry is still
        in the files, and no refused text (it may be what was forgotten)."""
        bodies = {name: self.store.read(name).body for name in FILES}
        kept = [o for o in report.outcomes if o.status in APPLIED and o.line and o.line in bodies.get(o.op.file, "")]
        if len(kept) != len(report.outcomes):
            report.notes.append("Something was forgotten while the night ran; this report leaves out what is no longer kept.")
        report.outcomes = kept

    def _reread(self, listed: PendingDay, cursor: Cursor) -> PendingDay | None:
        """The day as it is now, under the memory lock: a forget may have scrubbed it, an import added to it."""
        fresh = self.pending_days(cursor, listed.day)
        return fresh[0] if fresh else None

    def _distill_day(
        self, pending: PendingDay, today: date, backend: Backend | None, costs: dict[str, ModelStats], dry_run: bool
    ) -> list[Outcome]:
        ctx = Context({r.id: r for r in pending.records}, today, actor=Actor.SLEEP)
        new = conversational(pending.new)
        proposed: dict[str, list[Op]] = {name: [] for name in FILES}
        new_ids = {r.id for r in new}
        first_new = next((n for n, r in enumerate(pending.records) if r.id in new_ids), len(pending.records))
        earlier = conversational(pending.records[:first_new])[-EXTRACT_CONTEXT:]  # in the day's time order
        for op in rules.extract(new, context=earlier):
            proposed[op.file].append(op)
        outcomes: list[Outcome] = []
        forgets = _forget_requests(pending.records)
        if backend is not None and new:
            chunks = chunk_records(new, backend, record_budget(backend))
            for chunk in chunks:
                for name in FILES:
                    self._check()
                    body = self.store.read(name).body
                    proposed[name].extend(distill_chunk(backend, name, body, chunk, costs.setdefault(name, ModelStats())))
        for name in FILES:
            self._check()
            proposed[name] = [op for op in proposed[name] if not forgotten_later(op, ctx.records, forgets)]
            if proposed[name] and locked_by_user(self.store.path(name)):  # the user made it read-only
                outcomes.extend(Outcome(op, "refused", f"{name} is read-only") for op in proposed[name])
            elif proposed[name]:
                outcomes.extend(self.writer.apply_ops(name, proposed[name], ctx, dry_run=dry_run))
        return outcomes

    def _finish(self, report: SleepReport, cursor: Cursor, started: datetime) -> None:
        if not report.cancelled:
            cursor.last_run = started.isoformat(timespec="seconds")
            cursor.save()
        if report.applied() or report.refused() or report.digests:
            self.reports.save(report)
            record = self.daylog.append(
                "event", report.summary(), sleep_report={"id": report.id, "counts": report.counts(), "digests": len(report.digests)}
            )
            # The report's own event is not something to distill: mark it as read.
            cursor = Cursor.load(self.cursor_path)
            if cursor.mark(record.day).last(record.device) == record.seq - 1:
                cursor.advance_records(record.day, [record], self.daylog.size(record.day))
                cursor.save()


def _forget_requests(records: list[Record]) -> list[tuple[Record, Callable[[str], bool]]]:
    """The user's "forget ..." messages of a day, each with what it names."""
    found = []
    for record in records:
        if record.role != "user" or record.private:
            continue
        request = memory_request(record.text)
        matcher = forget_matcher(request.text) if request is not None and request.kind == "forget" else None
        if matcher is not None:
            found.append((record, matcher))
    return found
