"""Proposed changes to long-term files (add / update / supersede / none) and their outcomes."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

# retire: mark an entry superseded, add nothing; revalue: put `text` in place of the value `old` in the entry naming it
KINDS = ("add", "update", "supersede", "retire", "revalue", "none")
MIN_TEXT, MAX_TEXT = 5, 200
APPLIED = ("added", "updated", "superseded", "retired", "merged", "moved")  # outcomes that changed a file

# The sections each file's distiller may write to; the first one is the fallback.
SECTIONS: dict[str, tuple[str, ...]] = {
    "USER.md": ("Profile", "Instructions", "Preferences"),
    "MEMORY.md": ("Facts", "Decisions", "Corrections", "Topics & Interests", "Timeline", "Upcoming"),
    "SOUL.md": ("Style", "Identity", "Boundaries"),
}


@dataclass
class Op:
    """One proposed change. `old` names the entry an update/supersede replaces (its text)."""

    kind: str
    file: str
    section: str
    text: str
    sources: list[str]
    old: str = ""
    origin: str = "rule"  # rule | model | learn

    def key(self) -> str:
        return f"{self.file}|{self.kind}|{self.text.casefold()}"


@dataclass
class Outcome:
    """What became of an Op: applied (added/updated/superseded) or refused with a reason."""

    op: Op
    status: str  # added | updated | superseded | retired | merged | moved | refused | skipped
    reason: str = ""
    line: str = ""  # the exact line written (for undo)
    old_line: str = ""  # the line it replaced (update/supersede)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["op"] = asdict(self.op)
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Outcome":
        op = Op(**data["op"])
        return cls(op, data["status"], data.get("reason", ""), data.get("line", ""), data.get("old_line", ""))
