"""Paused memory ("Don't remember this"): turns are logged with a private flag and kept out of memory."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from companion.memory.records import Record

PAUSED_NOTE = ("Memory is paused (the user turned on \"Don't remember this\"): nothing from this message was "
               "saved. Tell the user so if they asked you to remember something.")


def paused_notice(chinese: bool) -> str:
    """What the user sees when a "remember ..." arrives while memory is paused, in their language."""
    if chinese:
        return "未保存：记忆已暂停（“不要记住这些”已打开）。"
    return "Not saved: memory is paused (\"Don't remember this\" is on)."


@dataclass
class Privacy:
    """While `on`, every record of a turn carries `private: true`; learning, tools and memory requests are off.

    Private turns stay in the conversation while the pause lasts, then leave the model's history:
    the index, recall, the sleep job and exports skip them on their own (Record.private)."""

    on: bool = False
    since: str = ""  # timestamp of the moment the pause began
    turns: int = 0  # user messages sent during this pause

    def start(self, now: datetime) -> None:
        if not self.on:
            self.on, self.since, self.turns = True, now.isoformat(timespec="milliseconds"), 0

    def stop(self) -> int:
        """Resume remembering; returns how many turns stayed private."""
        turns = self.turns if self.on else 0
        self.on, self.since, self.turns = False, "", 0
        return turns

    def fields(self) -> dict[str, Any]:
        """Extra fields for a record logged now."""
        return {"private": True} if self.on else {}

    def in_history(self, record: Record) -> bool:
        """Private records are history only during the pause that produced them."""
        if not record.private:
            return True
        return self.on and record.timestamp >= datetime.fromisoformat(self.since)
