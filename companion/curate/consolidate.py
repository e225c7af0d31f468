"""The nightly audit of what is stored: near-duplicates merged, contradicted entries superseded (newest
wins, the old one kept marked), each change an outcome with undo like every other."""

from __future__ import annotations

import re
from datetime import date

from companion.errors import ConflictError
from companion.memory import entries as E
from companion.memory.dedupe import is_duplicate
from companion.memory.longterm import LongTermStore
from companion.curate.apply import CONFLICT_RETRIES, dropped_share
from companion.curate.extract import slot_of
from companion.curate.ops import Op, Outcome

FILES = ("USER.md", "MEMORY.md")  # USER.md first: a fact in both stays in the profile
SIMILAR = 0.75
MAX_AUDIT_SHARE = 0.5  # merged and contradicted entries stay in the file, marked: a higher share than a rewrite may
_WORD = re.compile(r"[^\W_]+")
_CJK = re.compile(r"[\u4e00-\u9fff]")
_STOP = {"a", "an", "the", "is", "in", "at", "to", "of", "and", "for", "on", "with", "very", "really"}


def _features(text: str) -> set[str]:
    text = text.casefold()
    if _CJK.search(text):
        chars = [c for c in text if not c.isspace() and c not in "，。、：:,.!！"]
        return {a + b for a, b in zip(chars, chars[1:])}
    return {_stem(w) for w in _WORD.findall(text) if w not in _STOP}


def _stem(word: str) -> str:
    return word[:-1] if len(word) > 3 and word.endswith("s") else word


def near_duplicate(a: str, b: str) -> bool:
    """The same fact in other words: one inside the other, or nearly the same words ("Likes hiking in the
    mountains" / "Likes mountain hiking"); a changed number or a "not" keeps them apart."""
    if is_duplicate(a, b):
        return True
    fa, fb = _features(a), _features(b)
    return bool(fa and fb) and len(fa & fb) / len(fa | fb) >= SIMILAR


_NEGATION = {"not", "no", "never", "doesn", "don", "does", "do"}
_ZH_NEGATION = re.compile(r"从不|从来不|不|没有|没")


def contradicts(a: str, b: str) -> bool:
    """One says what the other denies: "Eats pork" / "Does not eat pork", "喜欢猫" / "不喜欢猫"."""
    if _CJK.search(a) and _CJK.search(b):
        plain_a, plain_b = _ZH_NEGATION.sub("", a), _ZH_NEGATION.sub("", b)
        return plain_a == plain_b and (plain_a != a) != (plain_b != b)
    words_a, words_b = set(_WORD.findall(a.casefold())), set(_WORD.findall(b.casefold()))
    negated_a = bool(words_a & {"not", "never", "no", "dislikes", "t"})
    negated_b = bool(words_b & {"not", "never", "no", "dislikes", "t"})
    core_a = {_stem(w.removeprefix("dis")) for w in words_a - _NEGATION - _STOP - {"t"}}
    core_b = {_stem(w.removeprefix("dis")) for w in words_b - _NEGATION - _STOP - {"t"}}
    return negated_a != negated_b and bool(core_a) and core_a == core_b


def _newest(line: str) -> date:
    """The newest date a line cites; an entry without a citation was typed by the user and wins."""
    return max(E.cited_days(line), default=date.max)


def _mark(bodies: dict[str, str], file: str, line: str, today: date, reason: str, outcomes: list[Outcome]) -> None:
    marked = E.supersede_line(line, today)
    bodies[file] = E.replace_line(bodies[file], line, [marked])
    op = Op("retire", file, E.section_of(bodies[file], marked) or "", E.entry_text(line), E.cited_ids(line), origin="rule")
    outcomes.append(Outcome(op, "merged" if reason.startswith("same as") else "retired", reason, marked, line))


def plan(bodies: dict[str, str], today: date) -> tuple[dict[str, str], list[Outcome]]:
    """(new bodies, outcomes): pure, nothing is written."""
    bodies = dict(bodies)
    outcomes: list[Outcome] = []
    kept: list[tuple[str, str]] = []  # (file, line) already looked at and kept
    for file in FILES:
        slots: dict[str, tuple[str, str]] = {}
        for line in E.active_entries(bodies.get(file, "")):
            text = E.entry_text(line)
            twin = next(((f, l) for f, l in kept if near_duplicate(text, E.entry_text(l))), None)
            if twin is not None:
                twin_wins = twin[0] != file or len(E.entry_text(twin[1])) >= len(text)
                if twin_wins:
                    _mark(bodies, file, line, today, f"same as: {E.entry_text(twin[1])}", outcomes)
                    continue
                _mark(bodies, twin[0], twin[1], today, f"same as: {text}", outcomes)
                kept.remove(twin)
            slot = slot_of(file, text)
            rival = slots.get(slot) if slot else None
            rival = rival or next(((f, l) for f, l in kept if f == file and contradicts(text, E.entry_text(l))), None)
            if rival is not None:
                older, newer = sorted([rival[1], line], key=_newest)
                _mark(bodies, file, older, today, f"contradicted by: {E.entry_text(newer)}", outcomes)
                if older == line:
                    continue
                kept.remove(rival)
            kept.append((file, line))
            if slot:
                slots[slot] = (file, line)
            if rival is not None and slot and slots.get(slot) == rival:
                slots[slot] = (file, line)
    return bodies, outcomes


def consolidate(store: LongTermStore, today: date, *, dry_run: bool = False) -> list[Outcome]:
    """Audit USER.md and MEMORY.md and write what changed (compare-and-swap, planning again on a conflict)."""
    for _attempt in range(CONFLICT_RETRIES):
        docs = {name: store.read(name) for name in FILES}
        bodies, outcomes = plan({name: doc.body for name, doc in docs.items()}, today)
        for name, doc in docs.items():
            lost, total = dropped_share(doc.body, bodies[name])
            if lost > 2 and lost > total * MAX_AUDIT_SHARE:  # an audit that retires half a file is a bug, not a cleanup
                refusal = f"would retire {lost} of {total} entries at once; left for you to review"
                bodies[name] = doc.body
                outcomes = [o if o.op.file != name else Outcome(o.op, "refused", refusal) for o in outcomes]
        if dry_run:
            return outcomes
        try:
            for name, doc in docs.items():
                if bodies[name] != doc.body:
                    store.write(name, doc.with_body(bodies[name]), doc.sha, actor="sleep")
        except ConflictError:
            continue
        return outcomes
    raise ConflictError("USER.md and MEMORY.md kept changing while the sleep job audited them; it will try again next time.")
