"""The one door into SOUL.md, USER.md and MEMORY.md: every change, by every writer, goes through MemoryWriter.

One pass per change, under the file's lock: read, compare-and-swap on what the writer read, the
write policy for what the change adds (`curate/policy.py`), the approval a model's change needs,
compaction, the snapshot in the history and the atomic write. Every call names its `Actor`; the
same name goes to the policy and to the history. The store's edit methods are private to it and
to this module (tests/test_one_writer.py keeps it so).
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from datetime import date
from typing import Callable

from companion.curate import policy
from companion.curate.apply import Context, move_past_upcoming, plan
from companion.curate.compact import append_archive, compact
from companion.curate.consolidate import FILES as AUDITED, plan as audit_plan
from companion.curate.ops import APPLIED, Op, Outcome
from companion.curate.policy import FACT_FILES, Actor, Decision, Proposal
from companion.errors import ConflictError, RefusedWriteError
from companion.memory import entries as E
from companion.memory import maintenance
from companion.memory.dedupe import find_duplicate_entry, normalize
from companion.memory.document import Document, parse_document, split_frontmatter
from companion.memory.history import Version
from companion.memory.lang import HAN_CHAR
from companion.memory.records import Record
from companion.memory.longterm import LongTermStore, all_replaced, appended, edited, section_replaced

log = logging.getLogger(__name__)

CONFLICT_RETRIES = 3
# Text the user chose as a whole (an edit, an import, an earlier version): saved as it is, never compacted.
VERBATIM = frozenset({Actor.EDITOR, Actor.RESTORE, Actor.IMPORT, Actor.MIGRATE})
Change = Callable[[Document], str]
Matcher = Callable[[str], bool]


# -- what a "forget" names ------------------------------------------------------------------

_WORDS = re.compile(r"[^\W_]+", re.UNICODE)
_CJK = HAN_CHAR
_VAGUE = {
    "it", "that", "this", "those", "these", "them", "everything", "all", "about", "me", "my", "the", "a", "an",
    "what", "i", "said", "just", "please", "you", "there", "thing", "stuff", "我", "这个", "那个", "它", "这", "那", "吧",
}


def forget_matcher(what: str) -> Matcher | None:
    """A test for entries to forget: every meaningful word of `what`, as a whole word (CJK: as text).

    None when `what` names nothing specific ("it", "that"), so nothing is removed by accident.
    """
    target = normalize(what)
    if _CJK.search(target):
        core = target
        for vague in sorted((v for v in _VAGUE if _CJK.search(v)), key=len, reverse=True):
            core = core.replace(vague, "")
        core = core.strip()
        return (lambda line: core in line) if len(core) >= 2 else None
    words = [w for w in _WORDS.findall(target) if w not in _VAGUE]
    if not words or all(len(w) < 3 for w in words):
        return None
    patterns = [re.compile(rf"(?<![^\W_]){re.escape(w)}(?![^\W_])") for w in words]
    return lambda line: all(p.search(line) for p in patterns)


def forgotten_later(op: Op, records: dict[str, Record], forgets: list[tuple[Record, Matcher]]) -> bool:
    """Whether the user asked, after the words `op` comes from, to forget what it says: the night
    must not learn again what a "forget" removed that day."""
    said = [records[s] for s in op.sources if s in records]
    if not said:
        return False
    latest = max(r.timestamp for r in said)
    text = normalize(op.text)
    return any(asked.timestamp > latest and matches(text) for asked, matches in forgets)


class Refused(RefusedWriteError):
    """The policy refused the change; `decision` says why (the same Decision for every writer)."""

    def __init__(self, decision: Decision) -> None:
        super().__init__(f"Refused: {decision.reason}.")
        self.decision = decision


class NeedsApproval(RefusedWriteError):
    """A model's change that waits for the user's approval; nothing was written."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class Written:
    """What a change did: the file before (raw) and the document after."""

    file: str
    before: str
    doc: Document


