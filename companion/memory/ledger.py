"""The learning ledger: which proposals daytime learning already handled, per source record, so the night
learns only what the day missed and does not report what is already known (state/learned.jsonl).

One JSON object per line, appended: {"id": "2026-11-29#17", "keys": ["USER.md|update|lives in leeds"], "by": "learn"}.
A torn or unreadable line is skipped: the ledger only saves work, it never decides what is true.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from companion.filelock import locked

LEDGER_NAME = "learned.jsonl"


class Ledger:
    """Keys of proposals handled per record id. `note` appends; `handled` answers from one read of the file."""

    def __init__(self, state: Path) -> None:
        self.path = state / LEDGER_NAME
        self._cache: dict[str, set[str]] | None = None
        self._read_size = -1

    def note(self, record_id: str, keys: list[str], by: str = "learn") -> None:
        if not keys:
            return
        line = json.dumps({"id": record_id, "keys": sorted(set(keys)), "by": by}, ensure_ascii=False) + "\n"
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with locked(self.path.with_suffix(".lock")):
            with open(self.path, "a", encoding="utf-8") as handle:
                handle.write(line)
                handle.flush()
                os.fsync(handle.fileno())
        if self._cache is not None:
            self._cache.setdefault(record_id, set()).update(keys)

    def handled(self, record_id: str) -> set[str]:
        return self._load().get(record_id, set())

    def _load(self) -> dict[str, set[str]]:
        try:
            size = self.path.stat().st_size
        except FileNotFoundError:
            return {}
        if self._cache is not None and size == self._read_size:
            return self._cache
        table: dict[str, set[str]] = {}
        with open(self.path, encoding="utf-8", errors="replace") as handle:
            for raw in handle:
                try:
                    item = json.loads(raw)
                    table.setdefault(str(item["id"]), set()).update(str(k) for k in item["keys"])
                except (ValueError, KeyError, TypeError):
                    continue
        self._cache, self._read_size = table, size
        return table
