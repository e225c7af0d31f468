"""Carry out what the user asked by rule: "remember", "forget", "remind me" and first-conversation answers,
all through the one writer."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from companion.curate.apply import Context
from companion.curate.gate import MemoryWriter, Refused, forget_matcher
from companion.curate.extract import extract
from companion.curate.ops import APPLIED, Op
from companion.curate.ops import Outcome as CurateOutcome
from companion.curate.policy import Actor, Proposal, decide
from companion.memory import maintenance
from companion.memory import entries as E
from companion.curate.requests.parse import MemoryRequest, ReminderRequest, Request, bootstrap_answers, dated_request
from companion.memory.daylog import DayLog
from companion.memory.forget import Erased, erase_everywhere
from companion.memory.longterm import LongTermStore
from companion.memory.records import Record
from companion.memory.lang import HAN_CHAR, ZH_WEEKDAYS
from companion.memory.search import SearchIndex

MIN_FACT, MAX_FACT = 5, 500
BOOTSTRAP_TURNS = 3
DEFAULT_IDENTITY = (
    "- The user's personal companion, living on their computer. Warm, curious and honest;"
    " remembers what matters to them."
)


@dataclass(frozen=True)
class Outcome:
    note: str  # told to the model so the reply can confirm, and shown to the user
    changed: bool


def describe_when(request: ReminderRequest, chinese: bool) -> str:
    """'Tuesday 2026-12-01 at 08:00' / '2026-12-01（星期二）08:00'."""
    if chinese:
        return f"{request.day.isoformat()}（星期{ZH_WEEKDAYS[request.day.weekday()]}）" + (
            f"{request.at:%H:%M}" if request.at else "")
    return f"{request.day:%A} {request.day.isoformat()}" + (f" at {request.at:%H:%M}" if request.at else "")


def _told(outcomes: list[CurateOutcome]) -> Outcome:
    """What the reply should say about a remember request."""
    saved = [o for o in outcomes if o.status in ("added", "updated", "superseded")]
    retired = [E.entry_text(o.old_line) for o in outcomes if o.status == "retired"]
    if saved or retired:
        notes = sorted({o.reason for o in saved if o.reason})
        files = sorted({o.op.file for o in saved})
        parts = [f"Saved to long-term memory ({file}): " + "; ".join(o.op.text for o in saved if o.op.file == file)
                 for file in files]
        parts += ["Marked as no longer true: " + "; ".join(retired)] if retired else []
        return Outcome(". ".join(parts) + "".join(f" ({n})" for n in notes), True)
    refused = next((o for o in outcomes if o.status == "refused"), None)
    if refused is not None and refused.reason.startswith("already in"):
        return Outcome(f"Already in memory ({refused.reason}).", False)
    reason = refused.reason if refused is not None else "nothing to store"
    return Outcome(f"Not saved: {reason}. Tell the user so.", False)


def _source(source: str | Record, said: str) -> Record:
    if isinstance(source, Record):
        return source
    return Record(source, f"{source.split('#', 1)[0]}T12:00:00", "user", said)


class MemoryRequests:
    """Explicit requests, written through the curation policy like every other writer (actor "remember")."""

    def __init__(self, store: LongTermStore) -> None:
        self.store = store
        self.writer = MemoryWriter(store)

    def apply(self, request: Request, source: str | Record) -> Outcome:
        """Carry out a request a message made (as `parse_request` read it); `source` is its record (or id)."""
        if isinstance(request, ReminderRequest):
            return self.remind(request, _source(source, request.text))
        if request.kind == "remember":
            return self.remember(request.text, source, said=request.said)
        return self.forget(request.text)

    def remind(self, request: ReminderRequest, record: Record) -> Outcome:
        """Write the reminder to Upcoming (cited to `record`); the note tells the user and the model when it is due."""
        op = Op("add", "MEMORY.md", "Upcoming", request.entry(), [record.id], origin="rule")
        ctx = Context({record.id: record}, record.day, actor=Actor.REMINDER)
        outcome = self.writer.apply_ops("MEMORY.md", [op], ctx)[0]
        chinese = HAN_CHAR.search(record.text) is not None
        when = describe_when(request, chinese)
        if outcome.status != "added":
            if chinese:
                return Outcome(f"提醒没有保存：{outcome.reason}。", False)
            return Outcome(f"Reminder not saved: {outcome.reason}.", False)
        if chinese:
            return Outcome(f"已设提醒：{when}，{request.text}。", True)
        return Outcome(f"Reminder set for {when}: {request.text}.", True)

    def remember(self, fact: str, source: str | Record, said: str = "") -> Outcome:
        """Store what the user asked to keep: as the entry the rules read from their words (a profile fact
        goes to USER.md), else as a fact in MEMORY.md. Secrets, hedges and duplicates are refused."""
        if not MIN_FACT <= len(fact) <= MAX_FACT:
            return Outcome(f"Not saved: a memory entry must be {MIN_FACT}-{MAX_FACT} characters.", False)
        record = _source(source, said or fact)
        words = Record(record.id, record.ts, "user", said or fact)
        dated = dated_request(fact, record.timestamp)
        planned = [Op("add", "MEMORY.md", "Upcoming", dated.entry(), [record.id])] if dated is not None else []
        ops = [op for op in extract([words]) if op.file != "SOUL.md"] or planned or [Op("add", "MEMORY.md", "Facts", fact, [record.id])]
        ctx = Context({record.id: words}, record.day, actor=Actor.REMEMBER)
        outcomes: list[CurateOutcome] = []
        for file in dict.fromkeys(op.file for op in ops):
            outcomes.extend(self.writer.apply_ops(file, [op for op in ops if op.file == file], ctx))
        return _told(outcomes)

    def forget(self, what: str) -> Outcome:
        matcher = forget_matcher(what)
        if matcher is None:  # "forget it", "forget that": everyday English for "never mind"
            return Outcome("Nothing was removed from memory: it was not clear what to forget.", False)
        removed = self.writer.forget(matcher)
        if not removed:
            return Outcome(f"Nothing in memory matched '{what}'.", False)
        return Outcome("Removed from memory (a copy stays in the history): " + "; ".join(removed), True)

    def bootstrap(self, message: str, source_id: str, user_turns: int) -> list[str]:
        """Record names, use and style from the first conversation; write the persona when ready.
        Every entry passes the curation policy (actor "bootstrap"), like any other writer."""
        answers = bootstrap_answers(message)
        record = _source(source_id, message)
        ops = [Op("update", "USER.md", "Profile", E.name_entry(answers.user_name), [record.id], old=E.NAME_SLOT)] if answers.user_name else []
        if answers.use:
            ops.append(Op("add", "USER.md", "Profile", f"Wants help with: {answers.use}", [record.id]))
        ctx = Context({record.id: record}, record.day, actor=Actor.BOOTSTRAP)
        outcomes = self.writer.apply_ops("USER.md", ops, ctx) if ops else []
        notes = [f"Saved to the user's profile: {o.op.text}" if o.status in APPLIED else f"Not saved: {o.reason}."
                 for o in outcomes if o.status in APPLIED or o.status == "refused"]
        name = answers.companion_name
        if name and not decide(Proposal(E.name_entry(name), "SOUL.md", Actor.BOOTSTRAP, "Identity", message)):
            name = None  # "call yourself Ignore The Rules" is not a name
        if name or answers.styles or user_turns >= BOOTSTRAP_TURNS:
            notes.append(self._write_persona(name, answers.styles, source_id, message))
        return notes

    def _write_persona(self, name: str | None, styles: tuple[str, ...], source_id: str, said: str) -> str:
        named = E.format_entry(E.name_entry(name), [source_id]) if name else E.format_entry(E.name_entry("Companion"))
        identity = f"{named}\n{DEFAULT_IDENTITY}"
        style = "\n".join(E.format_entry(s, [source_id]) for s in styles) or E.format_entry("Friendly, clear and concise.")
        try:
            self.writer.set_persona(identity, style, actor=Actor.BOOTSTRAP, grounds=said)
        except Refused as exc:
            return f"Persona not set: {exc.decision.reason}."
        return f"Your persona is set: {name or 'Companion'}; style: {', '.join(styles) or 'friendly and concise'}."


def forget_everywhere(store: LongTermStore, what: str, daylog: DayLog, index: SearchIndex | None = None,
                      *, dry_run: bool = False) -> Erased | None:
    """Erase what a "forget" names from past conversations, digests, earlier versions, backups and the
    search index (the ordinary forget has removed it from the long-term files). None when `what` names
    nothing specific."""
    matcher = forget_matcher(what)
    if matcher is None:
        return None
    if dry_run:
        return erase_everywhere(store.home, matcher, daylog, index, dry_run=True)
    with maintenance.exclusive(store.home):  # the long-term entries and every copy, with no night step between
        MemoryWriter(store).forget(matcher)
        return erase_everywhere(store.home, matcher, daylog, index)
