"""Daytime learning: after a reply, up to 3 facts from the last exchange go to USER.md / MEMORY.md."""

from __future__ import annotations

import json
import logging
import re
import threading
from datetime import datetime
from typing import Any, Callable

from companion.errors import CompanionError
from companion.llm.base import Backend, GenerationOptions, Message, collect
from companion.memory.longterm import LongTermStore
from companion.memory.records import Record
from companion.curate.apply import Context
from companion.curate.gate import MemoryWriter
from companion.curate.policy import Actor
from companion.curate.ops import APPLIED, MAX_TEXT, MIN_TEXT, Op, Outcome
from companion.curate.extract import extract
from companion.memory.lang import HAN

log = logging.getLogger(__name__)

MAX_FACTS = 3
RECENT = 3
MAX_LEARN_CHARS = 4000  # a pasted document is not a statement about the user
TARGETS = {"USER": ("USER.md", "Profile"), "MEMORY": ("MEMORY.md", "Facts")}
_ABOUT_SELF = re.compile(r"\b(i|i'm|i am|i've|i'd|i'll|my|me|mine|we|our)\b|我", re.I)
_WORD = re.compile(r"[^\W\d_]{3,}|[" + HAN + r"]", re.UNICODE)
_SMALL_TALK = re.compile(r"^\s*(ok(ay)?|thanks?( you)?|thx|cool|nice|great|yes|no|sure|hi|hello|hey|bye|good (morning|night)|好的?|谢谢|嗯|哈+)\W*$", re.I)
_STOPWORDS = {"the", "and", "user", "user's", "that", "this", "with", "has", "have", "likes", "like", "is", "are", "was"}

PROMPT = (
    "Extract at most 3 lasting facts about the user from this exchange: who they are, what they like, "
    "their plans with dates, instructions for the assistant. Use the user's own words. "
    "Target USER for profile, preferences and instructions; MEMORY for facts, events and decisions. "
    "Return an empty list when there is nothing worth keeping."
)
SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "facts": {
            "type": "array",
            "maxItems": MAX_FACTS,
            "items": {
                "type": "object",
                "properties": {
                    "target": {"type": "string", "enum": list(TARGETS)},
                    "text": {"type": "string", "minLength": MIN_TEXT, "maxLength": MAX_TEXT},
                },
                "required": ["target", "text"],
            },
        }
    },
    "required": ["facts"],
}


def worth_learning(user: Record, used_memory_tool: bool) -> bool:
    """After a memory tool or a statement about the user; not after small talk, never from a private turn."""
    if user.private:
        return False
    if used_memory_tool:
        return True
    text = user.text.strip()
    return 8 <= len(text) <= MAX_LEARN_CHARS and not _SMALL_TALK.match(text) and bool(_ABOUT_SELF.search(text))


def grounded(fact: str, source: str) -> bool:
    """Most content words of a model's fact must appear in what the user said (no invented facts)."""
    words = [w.casefold() for w in _WORD.findall(fact) if w.casefold() not in _STOPWORDS]
    if not words:
        return False
    said = source.casefold()
    return sum(1 for w in words if w in said) / len(words) >= 0.6


def model_ops(backend: Backend, user: Record, reply: Record | None) -> list[Op]:
    """The model path: grammar-constrained JSON, kept only where it is grounded in the user's words."""
    exchange = f"User ({user.id}): {user.text}"
    if reply is not None and reply.text:
        exchange += f"\nAssistant: {reply.text[:600]}"
    messages: list[Message] = [{"role": "system", "content": PROMPT}, {"role": "user", "content": exchange}]
    text, _, reason = collect(backend.stream_chat(messages, GenerationOptions(max_tokens=200, temperature=0.0, json_schema=SCHEMA)))
    if reason == "cancelled":
        return []
    try:
        facts = json.loads(text).get("facts", [])
    except (ValueError, AttributeError):
        return []
    ops = []
    for fact in facts[:MAX_FACTS]:
        if not isinstance(fact, dict) or fact.get("target") not in TARGETS or not isinstance(fact.get("text"), str):
            continue
        if not grounded(fact["text"], user.text):
            continue
        file, section = TARGETS[fact["target"]]
        ops.append(Op("add", file, section, fact["text"], [user.id], origin="model"))
    return ops


class DaytimeLearner:
    """Rules run at once (milliseconds); the model path, if any, runs on a background view of the model."""

    def __init__(
        self,
        store: LongTermStore,
        background_backend: Callable[[], Backend | None],
        clock: Callable[[], datetime],
        after_model: Callable[[], None] | None = None,
    ) -> None:
        self.store = store
        self.background_backend = background_backend
        self.clock = clock
        self.after_model = after_model  # the model path replaced chat's KV cache: warm it again
        self._thread: threading.Thread | None = None
        self._view: Backend | None = None
        self._recent: list[Record] = []  # the user's last messages, so "sorry, I meant Lille" finds "I live in Lyon"

    def after_turn(self, user: Record, reply: Record | None, used_memory_tool: bool) -> list[Outcome]:
        if not worth_learning(user, used_memory_tool):
            return []
        ops = [op for op in extract([user], context=self._recent) if op.file != "SOUL.md"][:MAX_FACTS]
        self._recent = [*self._recent, user][-RECENT:]
        outcomes = self.apply(ops, user, reply)
        learned = [o for o in outcomes if o.status in APPLIED]
        backend = self.background_backend()
        busy = self._thread is not None and self._thread.is_alive()  # one background pass at a time
        if not learned and backend is not None and not busy:
            self._thread = threading.Thread(target=self._model_path, args=(backend, user, reply), name="learn", daemon=True)
            self._thread.start()
        return outcomes

    def wait(self, timeout: float | None = None) -> None:
        if self._thread is not None:
            self._thread.join(timeout)

    def stop(self, timeout: float = 30.0) -> None:
        """Cancel a background model pass and wait for it (before the model is closed or replaced)."""
        view = self._view
        if view is not None:
            view.cancel()
        self.wait(timeout)

    def _model_path(self, backend: Backend, user: Record, reply: Record | None) -> None:
        self._view = backend
        try:
            self.apply(model_ops(backend, user, reply), user, reply)
        except CompanionError as exc:
            log.info("Daytime learning skipped: %s", exc)
        finally:
            self._view = None
            if self.after_model is not None and not getattr(backend, "cancelled", False):
                self.after_model()

    def apply(self, ops: list[Op], user: Record, reply: Record | None) -> list[Outcome]:
        if not ops:
            return []
        records = {user.id: user, **({reply.id: reply} if reply is not None else {})}
        ctx = Context(records=records, today=self.clock().date(), actor=Actor.LEARN)
        outcomes: list[Outcome] = []
        for file in dict.fromkeys(op.file for op in ops):
            outcomes.extend(MemoryWriter(self.store).apply_ops(file, [o for o in ops if o.file == file], ctx))
        return outcomes
