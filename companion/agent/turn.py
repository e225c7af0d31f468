"""The agent: one turn = log the message, apply rules, build the prompt, stream the reply, run tools."""

from __future__ import annotations

import logging
import threading
import time
from contextlib import closing
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Callable, Iterator

from companion.agent import prompt as P
from companion.agent.memory_requests import MemoryRequests
from companion.agent.privacy import PAUSED_NOTE, Privacy
from companion.agent.repetition import RepetitionGuard
from companion.agent.recall import install_recall
from companion.agent.remind import set_reminder
from companion.curate.requests import MemoryRequest, memory_request, reminder_request
from companion.agent.tools import ToolExecutor, tool_message_content
from companion.agent.triggers import TriggerState, parse_triggers
from companion.errors import CompanionError, ModelError
from companion.llm.base import Backend, GenerationOptions, Message
from companion.memory.daylog import DayLog, now_local
from companion.memory.longterm import LongTermStore
from companion.memory.records import Record
from companion.memory.search.tokenize import estimate_tokens
from companion.memory.setup import template_text
from companion.paths import Home
from companion.settings import Settings

log = logging.getLogger(__name__)

ContextProvider = Callable[[str], str | None]
MAX_TOOL_ROUNDS = 3
HISTORY_TAIL = 400


@dataclass
class TurnEvent:
    """What a turn reports as it goes: kind is user | memory | recall | delta | trimmed | tool | done | error.

    `trimmed` carries the whole reply after a loop was cut off; `done` always has the final text."""

    kind: str
    text: str = ""
    record: Record | None = None
    data: dict[str, Any] = field(default_factory=dict)


@dataclass
class TurnStats:
    tokens: int = 0
    seconds: float = 0.0
    first_token_seconds: float | None = None
    cancelled: bool = False

    @property
    def tokens_per_second(self) -> float:
        return self.tokens / self.seconds if self.seconds > 0 else 0.0


