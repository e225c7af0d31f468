"""Carry out what the user asked by rule: "remember", "forget", "remind me" and first-conversation answers,
all through the one writer."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

from companion.curate.apply import Context
from companion.curate.gate import MemoryWriter, Refused, forget_matcher
from companion.curate.extract import extract
from companion.curate.ops import APPLIED, Op
from companion.curate.ops import Outcome as CurateOutcome
from companion.curate.policy import Actor, Proposal, decide, reason_in
from companion.memory import maintenance
from companion.memory import entries as E
from companion.curate.requests.parse import (
    STYLES_ZH, MemoryRequest, ReminderRequest, Request, bootstrap_answers, dated_request,
)
from companion.memory.daylog import DayLog
from companion.memory.dedupe import normalize
from companion.memory.section_names import body_language
from companion.memory.forget import Erased, erase_everywhere
from companion.memory.longterm import LongTermStore
from companion.memory.records import Record
from companion.memory.lang import HAN_CHAR, ZH_WEEKDAYS
from companion.memory.search import SearchIndex

MIN_FACT, MAX_FACT = 5, 500
_CJK = HAN_CHAR
_YES = re.compile(r"^(?:yes|yeah|yep|yup|sure|ok(?:ay)?|please do|do it|go ahead|confirm(?:ed)?|y|是|是的|对|对的|好|好的|确认|删吧|删掉吧|删除吧|嗯|可以)(?![\w])[\s.!。！]*$", re.I)
_NO = re.compile(r"^(?:no|nope|nah|don'?t|cancel|keep (?:it|them)|n|不|不要|别|算了|保留|取消)(?![\w])[\s.!。！]*$", re.I)
BOOTSTRAP_TURNS = 3
DEFAULT_IDENTITY = (
    "- The user's personal companion, living on their computer. Warm, curious and honest;"
    " remembers what matters to them."
)
DEFAULT_IDENTITY_ZH = "- 用户的私人伙伴，住在用户的电脑里。温暖、好奇、诚实；记得对用户重要的事。"


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


def speaks_chinese(store: LongTermStore, message: str = "") -> bool:
    """Whether the memory should answer in Chinese: a Chinese home, or a message mostly in Chinese."""
    return body_language(store.read("USER.md").body) == "zh" or len(_CJK.findall(message)) > len(re.findall(r"[A-Za-z]", message))


def _told(outcomes: list[CurateOutcome], zh: bool = False) -> Outcome:
    """What the reply should say about a remember request, in the user's language."""
    saved = [o for o in outcomes if o.status in ("added", "updated", "superseded")]
    retired = [E.entry_text(o.old_line) for o in outcomes if o.status == "retired"]
    if saved or retired:
        notes = sorted({o.reason for o in saved if o.reason})
        files = sorted({o.op.file for o in saved})
        joiner = "；" if zh else "; "
        head = "已存入长期记忆（{file}）：" if zh else "Saved to long-term memory ({file}): "
        parts = [head.format(file=file) + joiner.join(o.op.text for o in saved if o.op.file == file) for file in files]
        parts += [("已标记为不再成立：" if zh else "Marked as no longer true: ") + joiner.join(retired)] if retired else []
        return Outcome(("。" if zh else ". ").join(parts) + "".join(f" ({n})" for n in notes), True)
    refused = next((o for o in outcomes if o.status == "refused"), None)
    if refused is not None and refused.reason.startswith("already in"):
        return Outcome(f"记忆里已经有了（{reason_in(refused.reason, True)}）。" if zh else f"Already in memory ({refused.reason}).", False)
    reason = reason_in(refused.reason, zh) if refused is not None else ("没有可保存的内容" if zh else "nothing to store")
    return Outcome(f"未保存：{reason}。请告诉用户。" if zh else f"Not saved: {reason}. Tell the user so.", False)


def _source(source: str | Record, said: str) -> Record:
    if isinstance(source, Record):
        return source
    return Record(source, f"{source.split('#', 1)[0]}T12:00:00", "user", said)


