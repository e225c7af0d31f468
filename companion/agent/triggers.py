"""SOUL.md `triggers`: actions that fire on events, with cooldowns persisted in state/soul_state.json."""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Callable

from companion.atomic import atomic_write

log = logging.getLogger(__name__)

EVENTS = ("app_start", "first_message_of_day", "error")
STATE_VERSION = 1


@dataclass(frozen=True)
class Trigger:
    type: str
    action: str
    cooldown: float = 0.0

    @property
    def key(self) -> str:
        return f"{self.type}:{self.action[:60]}"


def parse_triggers(meta: dict[str, Any]) -> list[Trigger]:
    """Valid triggers from SOUL.md frontmatter; malformed entries are skipped with a warning."""
    raw = meta.get("triggers") or []
    if not isinstance(raw, list):
        log.warning("SOUL.md 'triggers' should be a list; ignored")
        return []
    found = []
    for item in raw:
        if not isinstance(item, dict) or item.get("type") not in EVENTS or not isinstance(item.get("action"), str):
            log.warning("Ignored a malformed SOUL.md trigger: %.200r", item)  # never print a huge value whole
            continue
        cooldown = item.get("cooldown", 0)
        found.append(Trigger(item["type"], item["action"].strip(), float(cooldown) if isinstance(cooldown, (int, float)) else 0.0))
    return found


class TriggerState:
    """Last-fired times, so cooldowns survive restarts."""

    def __init__(self, path: Path, clock: Callable[[], datetime]) -> None:
        self.path = path
        self.clock = clock

    def _load(self) -> dict[str, str]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            fired = data.get("last_fired", {})
            return {k: v for k, v in fired.items() if isinstance(v, str)} if isinstance(fired, dict) else {}
        except (OSError, ValueError, AttributeError):
            return {}

    def due(self, triggers: list[Trigger], event: str) -> list[Trigger]:
        """The triggers for `event` whose cooldown has passed; nothing is recorded."""
        now = self.clock()
        fired_at = self._load()
        due = []
        for trigger in triggers:
            if trigger.type != event:
                continue
            last = fired_at.get(trigger.key)
            if last:
                try:
                    if (now - datetime.fromisoformat(last)).total_seconds() < trigger.cooldown:
                        continue
                except (ValueError, TypeError):
                    pass
            due.append(trigger)
        return due

    def fire(self, triggers: list[Trigger], event: str) -> list[Trigger]:
        """The triggers for `event` whose cooldown has passed; records them as fired now."""
        due = self.due(triggers, event)
        if due:
            fired_at = self._load()
            now = self.clock().isoformat()
            fired_at.update({trigger.key: now for trigger in due})
            atomic_write(self.path, json.dumps({"schema_version": STATE_VERSION, "last_fired": fired_at}, indent=2))
        return due
