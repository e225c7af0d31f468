"""The day-log record: one JSON object per line (format in docs/ARCHITECTURE.md, "Record formats")."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

from companion.memory.versions import not_counted

ROLES = ("user", "assistant", "tool", "event")
_KNOWN = ("id", "ts", "role", "text")
# A device tag: four characters naming one computer of a synced memory folder ("k3fq").
DEVICE_TAG = r"[a-z][a-z0-9]{3}"
# The part after "#": a sequence number, and the device tag when the folder is synced ("17", "17.k3fq").
SEQ_PART = rf"\d+(?:\.{DEVICE_TAG}(?![a-z0-9]))?"
_SEQ = re.compile(rf"^(\d+)(?:\.({DEVICE_TAG}))?$")


@dataclass
class Record:
    """One line of a day log. `extra` keeps optional and unknown keys (tool, model, tokens, ref, private...)."""

    id: str
    ts: str
    role: str
    text: str
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def day(self) -> date:
        return date.fromisoformat(self.id.split("#", 1)[0])

    @property
    def seq(self) -> int:
        """The sequence number within its day file (each device numbers its own file)."""
        return int(self.id.split("#", 1)[1].split(".", 1)[0])

    @property
    def device(self) -> str | None:
        """The tag of the computer that wrote it, or None for an unsynced home's records."""
        _, _, tag = self.id.split("#", 1)[1].partition(".")
        return tag or None

    @property
    def private(self) -> bool:
        """Said while memory was paused: logged, but never learned, distilled, recalled or exported by default."""
        return self.extra.get("private") is True

    @property
    def timestamp(self) -> datetime:
        return datetime.fromisoformat(self.ts)

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"id": self.id, "ts": self.ts, "role": self.role, "text": self.text}
        for key, value in self.extra.items():
            if key not in _KNOWN:
                data[key] = value
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Record":
        """Build from a parsed line; raises ValueError when a required field is wrong."""
        if not isinstance(data, dict):
            raise ValueError("a record must be a JSON object")
        rid, ts, role, text = (data.get(k) for k in _KNOWN)
        if not isinstance(rid, str) or "#" not in rid:
            raise ValueError("missing or malformed 'id'")
        day_part, _, seq_part = rid.partition("#")
        date.fromisoformat(day_part)
        if not _SEQ.match(seq_part):  # ASCII digits only: '²'.isdigit() is True, int('²') fails
            raise ValueError("malformed sequence number in 'id'")
        if not isinstance(ts, str):
            raise ValueError("missing 'ts'")
        datetime.fromisoformat(ts)
        if role not in ROLES:
            raise ValueError(f"unknown role {role!r}")
        if not isinstance(text, str):
            raise ValueError("missing 'text'")
        extra = {k: v for k, v in data.items() if k not in _KNOWN}
        return cls(id=rid, ts=ts, role=role, text=valid_text(text), extra=extra)

    def to_line(self) -> bytes:
        text = json.dumps(self.to_dict(), ensure_ascii=False, separators=(",", ":"))
        try:
            return (text + "\n").encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate (pasted text, JSON escapes): \u-escape it, losslessly
            return (json.dumps(self.to_dict(), ensure_ascii=True, separators=(",", ":")) + "\n").encode("ascii")


def valid_text(text: str) -> str:
    """`text` as valid Unicode: surrogate pairs joined, a lone surrogate -> U+FFFD.

    Lone surrogates (from pasted text or a JSON escape like \\ud800) cannot be encoded as
    UTF-8, so the model's tokenizer, the search index and the UI would each fail on them."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def make_id(day: date, seq: int, device: str | None = None) -> str:
    """'2026-11-29#17', or '2026-11-29#17.k3fq' for a record written on device k3fq of a synced folder."""
    return f"{day.isoformat()}#{seq}" + (f".{device}" if device else "")


def conversational(records: list[Record], *, private: bool = True) -> list[Record]:
    """The user's and the companion's words: user and assistant records with text, without a deleted
    message or a reply version not chosen (of the versions Regenerate made, each carrying `replaces:
    <previous id>`, the one chosen counts, else the newest: `versions.py`; the log keeps them all).
    `private=False` leaves out the turns said while memory was paused, for everything that learns or
    summarises."""
    gone = not_counted(records)
    return [r for r in records if r.role in ("user", "assistant") and r.text.strip() and r.id not in gone
            and (private or not r.private)]
