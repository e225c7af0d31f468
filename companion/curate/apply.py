"""Validate proposed operations and plan their effect on a long-term body; the MemoryWriter writes it."""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from datetime import date

from companion.memory import sections
from companion.memory.section_names import canonical, file_language, localized
from companion.memory.records import Record
from companion.curate import listen
from companion.curate.corrections import retires
from companion.curate.policy import Actor, Code, Proposal, clean, decide, grounds_refusal
from companion.memory import entries as E
from companion.memory.dedupe import find_entries, is_duplicate
from companion.curate.dates import absolutize, has_relative_date
from companion.curate.ops import SECTIONS, Op, Outcome
from companion.curate.extract import SLOTS, extract, own_words, slot_matches, slot_of
from companion.memory.lang import has_han

log = logging.getLogger(__name__)

_RECURRING = re.compile(r"^(?:Birthday|Anniversary|生日|纪念日)\s*[:：]", re.I)
_SECTION_NAME = re.compile(r"^[\w &/'-]{2,32}$")
_LETTERS = re.compile(r"[^\W\d_]")
@dataclass
class Context:
    """What validation needs: the records the ops may cite and the run's local date."""

    records: dict[str, Record]
    today: date
    actor: Actor  # who proposes: no default, every writer names itself
    refused_sensitive: int = 0
    seen: set[str] = field(default_factory=set)
    bodies: dict[str, str] = field(default_factory=dict)  # the other long-term files, for "one fact, one place"


def in_entry_form(text: str, source: Record) -> str:
    """A model that copies the user's words ("I'm allergic to X") gets them in entry form ("Allergic to X")."""
    probe = Record(source.id, source.ts, "user", text)
    ops = extract([probe])
    return ops[0].text if len(ops) == 1 else text


def _resolve_section(op: Op, body: str) -> str:
    titles = [h.title for h in sections.headings(body) if h.level == 2]
    existing = {canonical(t).casefold(): t for t in titles}
    allowed = SECTIONS[op.file]
    wanted = canonical(sections.parse_heading(op.section or "")[1]) if op.section else ""
    if wanted.casefold() in existing:
        return existing[wanted.casefold()]
    language = file_language(titles)
    for key in allowed:
        if key.casefold() == wanted.casefold():
            return localized(key, language)
    if wanted and _SECTION_NAME.match(wanted) and op.file != "SOUL.md" and _LETTERS.search(wanted):
        return wanted.strip().title() if wanted.islower() else wanted.strip()
    return existing.get(allowed[0].casefold()) or localized(allowed[0], language)


def validate(op: Op, body: str, ctx: Context) -> tuple[Op | None, str]:
    """A cleaned copy of `op` ready to apply, or (None, reason)."""
    if op.kind == "none":
        return None, "nothing proposed"
    if op.kind not in ("add", "update", "supersede", "retire", "revalue") or op.file not in SECTIONS:
        return None, f"unknown operation {op.kind!r} on {op.file!r}"
    sources = [s for s in dict.fromkeys(op.sources) if s in ctx.records]
    refusal = grounds_refusal([ctx.records[s].role for s in sources])
    if refusal:
        return None, refusal
    if op.kind == "retire":
        return Op(op.kind, op.file, "", op.text, sources, op.old or op.text, op.origin), ""
    if op.kind == "revalue":
        op = _revalued(op, body, ctx)
        if op.kind == "none":
            return None, op.text
    text = clean(op.text)
    anchor = ctx.records[sources[0]].day
    if op.origin == "model":
        text = in_entry_form(text, ctx.records[sources[0]])
    if not _RECURRING.match(text):  # a birthday recurs: "March 3rd" is not next year's March 3rd
        text = absolutize(text, anchor)
    if has_relative_date(text):
        return None, "uses a relative date that could not be resolved"
    grounds = " ".join(ctx.records[s].text for s in sources if ctx.records[s].role == "user")
    section = _resolve_section(op, body)
    decision = decide(Proposal(text, op.file, ctx.actor, section, grounds), {**ctx.bodies, op.file: body})
    if not decision:
        if decision.code == Code.SECRET:
            ctx.refused_sensitive += 1
        return None, decision.reason
    if op.origin == "model":  # the rules read the statement itself; a model's paraphrase is checked against it
        why = listen.doubt(decision.text, own_words(listen.own_part(grounds)))
        if why:
            return None, why
    relearned = _corrected_since(decision.text, body, sources)
    if relearned:
        return None, f"learned from this message before and since corrected: {E.entry_text(relearned)}"
    return Op(op.kind, op.file, section, decision.text, sources, op.old, op.origin), decision.note


