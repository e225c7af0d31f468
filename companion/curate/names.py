"""The user's and the companion's names: the `Name:` entry of USER.md / SOUL.md (read by recall, set from Preferences)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from companion.curate.policy import Actor
from companion.memory import entries as E
from companion.memory.longterm import LongTermStore

if TYPE_CHECKING:
    from companion.curate.gate import MemoryWriter


def current_name(store: LongTermStore, file: str) -> str:
    return name_in(store.read(file).body)


def name_in(body: str) -> str:
    """The name a file's `- Name:` entry holds ('' when there is none)."""
    for line in body.splitlines():
        name = E.name_of(line)
        if name:
            return name
    return ""


def set_name(writer: "MemoryWriter", file: str, section: str, name: str) -> bool:
    """Replace the active `Name:` entry, or add one under `section` (the one writer does it). False when
    nothing changed; RefusedWriteError when the policy refuses the name (an instruction in disguise, a secret)."""
    return writer.set_name(file, section, name, actor=Actor.USER)