class MemoryWriter:
    """Every writer's way to change the long-term files. Reading stays with the store."""

    def __init__(self, store: LongTermStore) -> None:
        self.store = store
        self.home = store.home

    # -- the one pass --------------------------------------------------------

    def change(
        self,
        name: str,
        change: Change,
        *,
        actor: Actor,
        expected_sha: str | None = None,
        grounds: str | None = None,
        request: str | None = None,
        action: str = "edit",
        confirmed: bool = False,
    ) -> Written:
        """Apply `change` (the file's document -> its new raw text) as `actor`.

        `grounds`: the user's words the change comes from (persona and Instructions need them);
        `request`: the user's message of this turn, for a model's change (TOOL, AGENT) that may need
        approval; `confirmed`: the user saw the policy's warning and saves anyway (EDITOR only).
        Raises Refused, NeedsApproval or ConflictError; nothing is written then."""
        actor = Actor(actor)
        before: list[str] = []

        def checked(doc: Document) -> str:
            raw = change(doc)
            after = parse_document(doc.name, raw)
            others = {n: self.store.read(n).body for n in FACT_FILES if n != doc.name}
            decision = policy.check_change(doc.name, doc.body, after.body, actor, others, grounds=grounds)
            if not decision and not (confirmed and actor is Actor.EDITOR):
                raise Refused(decision)
            if actor in (Actor.TOOL, Actor.AGENT):
                reason = policy.approval_reason(doc.name, action, request or "", doc.body, after.body)
                if reason:
                    raise NeedsApproval(reason)
            if actor not in VERBATIM:  # over the size cap: the oldest entries move to the archive
                body, archived = compact(after.front, after.body)
                if archived:
                    append_archive(self.home.memory, doc.name, archived, date.today())
                    raw = after.with_body(body)
            before.append(doc.raw)
            return raw

        with maintenance.shared(self.home):
            doc = self.store._apply(name, checked, expected_sha, actor)
        return Written(doc.name, before[-1] if before else doc.raw, doc)

    # -- the common changes --------------------------------------------------

    def write(self, name: str, new_raw: str, *, actor: Actor, expected_sha: str | None, confirmed: bool = False) -> Document:
        """Replace the whole file (the editor's save, an undo)."""
        return self.change(name, lambda doc: new_raw, actor=actor, expected_sha=expected_sha, confirmed=confirmed).doc

    def append(self, name: str, text: str, section: str | None = None, *, actor: Actor,
               expected_sha: str | None = None, grounds: str | None = None) -> Document:
        return self.change(name, lambda doc: appended(doc, text, section), actor=actor, expected_sha=expected_sha,
                           grounds=grounds, action="append").doc

    def replace_section(self, name: str, heading: str, content: str, *, actor: Actor,
                        expected_sha: str | None = None, grounds: str | None = None) -> Document:
        return self.change(name, lambda doc: section_replaced(doc, heading, content), actor=actor,
                           expected_sha=expected_sha, grounds=grounds, action="replace_section").doc

    def replace_all(self, name: str, content: str, *, actor: Actor, expected_sha: str | None = None) -> Document:
        return self.change(name, lambda doc: all_replaced(doc, content), actor=actor, expected_sha=expected_sha,
                           action="replace_all").doc

    def edit(self, name: str, old_string: str, new_string: str, *, actor: Actor, expected_sha: str | None = None) -> Document:
        return self.change(name, lambda doc: edited(doc, old_string, new_string), actor=actor, expected_sha=expected_sha).doc

    def restore(self, name: str, version: Version, *, expected_sha: str | None) -> Document:
        """Put an earlier version back (History): the user's choice, so no content rule applies, and the
        current file need not read (a broken frontmatter is what a restore repairs)."""
        with maintenance.shared(self.home):
            return self.store._write(name, version.read(), expected_sha, actor=Actor.RESTORE)

    # -- proposed operations (remember, reminders, learning, the night) ----------

    def apply_ops(self, name: str, ops: list[Op], ctx: Context, *, dry_run: bool = False) -> list[Outcome]:
        """Plan `ops` on `name` (each passes the policy as `ctx.actor`), compact, guard the drop share
        and write with compare-and-swap, planning again if someone wrote the file meanwhile."""
        for _attempt in range(CONFLICT_RETRIES):
            doc = self.store.read(name)
            ctx.bodies = {other: self.store.read(other).body for other in FACT_FILES if other != name}
            body, moved = move_past_upcoming(doc.body, ctx.today) if name == "MEMORY.md" else (doc.body, [])
            body, outcomes = plan(name, body, ops, ctx)
            outcomes.extend(
                Outcome(Op("update", name, "Timeline", E.entry_text(l), E.cited_ids(l), origin="rule"), "moved", "date has passed", l, l)
                for l in moved
            )
            body, archived = compact(doc.front, body)
            refusal = None if archived else policy.rewrite_refusal(doc.body, body)  # compaction archives, it does not lose
            if refusal:
                return [Outcome(o.op, "refused", refusal) if o.status in APPLIED else o for o in outcomes]
            if dry_run or body == doc.body:
                return outcomes
            if archived:
                append_archive(self.home.memory, name, archived, ctx.today)
                outcomes.append(Outcome(Op("none", name, "", f"{len(archived)} older entries moved to archive/{name}", []), "archived"))
            try:
                with maintenance.shared(self.home):
                    self.store._write(name, doc.with_body(body), doc.sha, actor=ctx.actor)
            except ConflictError:
                log.info("%s changed while %s wrote it; planning again", name, ctx.actor.value)
                continue
            return outcomes
        raise ConflictError(f"{name} kept changing while {ctx.actor.value} tried to update it; it will try again next time.")

    def audit(self, today: date, *, dry_run: bool = False) -> list[Outcome]:
        """The night's audit of USER.md and MEMORY.md (near-duplicates merged, contradictions superseded)."""
        for _attempt in range(CONFLICT_RETRIES):
            docs = {name: self.store.read(name) for name in AUDITED}
            bodies, outcomes = audit_plan({name: doc.body for name, doc in docs.items()}, today)
            for name, doc in docs.items():
                refusal = policy.audit_refusal(doc.body, bodies[name])
                if refusal:
                    bodies[name] = doc.body
                    outcomes = [o if o.op.file != name else Outcome(o.op, "refused", refusal) for o in outcomes]
            if dry_run:
                return outcomes
            try:
                with maintenance.shared(self.home):
                    for name, doc in docs.items():
                        if bodies[name] != doc.body:
                            self.store._write(name, doc.with_body(bodies[name]), doc.sha, actor=Actor.SLEEP)
            except ConflictError:
                continue
            return outcomes
        raise ConflictError("USER.md and MEMORY.md kept changing while the sleep job audited them; it will try again next time.")

    # -- forgetting ------------------------------------------------------------

    def forget(self, matcher: Matcher, files: tuple[str, ...] = ("MEMORY.md", "USER.md")) -> list[str]:
        """Remove every entry `matcher` finds (on normalised text); the removed lines, for the user.
        Exclusive: no night step or import runs meanwhile, so nothing it removes is written back."""
        removed: list[str] = []
        with maintenance.exclusive(self.home):
            maintenance.note_forget(self.home)
            for name in files:
                gone: list[str] = []

                def without(doc: Document) -> str:
                    lines = doc.body.splitlines(keepends=True)
                    gone[:] = [l for l in lines if E.is_entry(l) and matcher(normalize(l))]
                    return doc.with_body("".join(l for l in lines if l not in gone))

                self.store._apply(name, without, None, Actor.FORGET)
                removed.extend(l.strip() for l in gone)
        return removed

    # -- names and the persona ---------------------------------------------------

    def set_name(self, file: str, section: str, name: str, *, actor: Actor) -> bool:
        """Replace the active `Name:` entry, or add one under `section`. False when nothing changed;
        Refused when the policy refuses the name (an instruction in disguise, a secret)."""
        name = " ".join(name.split())
        doc = self.store.read(file)
        if not name or name == _name_in(doc.body):
            return False
        others = {other: self.store.read(other).body for other in FACT_FILES if other != file}
        decision = policy.decide(Proposal(E.name_entry(name), file, actor, section), others)
        if not decision:
            raise Refused(decision)
        line = E.format_entry(decision.text)

        def named(current: Document) -> str:
            old = next((l for l in current.body.splitlines() if E.name_of(l)), None)
            if old is not None:
                return current.with_body(E.replace_line(current.body, old, [line]))
            return appended(current, line, section)

        self.change(file, named, actor=actor, expected_sha=doc.sha)
        return True

    def set_persona(self, identity: str, style: str, *, actor: Actor, grounds: str) -> Written:
        """Replace SOUL.md's Identity and Style in one change, every line through the policy."""
        def persona(doc: Document) -> str:
            once = section_replaced(doc, "## Identity", identity)
            return section_replaced(parse_document(doc.name, once), "## Style", style)

        return self.change("SOUL.md", persona, actor=actor, grounds=grounds, action="replace_section")

    # -- whole folders: imports and migrations -----------------------------------

    def merge_in(self, name: str, merged: Change, *, actor: Actor) -> Written:
        """An import's or a migration's merged body: the policy reads every line it adds, headings too."""
        return self.change(name, merged, actor=actor)

    def replace_with(self, name: str, raw: str, *, actor: Actor) -> tuple[Written, Filtered]:
        """Replace a file with an imported one, leaving out each line the policy refuses."""
        doc = self.store.read(name)
        front, body = _split(raw)
        filtered = filter_block(body, name, actor)
        if front and _refused_values(parse_document(name, raw).meta, actor):  # triggers reach the prompt too
            front = ""
            filtered = Filtered(filtered.text, filtered.refused + 1, filtered.repeated)
        new = (front + filtered.text) if front else doc.front + filtered.text
        return self.change(name, lambda current: new, actor=actor, expected_sha=doc.sha, action="replace_all"), filtered


