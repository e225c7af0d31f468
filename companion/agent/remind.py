"""'Remind me ...' in a turn: the reminder goes to MEMORY.md `## Upcoming` through the curation policy."""

from __future__ import annotations

import re

from companion.agent.memory_requests import Outcome
from companion.curate.apply import Context
from companion.curate.gate import MemoryWriter
from companion.curate.policy import Actor
from companion.curate.ops import Op
from companion.curate.requests import ReminderRequest
from companion.memory.longterm import LongTermStore
from companion.memory.records import Record

_CJK = re.compile(r"[\u4e00-\u9fff]")
_ZH_WEEKDAYS = "一二三四五六日"


def describe_when(request: ReminderRequest, chinese: bool) -> str:
    """'Tuesday 2026-12-01 at 08:00' / '2026-12-01（星期二）08:00'."""
    if chinese:
        return f"{request.day.isoformat()}（星期{_ZH_WEEKDAYS[request.day.weekday()]}）" + (
            f"{request.at:%H:%M}" if request.at else "")
    return f"{request.day:%A} {request.day.isoformat()}" + (f" at {request.at:%H:%M}" if request.at else "")


def set_reminder(store: LongTermStore, request: ReminderRequest, record: Record) -> Outcome:
    """Write the reminder (cited to `record`); the note tells the user and the model when it is due."""
    op = Op("add", "MEMORY.md", "Upcoming", request.entry(), [record.id], origin="rule")
    ctx = Context({record.id: record}, record.day, actor=Actor.REMINDER)
    outcome = MemoryWriter(store).apply_ops("MEMORY.md", [op], ctx)[0]
    chinese = bool(_CJK.search(record.text))
    when = describe_when(request, chinese)
    if outcome.status != "added":
        if chinese:
            return Outcome(f"提醒没有保存：{outcome.reason}。", False)
        return Outcome(f"Reminder not saved: {outcome.reason}.", False)
    if chinese:
        return Outcome(f"已设提醒：{when}，{request.text}。", True)
    return Outcome(f"Reminder set for {when}: {request.text}.", True)