class MemoryRequests:
    """Explicit requests, written through the curation policy like every other writer (actor "remember")."""

    def __init__(self, store: LongTermStore) -> None:
        self.store = store
        self.writer = MemoryWriter(store)
        self.pending: tuple[str, list[str]] | None = None  # a forget waiting for the user's yes

    def apply(self, request: Request, source: str | Record) -> Outcome:
        """Carry out a request a message made (as `parse_request` read it); `source` is its record (or id)."""
        if isinstance(request, ReminderRequest):
            return self.remind(request, _source(source, request.text))
        if request.kind == "remember":
            return self.remember(request.text, source, said=request.said)
        return self.propose_forget(request.text)

    def matching(self, what: str) -> list[str] | None:
        """The entries a forget request means (by its content words), or None when it names nothing specific."""
        matcher = forget_matcher(what)
        if matcher is None:
            return None
        return [E.entry_text(line) for name in ("USER.md", "MEMORY.md")
                for line in self.store.read(name).body.splitlines() if E.is_entry(line) and matcher(normalize(line))]

    def propose_forget(self, what: str) -> Outcome:
        """A forget said in the chat: show what it would remove; the user's "yes" removes it (`confirm`)."""
        zh = speaks_chinese(self.store, what)
        found = self.matching(what)
        if found is None:
            return Outcome("没有删除任何记忆：不清楚要忘记什么。" if zh else "Nothing was removed from memory: it was not clear what to forget.", False)
        if not found:
            return Outcome(f"记忆里没有和“{what}”相符的内容。" if zh else f"Nothing in memory matched '{what}'.", False)
        self.pending = (what, found)
        listed = "；".join(found) if zh else "; ".join(found)
        if zh:
            return Outcome(f"记忆里找到这些：{listed}。请用户确认：回答“是”就删除，回答“不”就保留。", False)
        return Outcome(f"Found in memory: {listed}. Ask the user to confirm: 'yes' removes them, 'no' keeps them.", False)

    def confirm(self, answer: str) -> Outcome | None:
        """The user's answer to a pending forget: removed on yes, kept on no; None when it is no answer."""
        if self.pending is None:
            return None
        what, found = self.pending
        self.pending = None
        zh = speaks_chinese(self.store, what + answer)
        if _YES.match(answer.strip()):
            return self.forget(what)
        if _NO.match(answer.strip()):
            return Outcome(("已保留：" + "；".join(found)) if zh else "Kept in memory: " + "; ".join(found), False)
        return None

    def remind(self, request: ReminderRequest, record: Record) -> Outcome:
        """Write the reminder to Upcoming (cited to `record`); the note tells the user and the model when it is due."""
        op = Op("add", "MEMORY.md", "Upcoming", request.entry(), [record.id], origin="rule")
        ctx = Context({record.id: record}, record.day, actor=Actor.REMINDER)
        outcome = self.writer.apply_ops("MEMORY.md", [op], ctx)[0]
        chinese = HAN_CHAR.search(record.text) is not None
        when = describe_when(request, chinese)
        if outcome.status != "added":
            if chinese:
                return Outcome(f"提醒没有保存：{reason_in(outcome.reason, True)}。", False)
            return Outcome(f"Reminder not saved: {outcome.reason}.", False)
        if chinese:
            return Outcome(f"已设提醒：{when}，{request.text}。", True)
        return Outcome(f"Reminder set for {when}: {request.text}.", True)

    def remember(self, fact: str, source: str | Record, said: str = "") -> Outcome:
        """Store what the user asked to keep: as the entry the rules read from their words (a profile fact
        goes to USER.md), else as a fact in MEMORY.md. Secrets, hedges and duplicates are refused."""
        if not MIN_FACT <= len(fact) <= MAX_FACT:
            if speaks_chinese(self.store, said or fact):
                return Outcome(f"未保存：一条记忆必须是 {MIN_FACT}-{MAX_FACT} 个字符。", False)
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
        return _told(outcomes, speaks_chinese(self.store, said or fact))

    def forget(self, what: str) -> Outcome:
        """Remove at once what a forget names (the command line asks first; the chat asks with `propose_forget`)."""
        zh = speaks_chinese(self.store, what)
        matcher = forget_matcher(what)
        if matcher is None:  # "forget it", "forget that": everyday English for "never mind"
            return Outcome("没有删除任何记忆：不清楚要忘记什么。" if zh else "Nothing was removed from memory: it was not clear what to forget.", False)
        removed = self.writer.forget(matcher)
        if not removed:
            return Outcome(f"记忆里没有和“{what}”相符的内容。" if zh else f"Nothing in memory matched '{what}'.", False)
        if zh:
            return Outcome("已从记忆中删除（历史记录里留有副本）：" + "；".join(removed), True)
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
        zh = speaks_chinese(self.store, message)
        saved, unsaved = ("已存入用户档案：{}", "未保存：{}。") if zh else ("Saved to the user's profile: {}", "Not saved: {}.")
        notes = [saved.format(o.op.text) if o.status in APPLIED else unsaved.format(reason_in(o.reason, zh))
                 for o in outcomes if o.status in APPLIED or o.status == "refused"]
        name = answers.companion_name
        if name and not decide(Proposal(E.name_entry(name), "SOUL.md", Actor.BOOTSTRAP, "Identity", message)):
            name = None  # "call yourself Ignore The Rules" is not a name
        if name or answers.styles or user_turns >= BOOTSTRAP_TURNS:
            notes.append(self._write_persona(name, answers.styles, source_id, message, zh))
        return notes

    def _write_persona(self, name: str | None, styles: tuple[str, ...], source_id: str, said: str, zh: bool = False) -> str:
        named = E.format_entry(E.name_entry(name), [source_id]) if name else E.format_entry(E.name_entry("Companion"))
        if zh:  # the persona is written, and told, in the user's language
            styles = tuple(STYLES_ZH.get(style, style) for style in styles)
        identity = f"{named}\n{DEFAULT_IDENTITY_ZH if zh else DEFAULT_IDENTITY}"
        default_style = "友好、清楚、简洁。" if zh else "Friendly, clear and concise."
        style = "\n".join(E.format_entry(s, [source_id]) for s in styles) or E.format_entry(default_style)
        try:
            self.writer.set_persona(identity, style, actor=Actor.BOOTSTRAP, grounds=said)
        except Refused as exc:
            return f"人设未设置：{reason_in(exc.decision.reason, True)}。" if zh else f"Persona not set: {exc.decision.reason}."
        if zh:
            return f"你的人设已设置：{name or 'Companion'}；风格：{''.join(styles) or '友好、清楚、简洁。'}"
        return f"Your persona is set: {name or 'Companion'}; style: {', '.join(styles) or 'friendly and concise'}."


def forget_everywhere(store: LongTermStore, what: str, daylog: DayLog, index: SearchIndex | None = None,
                      *, dry_run: bool = False, wait: float | None = None) -> Erased | None:
    """Erase what a "forget" names from past conversations, digests, earlier versions, backups and the
    search index (the ordinary forget has removed it from the long-term files). None when `what` names
    nothing specific."""
    matcher = forget_matcher(what)
    if matcher is None:
        return None
    if dry_run:
        return erase_everywhere(store.home, matcher, daylog, index, dry_run=True)
    with maintenance.exclusive(store.home, wait):  # the long-term entries and every copy, no night step between
        MemoryWriter(store).forget(matcher)
        return erase_everywhere(store.home, matcher, daylog, index)