@dataclass(frozen=True)
class Filtered:
    """A block with the refused lines left out: how many held a secret or an instruction, how many repeated one before."""

    text: str
    refused: int
    repeated: int


def filter_block(body: str, name: str, actor: Actor) -> Filtered:
    """`body` without the lines the policy refuses for `actor` and without repeats of earlier entries
    (a heading it refuses becomes "Imported", so the entries under it stay)."""
    kept: list[str] = []
    refused = repeated = 0
    accepted = ""
    for line in body.splitlines(keepends=True):
        decision = policy.check_block(line, name, actor, {name: accepted})
        if decision and E.is_entry(line) and find_duplicate_entry(policy.clean(line), accepted) is not None:
            repeated += 1
        elif decision:
            kept.append(line)
            accepted += line
        elif line.lstrip().startswith("#"):
            kept.append("## Imported\n")
            refused += 1
        else:
            refused += 1
    return Filtered("".join(kept), refused, repeated)


def _refused_values(value: object, actor: Actor) -> bool:
    """Whether any text in a frontmatter value is one the policy refuses (a secret, an instruction)."""
    if isinstance(value, str):
        return not policy.check_block(value, "SOUL.md", actor)
    if isinstance(value, dict):
        return any(_refused_values(v, actor) for v in value.values())
    if isinstance(value, list):
        return any(_refused_values(v, actor) for v in value)
    return False


def _split(raw: str) -> tuple[str, str]:
    front, _, body = split_frontmatter(raw)
    return front, body


def _name_in(body: str) -> str:
    for line in body.splitlines():
        name = E.name_of(line)
        if name:
            return name
    return ""


__all__ = ["Filtered", "MemoryWriter", "NeedsApproval", "Refused", "Written", "filter_block", "forget_matcher",
           "forgotten_later"]
