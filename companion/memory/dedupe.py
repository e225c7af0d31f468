"""Is a new memory entry a duplicate of an existing one? One rule, used everywhere."""

from __future__ import annotations

import re
from typing import Iterable

from companion.memory.entries import active_entries, entry_text, normalize
from companion.memory.lang import has_han

__all__ = ["features", "find_duplicate", "find_duplicate_entry", "find_entries", "is_duplicate", "near_duplicate", "normalize",
           "normalized_duplicate", "similar"]

SUBSTRING_RATIO = 0.6
SIMILAR = 0.75  # share of shared words (or character pairs in Chinese) that makes two entries the same fact
WORD = re.compile(r"[^\W_]+")
STOP = {"a", "an", "the", "is", "in", "at", "to", "of", "and", "for", "on", "with", "very", "really"}


def is_duplicate(candidate: str, existing: str) -> bool:
    """Exact match after normalizing, or one inside the other with length ratio > 60%."""
    return normalized_duplicate(normalize(candidate), normalize(existing))


def normalized_duplicate(a: str, b: str) -> bool:
    """`is_duplicate` for texts already passed through `normalize` (for callers comparing many pairs)."""
    if not a or not b:
        return False
    if a == b:
        return True
    shorter, longer = sorted((a, b), key=len)
    return shorter in longer and len(shorter) / len(longer) > SUBSTRING_RATIO


def find_duplicate(candidate: str, lines: Iterable[str]) -> str | None:
    """The first line that duplicates `candidate`, if any."""
    for line in lines:
        if is_duplicate(candidate, line):
            return line
    return None


def find_duplicate_entry(text: str, body: str) -> str | None:
    """The active entry line of `body` that `text` repeats, if any."""
    for line in active_entries(body):
        if is_duplicate(text, entry_text(line)):
            return line
    return None


def find_entries(body: str, old: str) -> list[str]:
    """Active entries that `old` names: same text, or starting with it (a slot like 'Lives in')."""
    wanted = normalize(old)
    if not wanted:
        return []
    found = []
    for line in active_entries(body):
        text = normalize(line)
        if text == wanted or text.startswith(wanted) or normalized_duplicate(wanted, text):
            found.append(line)
    return found


def features(text: str) -> set[str]:
    """What two wordings of one fact share: stemmed words, or character pairs for Chinese."""
    text = normalize(text)
    if has_han(text):
        chars = [c for c in text if not c.isspace() and c not in "，。、：:,.!！"]
        return {a + b for a, b in zip(chars, chars[1:])}
    return {stem(w) for w in WORD.findall(text) if w not in STOP}


def stem(word: str) -> str:
    return word[:-1] if len(word) > 3 and word.endswith("s") else word


def similar(fa: set[str] | frozenset[str], fb: set[str] | frozenset[str]) -> bool:
    return bool(fa and fb) and len(fa & fb) / len(fa | fb) >= SIMILAR


def near_duplicate(a: str, b: str) -> bool:
    """The same fact in other words, the audit's looser test: a duplicate, or nearly the same words
    ("Likes hiking in the mountains" / "Likes mountain hiking"); a changed number or a "not" keeps them apart."""
    return is_duplicate(a, b) or similar(features(a), features(b))
