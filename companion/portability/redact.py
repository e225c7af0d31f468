"""Mask personal data in exported text with the write guard's own detector (`curate.sensitive`)."""

from __future__ import annotations

from dataclasses import dataclass, field

from companion.curate.sensitive import scan

MASKS = {
    "email": "[email]",
    "phone": "[phone]",
    "card": "[card]",
    "iban": "[iban]",
    "secret": "[secret]",
    "ssn": "[id]",
    "id": "[id]",
    "address": "[address]",
}


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
    parts: list[str] = []
    end = 0
    for finding in scan(text):
        parts.append(text[end : finding.start])
        parts.append(MASKS[finding.kind])
        found.add("id" if finding.kind == "ssn" else finding.kind)
        end = finding.end
    parts.append(text[end:])
    return "".join(parts)