class Agent:
    """Owns nothing global: a home, a backend (may be None while loading), settings, a clock."""

    def __init__(
        self,
        home: Home,
        backend: Backend | None,
        settings: Settings | None = None,
        *,
        clock: Callable[[], datetime] = now_local,
        store: LongTermStore | None = None,
        daylog: DayLog | None = None,
    ) -> None:
        self.home = home
        self.backend = backend
        self.settings = settings or Settings()
        self.clock = clock
        self.store = store or LongTermStore(home)
        self.daylog = daylog or DayLog(home.days, clock)
        self.tools = ToolExecutor(self.store)
        self.requests = MemoryRequests(self.store)
        self.triggers = TriggerState(home.state / "soul_state.json", clock)
        self.window = P.HistoryWindow()
        self.privacy = Privacy()
        self.context_providers: list[ContextProvider] = []
        self._pending_notes: list[str] = []
        self._base = template_text("base_instructions.md")
        self._bootstrap = template_text("BOOTSTRAP.md")
        self._busy = threading.Lock()
        self._pending_exchange: tuple[Record, Record | None, bool] | None = None
        self.learner = self._make_learner() if self.settings.memory.auto_learn else None
        self._fit: P.MemoryFit | None = None
        self._fit_key: tuple[object, ...] | None = None
        self.recall = install_recall(self)

    # -- lifecycle -----------------------------------------------------------

    def start(self) -> None:
        """Fire app_start triggers (their actions join the next reply's notes)."""
        self._fire("app_start")

    def cancel(self) -> None:
        if self.backend is not None:
            self.backend.cancel()

    def _make_learner(self) -> Any:
        from companion.agent.learn import DaytimeLearner  # the same validation as the nightly job

        return DaytimeLearner(self.store, self._background_backend, self.clock, after_model=self.prefill_prefix)

    # -- prompt --------------------------------------------------------------

    def in_bootstrap(self) -> bool:
        return not P.has_content(self.store.read("SOUL.md").body)

    def system_prompt(self) -> str:
        """Stable from turn to turn: depends only on the long-term files and the memory budget."""
        fit = self.memory_fit()
        soul = self.store.read("SOUL.md").body
        bootstrap = self._bootstrap if not P.has_content(soul) else None
        bodies = fit.bodies
        return P.build_system_prompt(self._base, bodies["SOUL.md"], bodies["USER.md"], bodies["MEMORY.md"], bootstrap)

    def memory_fit(self) -> P.MemoryFit:
        """The long-term files as they fit their share of memory.prompt_budget_tokens (cached per content)."""
        bodies = {name: self.store.read(name).body for name, _ in P.LONG_TERM_TITLES}
        budget = self.memory_budget()
        key = (tuple(bodies.values()), budget, id(self.backend))
        if self._fit is None or self._fit_key != key:
            self._fit = P.fit_memory(bodies, budget, self.count_tokens)
            self._fit_key = key
        return self._fit

    def memory_budget(self) -> int:
        """memory.prompt_budget_tokens, but never more than a third of what the context window leaves
        after the reply, so a small window still has room for the conversation."""
        budget = self.settings.memory.prompt_budget_tokens
        if self.backend is not None:
            budget = min(budget, max(0, (self.backend.info.n_ctx - self.settings.model.max_reply_tokens) // 3))
        return budget

    def count_tokens(self, text: str) -> int:
        """With the model's tokenizer when one is loaded, else a documented estimate."""
        return self.backend.count_tokens(text) if self.backend is not None else estimate_tokens(text)

    def _history_records(self) -> list[Record]:
        return [r for r in P.conversational(self.daylog.tail(HISTORY_TAIL)) if self.privacy.in_history(r)]

    def build_messages(
        self, final: Message | None, exclude_id: str | None = None, exclude_after: Record | None = None
    ) -> list[Message]:
        """System + history (+ the final user message). The history budget is what the context
        window leaves after the system prompt, the final message and room for the reply."""
        assert self.backend is not None
        system = self.system_prompt()
        # The recall share is reserved whether used or not, so the history budget (and with it the
        # prompt prefix) does not move with the size of each turn's recalled snippets.
        recalled = self.recall.last.tokens if final else 0
        budget = (
            self.backend.info.n_ctx
            - self.settings.model.max_reply_tokens
            - self.count_tokens(system)
            - self.memory_fit().recall_budget
            - max(0, (self.count_tokens(final["content"]) if final else 0) - recalled)
            - 64
        )
        records = [r for r in self._history_records() if r.id != exclude_id]
        if exclude_after is not None:
            cut = next((i for i, r in enumerate(records) if r.timestamp >= exclude_after.timestamp), len(records))
            records = records[:cut]
        chosen = self.window.select(records, lambda r: self.count_tokens(P.clip(r.text)) + 12, budget)
        messages: list[Message] = [{"role": "system", "content": system}]
        messages.extend(P.history_messages(chosen))
        if final:
            messages.append(final)
        return messages

    def prefill(self) -> None:
        """Idle-time work: learn from the last exchange, then evaluate the stable prefix
        (system + history) so the next reply starts without the cold prompt evaluation."""
        self.learn_pending()
        self.prefill_prefix()

    def prefill_prefix(self) -> None:
        if self.backend is None:
            return
        try:
            self.backend.prefill(self.build_messages(None))
        except CompanionError as exc:
            log.warning("Background prefill failed: %s", exc)

    def learn_pending(self) -> None:
        """Run daytime learning on the exchange that just ended (once)."""
        pending, self._pending_exchange = self._pending_exchange, None
        if pending is None or not self.settings.memory.auto_learn:  # the setting may change at run time
            return
        if self.learner is None:
            self.learner = self._make_learner()
        try:
            self.learner.after_turn(*pending)
        except CompanionError as exc:
            log.warning("Daytime learning failed: %s", exc)

    def stop_background(self) -> None:
        """Stop background work that uses the model; call before closing or replacing it."""
        if self.learner is not None:
            self.learner.stop()

    def _background_backend(self) -> Backend | None:
        """A view of the model that yields to chat, when the model is shared that way."""
        shared = getattr(self.backend, "shared", None)
        return shared.background() if shared is not None else None

    # -- a turn --------------------------------------------------------------

    def _fire(self, event: str) -> list[str]:
        try:
            triggers = parse_triggers(self.store.read("SOUL.md").meta)
        except CompanionError as exc:
            log.warning("SOUL.md triggers unreadable: %s", exc)
            return []
        actions = []
        for trigger in self.triggers.fire(triggers, event):
            self.daylog.append("event", f"Trigger fired: {event}", trigger={"type": event, "action": trigger.action})
            actions.append(trigger.action)
        self._pending_notes.extend(actions)
        return actions

    def run_turn(self, text: str) -> Iterator[TurnEvent]:
        """Handle one user message; yields events as the reply streams."""
        text = text.strip()
        if not text:
            return
        with self._busy:
            yield from self._turn(text)

    def _turn(self, text: str) -> Iterator[TurnEvent]:
        previous = _last_user(self._history_records())  # read once, before this message is logged
        first_today = previous is None or previous.day != self.clock().date()
        private = self.privacy.fields()
        user_record = self.daylog.append("user", text, **private)
        self.tools.begin_turn(text)
        yield TurnEvent("user", text=text, record=user_record)
        notes: list[str] = []
        request = memory_request(text) or reminder_request(text, user_record.timestamp)
        if private:
            self.privacy.turns += 1
            if request is not None:
                notes.append(PAUSED_NOTE)
                yield TurnEvent("memory", text="Not saved: memory is paused (\"Don't remember this\" is on).",
                                data={"changed": False})
        elif request is not None:
            if isinstance(request, MemoryRequest):
                outcome = self.requests.apply(request, user_record.id)
            else:
                outcome = set_reminder(self.store, request, user_record)
            notes.append(outcome.note)
            forget = request.text if isinstance(request, MemoryRequest) and request.kind == "forget" else None
            yield TurnEvent("memory", text=outcome.note, data={"changed": outcome.changed, "forget": forget})
        if self.in_bootstrap() and not private:
            for change in self.requests.bootstrap(text, user_record.id, self._user_turns()):
                notes.append(change)
                yield TurnEvent("memory", text=change, data={"changed": True})
        if first_today:
            self._fire("first_message_of_day")
        notes.extend(self._pending_notes)
        self._pending_notes.clear()
        if self.backend is None:
            yield TurnEvent("error", text="The model is not loaded yet. Your message is saved; try again when it is ready.")
            return
        blocks = self._recall(text)
        recalled = [h.where for h in self.recall.last.hits]
        if recalled:
            yield TurnEvent("recall", data={"hits": [h.to_dict() for h in self.recall.last.hits]})
        final = {"role": "user", "content": P.render_final_user(user_record, blocks, notes, previous)}
        try:
            extra = {"recalled": recalled} if recalled else {}
            extra.update(private)
            reply, used_tool = None, False
            for event in self._generate(self.build_messages(final, exclude_id=user_record.id), **extra):
                used_tool = used_tool or event.kind == "tool"
                reply = event.record if event.kind == "done" else reply
                yield event
            if not private:
                self._pending_exchange = (user_record, reply, used_tool)
        except ModelError as exc:
            self._fire("error")
            self.daylog.append("event", f"Reply failed: {exc}")
            yield TurnEvent("error", text=str(exc))

    def regenerate(self) -> Iterator[TurnEvent]:
        """Answer the last user message again; the new reply is logged with `replaces: <old id>`."""
        with self._busy:
            records = self._history_records()
            last_user = _last_user(records)
            if last_user is None:
                return
            old = next((r for r in reversed(records) if r.role == "assistant" and r.seq > last_user.seq and r.day == last_user.day), None)
            if self.backend is None:
                yield TurnEvent("error", text="The model is not loaded yet.")
                return
            previous = _last_user([r for r in records if r.id != last_user.id and r.ts <= last_user.ts])
            final = {"role": "user", "content": P.render_final_user(last_user, self._recall(last_user.text), [], previous)}
            extra: dict[str, Any] = {"replaces": old.id} if old is not None else {}
            if last_user.private:
                extra["private"] = True
            self.tools.begin_turn(last_user.text)
            try:
                yield from self._generate(self.build_messages(final, exclude_id=last_user.id, exclude_after=last_user), **extra)
            except ModelError as exc:
                yield TurnEvent("error", text=str(exc))

    def _user_turns(self) -> int:
        return sum(1 for r in self.daylog.tail(50) if r.role == "user")

    def _recall(self, text: str) -> list[str]:
        blocks = []
        for provider in self.context_providers:
            try:
                block = provider(text)
            except Exception:  # recall is a bonus: never lose the turn over it
                log.exception("context provider failed")
                continue
            if block:
                blocks.append(block)
        return blocks

    def _generate(self, messages: list[Message], **record_extra: Any) -> Iterator[TurnEvent]:
        assert self.backend is not None
        model = self.settings.model
        tools = self.tools.definitions if self.backend.info.supports_tools and not record_extra.get("private") else None
        options = GenerationOptions(max_tokens=model.max_reply_tokens, temperature=model.temperature, tools=tools)
        stats = TurnStats()
        reply = ""
        started = time.perf_counter()
        for _round in range(MAX_TOOL_ROUNDS + 1):
            filter_ = _StampFilter()
            guard = RepetitionGuard()
            calls = []
            reason = None
            with closing(self.backend.stream_chat(messages, options)) as stream:  # type: ignore[type-var]
                for chunk in stream:
                    if chunk.text:
                        stats.tokens += 1
                        if stats.first_token_seconds is None:
                            stats.first_token_seconds = time.perf_counter() - started
                        shown = filter_.feed(chunk.text)
                        if shown:
                            reply += shown
                            yield TurnEvent("delta", text=shown)
                        if guard.feed(chunk.text):
                            reason = "repetition"
                            break
                    calls.extend(chunk.tool_calls)
                    reason = chunk.finish_reason or reason
            rest = filter_.flush()
            if rest:
                reply += rest
                yield TurnEvent("delta", text=rest)
            if reason != "repetition" and guard.feed("\n"):  # the loop's last line had no newline yet
                reason = "repetition"
            if reason == "cancelled":
                stats.cancelled = True
                break
            if reason == "repetition":  # a small model looping: keep the reply without the loop
                reply = P.strip_stamp_echo(guard.trimmed()) if not calls else reply
                yield TurnEvent("trimmed", text=reply)
                break
            if not calls or _round == MAX_TOOL_ROUNDS:
                break
            added, events = self._run_tools(calls)
            messages = messages + added
            yield from events
        stats.seconds = time.perf_counter() - started
        extra: dict[str, Any] = {"model": self.backend.info.name, "tokens": stats.tokens, **record_extra}
        if stats.cancelled:
            extra["cancelled"] = True
        record = self.daylog.append("assistant", reply.strip(), **extra)
        yield TurnEvent("done", text=reply.strip(), record=record, data={"stats": stats})

    def _run_tools(self, calls: list[Any]) -> tuple[list[Message], list[TurnEvent]]:
        events: list[TurnEvent] = []
        added: list[Message] = [
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [
                    {"id": c.id or f"call_{i}", "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
                    for i, c in enumerate(calls)
                ],
            }
        ]
        for index, call in enumerate(calls):
            result = self.tools.run(call)
            record = self.daylog.append("tool", result.output[:2000], tool=result.to_dict(), **self.privacy.fields())
            events.append(TurnEvent("tool", text=result.output, record=record, data={"result": result}))
            added.append({"role": "tool", "tool_call_id": call.id or f"call_{index}", "content": tool_message_content(result)})
        return added, events


def _last_user(records: list[Record]) -> Record | None:
    return next((r for r in reversed(records) if r.role == "user"), None)


class _StampFilter:
    """Holds back the first characters of a reply until it is clear they are not a copied time stamp."""

    def __init__(self) -> None:
        self._buffer = ""
        self._decided = False

    def feed(self, text: str) -> str:
        if self._decided:
            return text
        self._buffer += text
        stripped = self._buffer.lstrip()
        if stripped and not stripped.startswith("["):
            return self._release()
        if "]" in self._buffer or len(self._buffer) > 40:
            return self._release()
        return ""

    def _release(self) -> str:
        self._decided = True
        out = P.strip_stamp_echo(self._buffer)
        self._buffer = ""
        return out

    def flush(self) -> str:
        return "" if self._decided else self._release()
