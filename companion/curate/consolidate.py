"""The nightly audit of what is stored: near-duplicates merged, contradicted entries superseded (newest
wins, the old one kept marked), each change an outcome with undo like every other. Planning only: the
MemoryWriter writes it (`audit`), and the policy says how much one audit may retire."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from datetime import date

from companion.memory import entries as E
from companion.memory.dedupe import SIMILAR, STOP as _STOP, WORD as _WORD, features as _features, is_duplicate, near_duplicate, normalize, normalized_duplicate, similar as _similar, stem as _stem
from companion.curate.extract import slot_of
from companion.curate.ops import Op, Outcome
from companion.memory.lang import HAN_CHAR as _CJK

FILES = ("USER.md", "MEMORY.md")  # USER.md first: a fact in both stays in the profile
COMMON_MIN, COMMON_SHARE = 50, 0.02  # a feature in more entries than this is common
_NEGATION = {"not", "no", "never", "doesn", "don", "does", "do"}
_ZH_NEGATION = re.compile(r"从不|从来不|不|没有|没")


def _contradiction_key(text: str) -> tuple[str, frozenset[str] | str, bool] | None:
    """What a line says, without its negation, and whether it negates: two lines contradict when the
    first two parts match and the last differs."""
    if _CJK.search(text):
        plain = _ZH_NEGATION.sub("", text)
        return ("zh", plain, plain != text)
    words = set(_WORD.findall(text.casefold()))
    core = frozenset(_stem(w.removeprefix("dis")) for w in words - _NEGATION - _STOP - {"t"})
    if not core:
        return None
    return ("en", core, bool(words & {"not", "never", "no", "dislikes", "t"}))


def contradicts(a: str, b: str) -> bool:
    """One says what the other denies: "Eats pork" / "Does not eat pork", "喜欢猫" / "不喜欢猫"."""
    key_a, key_b = _contradiction_key(a), _contradiction_key(b)
    return key_a is not None and key_b is not None and key_a[:2] == key_b[:2] and key_a[2] != key_b[2]


def _newest(line: str) -> date:
    """The newest date a line cites; an entry without a citation was typed by the user and wins."""
    return max(E.cited_days(line), default=date.max)


def _mark(bodies: dict[str, str], file: str, line: str, today: date, reason: str, outcomes: list[Outcome]) -> None:
    marked = E.supersede_line(line, today)
    bodies[file] = E.replace_line(bodies[file], line, [marked])
    op = Op("retire", file, E.section_of(bodies[file], marked) or "", E.entry_text(line), E.cited_ids(line), origin="rule")
    outcomes.append(Outcome(op, "merged" if reason.startswith("same as") else "retired", reason, marked, line))


@dataclass(frozen=True)
class _Seen:
    file: str
    line: str
    norm: str
    features: frozenset[str]


class _Kept:
    """Entries looked at and kept so far, in order, indexed so that each new entry meets only the
    entries it could match instead of every one (a full file holds thousands of entries).

    Features are ranked rarest first. One entry inside another shares the shorter one's rarest
    feature; two entries with Jaccard similarity >= SIMILAR share a feature among the first
    len - ceil(SIMILAR * len) + 1 of either (prefix filtering)."""

    def __init__(self, rank: dict[str, int], entries: int) -> None:
        self.rank = rank
        self.common = max(COMMON_MIN, int(COMMON_SHARE * entries))
        self.entries: dict[int, _Seen] = {}  # order -> entry; removed entries leave
        self.by_feature: dict[str, set[int]] = {}  # every feature of an entry
        self.by_prefix: dict[str, set[int]] = {}  # the rarest features of an entry (its prefix)
        self.featureless: set[int] = set()
        self.by_claim: dict[tuple[str, frozenset[str] | str, bool], set[int]] = {}
        self._next = 0

    def _prefix(self, features: frozenset[str]) -> list[str]:
        """The rarest features; a feature most entries share ("fact", "likes") is left out of it unless
        it is the rarest one, since two entries alike only in such words differ in what matters."""
        ordered = sorted(features, key=lambda f: (self.rank.get(f, 0), f))
        prefix = ordered[: len(ordered) - math.ceil(SIMILAR * len(ordered)) + 1]
        return prefix[:1] + [f for f in prefix[1:] if self.rank.get(f, 0) <= self.common]

    def add(self, file: str, line: str) -> None:
        order, text = self._next, E.entry_text(line)
        self._next += 1
        seen = _Seen(file, line, normalize(text), frozenset(_features(text)))
        self.entries[order] = seen
        for feature in seen.features:
            self.by_feature.setdefault(feature, set()).add(order)
        for feature in self._prefix(seen.features):
            self.by_prefix.setdefault(feature, set()).add(order)
        if not seen.features:
            self.featureless.add(order)
        key = _contradiction_key(text)
        if key is not None:
            self.by_claim.setdefault(key, set()).add(order)

    def remove(self, entry: tuple[str, str]) -> None:
        for order, seen in list(self.entries.items()):
            if (seen.file, seen.line) == entry:
                del self.entries[order]
                return

    def _candidates(self, features: frozenset[str]) -> set[int]:
        if not features:
            return set(self.entries)
        prefix = self._prefix(features)
        found = set(self.by_feature.get(prefix[0], set()))  # holds all of ours: we may be inside it
        for feature in features:  # its rarest feature is one of ours: it may be inside us, or similar
            found |= self.by_prefix.get(feature, set())
        return found | self.featureless

    def twin_of(self, text: str) -> tuple[str, str] | None:
        """The first kept entry that says the same as `text`."""
        features, norm = frozenset(_features(text)), normalize(text)
        for order in sorted(self._candidates(features) & self.entries.keys()):
            seen = self.entries[order]
            if normalized_duplicate(norm, seen.norm) or _similar(features, seen.features):
                return seen.file, seen.line
        return None

    def denial_of(self, file: str, text: str) -> tuple[str, str] | None:
        """The first kept entry of `file` that denies what `text` says."""
        key = _contradiction_key(text)
        if key is None:
            return None
        for order in sorted(self.by_claim.get((key[0], key[1], not key[2]), set()) & self.entries.keys()):
            if self.entries[order].file == file:
                return self.entries[order].file, self.entries[order].line
        return None


def _indexed(bodies: dict[str, str]) -> _Kept:
    """An empty index that knows how many entries of the audited files hold each feature."""
    counts: dict[str, int] = {}
    entries = 0
    for file in FILES:
        for line in E.active_entries(bodies.get(file, "")):
            entries += 1
            for feature in _features(E.entry_text(line)):
                counts[feature] = counts.get(feature, 0) + 1
    return _Kept(counts, entries)


def plan(bodies: dict[str, str], today: date) -> tuple[dict[str, str], list[Outcome]]:
    """(new bodies, outcomes): pure, nothing is written."""
    bodies = dict(bodies)
    outcomes: list[Outcome] = []
    kept = _indexed(bodies)
    for file in FILES:
        slots: dict[str, tuple[str, str]] = {}
        for line in E.active_entries(bodies.get(file, "")):
            text = E.entry_text(line)
            twin = kept.twin_of(text)
            if twin is not None:
                twin_wins = twin[0] != file or len(E.entry_text(twin[1])) >= len(text)
                if twin_wins:
                    _mark(bodies, file, line, today, f"same as: {E.entry_text(twin[1])}", outcomes)
                    continue
                _mark(bodies, twin[0], twin[1], today, f"same as: {text}", outcomes)
                kept.remove(twin)
            slot = slot_of(file, text)
            rival = slots.get(slot) if slot else None
            rival = rival or kept.denial_of(file, text)
            if rival is not None:
                older, newer = sorted([rival[1], line], key=_newest)
                _mark(bodies, file, older, today, f"contradicted by: {E.entry_text(newer)}", outcomes)
                if older == line:
                    continue
                kept.remove(rival)
            kept.add(file, line)
            if slot:
                slots[slot] = (file, line)
            if rival is not None and slot and slots.get(slot) == rival:
                slots[slot] = (file, line)
    return bodies, outcomes
