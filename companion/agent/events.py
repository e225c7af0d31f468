"""What a turn reports as it goes: one dataclass per kind of event; consumers dispatch on the type or `kind`."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, ClassVar

from companion.agent.tools import ToolResult
from companion.memory.records import Record


class EventKind(StrEnum):
    USER = "user"  # the user's message was logged
    MEMORY = "memory"  # a "remember"/"forget" request or the first conversation changed memory
    RECALL = "recall"  # memories were recalled for this reply
    DELTA = "delta"  # a piece of the reply
    TRIMMED = "trimmed"  # a loop was cut off: `text` is the whole reply without it
    TOOL = "tool"  # the model ran a tool
    DONE = "done"  # the reply is complete and logged
    ERROR = "error"  # the turn failed; the user's message is saved


@dataclass
class TurnStats:
    tokens: int = 0
    seconds: float = 0.0
    first_token_seconds: float | None = None
    cancelled: bool = False

    @property
    def tokens_per_second(self) -> float:
        return self.tokens / self.seconds if self.seconds > 0 else 0.0


@dataclass(frozen=True)
class TurnEvent:
    text: str = ""
    record: Record | None = None
    kind: ClassVar[EventKind]


@dataclass(frozen=True)
class UserLogged(TurnEvent):
    kind: ClassVar[EventKind] = EventKind.USER


@dataclass(frozen=True)
class MemoryNote(TurnEvent):
    changed: bool = False
    forget: str | None = None  # what a "forget ..." request named (the app offers to erase it everywhere)
    kind: ClassVar[EventKind] = EventKind.MEMORY


@dataclass(frozen=True)
class Recalled(TurnEvent):
    hits: tuple[dict[str, Any], ...] = ()  # Hit.to_dict(): file, id or line, date, score
    kind: ClassVar[EventKind] = EventKind.RECALL


@dataclass(frozen=True)
class Delta(TurnEvent):
    kind: ClassVar[EventKind] = EventKind.DELTA


@dataclass(frozen=True)
class Trimmed(TurnEvent):
    kind: ClassVar[EventKind] = EventKind.TRIMMED


@dataclass(frozen=True)
class ToolRan(TurnEvent):
    result: ToolResult | None = None
    kind: ClassVar[EventKind] = EventKind.TOOL


@dataclass(frozen=True)
class Done(TurnEvent):
    """Always carries the final text, the logged record, the stats and what was recalled for the reply."""

    stats: TurnStats = field(default_factory=TurnStats)
    recalled: tuple[dict[str, Any], ...] = ()
    kind: ClassVar[EventKind] = EventKind.DONE


@dataclass(frozen=True)
class Failed(TurnEvent):
    kind: ClassVar[EventKind] = EventKind.ERROR