def _revalued(op: Op, body: str, ctx: Context) -> Op:
    """A correction of a value the files hold ("I meant Dublin, not Dundee"): an update of the entry
    naming Dundee; where no file names it, a note under Corrections; else nothing."""
    target = next((l for l in E.active_entries(body) if _names(E.entry_text(l), op.old)), None)
    if target is not None:
        text = E.entry_text(target)
        at = text.casefold().rfind(op.old.casefold())
        new = text[:at] + op.text + text[at + len(op.old):]
        return Op("update", op.file, E.section_of(body, target) or "", new, op.sources, old=text, origin=op.origin)
    elsewhere = any(_names(E.entry_text(l), v) for b in ctx.bodies.values() for l in E.active_entries(b) for v in (op.old, op.text))
    if op.section == "Corrections" and not elsewhere:
        return Op("add", op.file, "Corrections", f"{op.text[:1].upper()}{op.text[1:]} (not {op.old})", op.sources, origin=op.origin)
    return Op("none", op.file, "", f"no entry names {op.old!r}", op.sources)


def _names(text: str, value: str) -> bool:
    if has_han(value):
        return value in text
    return re.search(rf"(?<![\w]){re.escape(value)}(?![\w])", text, re.I) is not None


def _corrected_since(text: str, body: str, sources: list[str]) -> str | None:
    """A superseded entry with this text from the same message: the night must not bring it back."""
    for line in body.splitlines():
        if E.is_superseded(line) and set(E.cited_ids(line)) & set(sources) and is_duplicate(text, E.entry_text(line)):
            return line
    return None


def plan(name: str, body: str, ops: list[Op], ctx: Context) -> tuple[str, list[Outcome]]:
    """The new body after every valid op, and one outcome per op (pure: nothing is written)."""
    outcomes: list[Outcome] = []
    for op in ops:
        checked, reason = validate(op, body, ctx)
        if checked is None:
            skipped = op.kind == "none" or reason.startswith("no entry names")
            outcomes.append(Outcome(op, "skipped" if skipped else "refused", reason))
            continue
        body, outcome = _apply_one(body, checked, ctx.today)
        outcome.reason = outcome.reason or reason  # e.g. "stored an email address because the user asked"
        outcomes.append(outcome)
    return body, outcomes


def _targets(body: str, old: str, file: str) -> list[str]:
    """Entries an update replaces: `old` names one entry, or alternative slots ("Is a vegan|Is a vegetarian")."""
    found: list[str] = []
    is_slot = old in SLOTS
    for part in old.split("|"):
        if "*" in part:  # a slot with a hole: "在*工作" names "在腾讯工作"
            lines = [l for l in E.active_entries(body) if slot_matches(part, E.entry_text(l))]
        else:
            lines = find_entries(body, part)
        if is_slot:  # "Is a" names a job, not "Is a vegetarian", which fills a slot of its own
            lines = [l for l in lines if slot_of(file, E.entry_text(l)) in (old, None)]
        found.extend(line for line in lines if line not in found)
    return found


def _retire(body: str, op: Op, today: date) -> tuple[str, Outcome]:
    """A past habit ("I don't teach anymore") marks the entry that states it superseded."""
    target = next((l for l in E.active_entries(body) if retires(op.old, E.entry_text(l))), None)
    if target is None:
        return body, Outcome(op, "skipped", f"no entry about {op.old!r}")
    marked = E.supersede_line(target, today)
    return E.replace_line(body, target, [marked]), Outcome(op, "retired", line=marked, old_line=target)


def _apply_one(body: str, op: Op, today: date) -> tuple[str, Outcome]:
    if op.kind == "retire":
        return _retire(body, op, today)
    line = E.format_entry(op.text, op.sources)
    targets = _targets(body, op.old, op.file) if op.kind in ("update", "supersede") and op.old else []
    if op.kind == "supersede" and not targets:
        return body, Outcome(op, "refused", f"no entry matching {op.old!r} to supersede")
    if not targets:
        return _append(body, op.section, line), Outcome(op, "added", line=line)
    old_line = targets[0]
    marked = [E.supersede_line(t, today) for t in targets]
    if op.kind == "update":
        body = E.replace_line(body, old_line, [marked[0], line])
        for target, mark in zip(targets[1:], marked[1:]):
            body = E.replace_line(body, target, [mark])
        return body, Outcome(op, "updated", line=line, old_line=old_line)
    for target, mark in zip(targets, marked):
        body = E.replace_line(body, target, [mark])
    return _append(body, op.section, line), Outcome(op, "superseded", line=line, old_line=old_line)


def _append(body: str, section: str, line: str) -> str:
    heading = f"## {section}"
    updated = sections.append_to_section(body, heading, line)
    return updated if updated is not None else sections.add_section(body, heading, line)


def move_past_upcoming(body: str, today: date) -> tuple[str, list[str]]:
    """Entries under Upcoming whose date has passed move, unchanged, to the Timeline."""
    span = sections.find_section(body, "## Upcoming")
    if span is None:
        return body, []
    lines = body.splitlines()
    moved = []
    for line in lines[span[1] : span[2]]:
        entry = E.Entry.parse(line)
        if entry is not None and entry.day is not None and entry.day < today:
            moved.append(line)
    for line in moved:
        body = _append(E.remove_line(body, line), "Timeline", line)
    return body, moved
