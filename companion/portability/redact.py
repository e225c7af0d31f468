"""Mask personal data in exported text with the write guard's own detector (`curate.sensitive`)."""

from __future__ import annotations

from dataclasses import dataclass, field

from companion.curate.sensitive import MASKS, mask

__all__ = ["MASKS", "Redactions", "redact"]
_COUNTED_AS = {"ssn": "id", "recovery": "secret"}  # reported under the name of their mask

@dataclass
class Redactions:
    """How many values of each kind were masked."""

    counts: dict[str, int] = field(default_factory=dict)

    def add(self, kind: str, count: int = 1) -> None:
        self.counts[kind] = self.counts.get(kind, 0) + count

    def merge(self, other: "Redactions") -> None:
        for kind, count in other.counts.items():
            self.add(kind, count)

    @property
    def total(self) -> int:
        return sum(self.counts.values())


def redact(text: str, found: Redactions | None = None) -> str:
    """`text` with every value the detector finds replaced by its mask; labels before it stay."""
    found = found if found is not None else Redactions()
    return mask(text, lambda kind: found.add(_COUNTED_AS.get(kind, kind)))
