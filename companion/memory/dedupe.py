"""Is a new memory entry a duplicate of an existing one? One rule, used everywhere."""

from __future__ import annotations

from typing import Iterable

from companion.memory.entries import normalize

__all__ = ["find_duplicate", "is_duplicate", "normalize", "normalized_duplicate"]

SUBSTRING_RATIO = 0.6


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
