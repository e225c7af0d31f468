"""The agent: one turn = log the message, apply rules, build the prompt, stream the reply, run tools."""

from __future__ import annotations

import logging
import threading
import time
from contextlib import closing
from datetime import date, datetime
from typing import Any, Callable, Iterator

from companion.agent import prompt as P
from companion.agent.context import ContextBuilder, TurnContext
from companion.agent.events import (
    Delta, Done, Failed, MemoryNote, Recalled, ToolRan, Trimmed, TurnEvent, TurnStats, UserLogged,
)
from companion.agent.privacy import PAUSED_NOTE, Privacy, paused_notice
from companion.llm.embed import Embedder
from companion.agent.recall import AUTO, MEMORY_SEARCH_TOOL, Packed, Recall, budget_for_speed
from companion.agent.repetition import RepetitionGuard
from companion.curate.policy import Actor
from companion.curate.requests import MemoryRequests, parse_request, speaks_chinese
from companion.agent.tools import ToolExecutor, tool_message_content
from companion.agent.triggers import Trigger, TriggerState, parse_triggers
from companion.errors import CompanionError, ModelError
from companion.llm.base import Backend, GenerationOptions, Message, ToolCall, estimate_tokens
from companion.llm.toolparse import prompt_inputs
from companion.memory.daylog import DayLog, now_local
from companion.memory.lang import fold
from companion.memory.document import Document
from companion.memory.longterm import LongTermStore
from companion.memory.records import Record
from companion.paths import Home
from companion.settings import Settings

log = logging.getLogger(__name__)

MAX_TOOL_ROUNDS = 3


class Agent:
    """Owns nothing global: a home, a backend (may be None while loading), settings, a clock.

    `background` hands out a view of the model that yields to chat (daytime learning uses it);
    without one, learning uses its rules only. The chat session (`agent/session.py`) supplies both."""

    def __init__(
        self,
        home: Home,
        backend: Backend | None,
        settings: Settings | None = None,
        *,
        clock: Callable[[], datetime] = now_local,
        store: LongTermStore | None = None,
        daylog: DayLog | None = None,
        background: Callable[[], Backend | None] | None = None,
        embedder: Embedder | None | object = AUTO,
        start_recall: bool = True,
    ) -> None:
        self.home = home
        self.backend = backend
        self.settings = settings or Settings()
        self.clock = clock
        self.store = store or LongTermStore(home)
        self.daylog = daylog or DayLog(home.days, clock)
        self.tools = ToolExecutor(self.store, Actor.TOOL)
        self.requests = MemoryRequests(self.store)
        self.triggers = TriggerState(home.state / "soul_state.json", clock)
        self.privacy = Privacy()
        self.context = ContextBuilder(self.store, self.daylog, self.settings, include=self.privacy.in_history)
        self._background = background or (lambda: None)
        self._pending_notes: list[str] = []
        self._busy = threading.Lock()
        self._pending_exchange: tuple[Record, Record | None, bool] | None = None
        self._ahead: str | None = None  # the draft whose prompt was read while the user typed, until the next turn
        self.learner = self._make_learner() if self.settings.memory.auto_learn else None
        self.recall = Recall(home, self.store, embedder=embedder, busy=self._busy.locked, start=start_recall)
        self.tools.register(MEMORY_SEARCH_TOOL, lambda args: self.recall.tool(args, self.clock().date(), self.count_tokens))

    # -- lifecycle -----------------------------------------------------------

    def start(self) -> None:
        """Fire app_start triggers (their actions join the next reply's notes)."""
        self._fire("app_start")

    def cancel(self) -> None:
        if self.backend is not None:
            self.backend.cancel()

    def _make_learner(self) -> Any:
        from companion.agent.learn import DaytimeLearner  # the same validation as the nightly job

        return DaytimeLearner(self.store, self._background, self.clock, after_model=self.warm)

    # -- prompt --------------------------------------------------------------

    def in_bootstrap(self) -> bool:
        return not P.has_content(self.context.document("SOUL.md").body)

    def turn_context(
        self,
        records: list[Record] | None = None,
        documents: dict[str, Document] | None = None,
        reserve: int = 0,
        message: Record | None = None,
        replaced: frozenset[str] = frozenset(),
    ) -> TurnContext:
        """The context of a turn; reads the day logs and long-term files only for what is not handed in."""
        backend = self.backend
        return self.context.build(
            self.clock(),
            self.context.history_records() if records is None else records,
            self.context.documents() if documents is None else documents,
            n_ctx=backend.info.n_ctx if backend is not None else None,
            count=self.count_tokens,
            model=backend,
            reserve=reserve,
            message=message,
            replaced=replaced,
        )

    def system_prompt(self) -> str:
        """Stable from turn to turn: depends only on the long-term files and the memory budget."""
        return self.memory_context().system

    def memory_fit(self) -> P.MemoryFit:
        """The long-term files as they fit their share of memory.prompt_budget_tokens."""
        return self.memory_context().fit

    def memory_context(self) -> TurnContext:
        """A context with the long-term files and no history (what recall sees for a question out of the blue)."""
        return self.turn_context(records=[])

    def count_tokens(self, text: str) -> int:
        """With the model's tokenizer when one is loaded, else a documented estimate."""
        backend = self.backend
        return backend.count_tokens(text) if backend is not None else estimate_tokens(text)

    def warm(self) -> None:
        """Evaluate the stable prefix (system + history) so the next reply starts without the cold
        prompt evaluation; with a draft read ahead, its whole prompt again, on the memory as it is now."""
        backend = self.backend
        if backend is None:
            return
        ahead, self._ahead = self._ahead, None
        if ahead is not None and self.read_ahead(ahead):  # the draft's prompt, on today's memory
            return
        try:
            backend.prefill(self.turn_context().messages(None))
        except CompanionError as exc:
            log.warning("Background prefill failed: %s", exc)

    def read_ahead(self, draft: str) -> bool:
        """While the user types: recall for the draft and read the prompt it makes (memories first, then
        the draft), so that sending it costs only what changed since. Writes nothing, fires nothing;
        False when there was nothing to do (no model, a turn running, the same draft read already)."""
        text = draft.strip()
        backend = self.backend
        if not text or backend is None or self._ahead == text:
            return False
        if not self._busy.acquire(blocking=False):  # a reply is being written: its turn comes first
            return False
        try:
            records = self.context.history_records()
            documents = self.context.documents()
            previous = _last_user(records)
            now = self.clock()
            record = Record(f"{now.date().isoformat()}#0", now.isoformat(timespec="milliseconds"), "user", text)
            notes = list(self._pending_notes)
            if _opens_day(previous, now.date()):  # the notes the day's first message will fire
                notes.extend(t.action for t in self.triggers.due(self._triggers(documents["SOUL.md"]), "first_message_of_day"))
            plain = P.render_final_user(record, [], notes, previous)
            ctx = self.turn_context(records, documents, reserve=self.count_tokens(plain), message=record)
            packed = self._recall(text, ctx, self._recall_budget(ctx), draft=True)
            final: Message = {"role": "user", "content": P.render_final_user(record, _blocks(packed), notes, previous)}
            self._ahead = text
            backend.prefill(ctx.messages(final))
            return True
        except CompanionError as exc:
            log.warning("Reading ahead failed: %s", exc)
            return False
        finally:
            self._busy.release()

    def learn_after_turn(self) -> None:
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

    # -- a turn --------------------------------------------------------------

    def _triggers(self, soul: Document | None) -> list[Trigger]:
        try:
            return parse_triggers((soul or self.store.read("SOUL.md")).meta)
        except CompanionError as exc:
            log.warning("SOUL.md triggers unreadable: %s", exc)
            return []

    def _fire(self, event: str, soul: Document | None = None) -> list[str]:
        triggers = self._triggers(soul)
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
        self._ahead = None
        records = self.context.history_records()  # the turn's one day-log read, before this message is logged
        previous = _last_user(records)
        first_today = _opens_day(previous, self.clock().date())
        private = self.privacy.fields()
        self.recall.before_message()  # a draft recalled on memory that changed since is recalled again
        user_record = self.daylog.append("user", text, **private)
        self.tools.begin_turn(text)
        yield UserLogged(text, user_record)
        notes: list[str] = []
        changed = False
        request = parse_request(text, user_record.timestamp)
        waiting = self.requests.pending[0] if self.requests.pending else None  # what a pending forget named
        answer = None if private or request is not None else self.requests.confirm(text)  # "yes" to a forget
        if answer is not None:
            notes.append(answer.note)
            changed = answer.changed
            yield MemoryNote(answer.note, changed=answer.changed, forget=waiting if answer.changed else None)
        if private:
            self.privacy.turns += 1
            if request is not None:
                notes.append(PAUSED_NOTE)
                yield MemoryNote(paused_notice(speaks_chinese(self.store, text)), changed=False)
        elif request is not None:
            outcome = self.requests.apply(request, user_record)
            notes.append(outcome.note)
            changed = outcome.changed
            yield MemoryNote(outcome.note, changed=outcome.changed, forget=request.forgets)
        documents = self.context.documents()
        if not P.has_content(documents["SOUL.md"].body) and not private:
            for change in self.requests.bootstrap(text, user_record.id, _user_turns(records)):
                notes.append(change)
                changed = True
                yield MemoryNote(change, changed=True)
        if changed:
            documents = self.context.documents()
        if first_today:
            self._fire("first_message_of_day", documents["SOUL.md"])
        notes.extend(self._pending_notes)
        self._pending_notes.clear()
        if self.backend is None:
            yield Failed("The model is not loaded yet. Your message is saved; try again when it is ready.")
            return
        plain = P.render_final_user(user_record, [], notes, previous)
        ctx = self.turn_context(records, documents, reserve=self.count_tokens(plain), message=user_record)
        packed = self._recall(text, ctx, self._recall_budget(ctx))
        hits = tuple(h.to_dict() for h in packed.hits)
        if hits:
            yield Recalled(hits=hits)
        final = {"role": "user", "content": P.render_final_user(user_record, _blocks(packed), notes, previous)}
        try:
            reply, used_tool = None, False
            extra: dict[str, Any] = {"recalled": [h.where for h in packed.hits]} if hits else {}
            extra.update(private)
            for event in self._generate(ctx.messages(final), hits, **extra):
                used_tool = used_tool or isinstance(event, ToolRan)
                reply = event.record if isinstance(event, Done) else reply
                yield event
            if not private:
                self._pending_exchange = (user_record, reply, used_tool)
        except ModelError as exc:
            self._fire("error", documents["SOUL.md"])
            self.daylog.append("event", f"Reply failed: {exc}")
            yield Failed(str(exc))

    def regenerate(self) -> Iterator[TurnEvent]:
        """Answer the last user message again; the new reply is logged with `replaces: <old id>`."""
        with self._busy:
            self._ahead = None  # read on the history this replaces
            records = self.context.history_records()
            last_user = _last_user(records)
            if last_user is None:
                return
            old = next((r for r in reversed(records) if r.role == "assistant" and r.day == last_user.day
                        and r.device == last_user.device and r.seq > last_user.seq), None)
            if self.backend is None:
                yield Failed("The model is not loaded yet.")
                return
            before = [r for r in records if r.id != last_user.id and r.timestamp < last_user.timestamp]
            previous = _last_user([r for r in records if r.id != last_user.id and r.ts <= last_user.ts])
            plain = P.render_final_user(last_user, [], [], previous)
            after = frozenset(r.id for r in records if r.id != last_user.id and r.timestamp >= last_user.timestamp)
            ctx = self.turn_context(before, reserve=self.count_tokens(plain), message=last_user, replaced=after)
            packed = self._recall(last_user.text, ctx, self._recall_budget(ctx))
            final = {"role": "user", "content": P.render_final_user(last_user, _blocks(packed), [], previous)}
            extra: dict[str, Any] = {"replaces": old.id} if old is not None else {}
            if last_user.private:
                extra["private"] = True
            self.tools.begin_turn(last_user.text)
            try:
                yield from self._generate(ctx.messages(final), tuple(h.to_dict() for h in packed.hits), **extra)
            except ModelError as exc:
                yield Failed(str(exc))

    def _recall_budget(self, ctx: TurnContext) -> int:
        speed = self.backend.prompt_speed() if self.backend is not None else None
        return budget_for_speed(ctx.recall_budget, speed, self.settings.memory.recall_seconds)

    def _recall(self, text: str, ctx: TurnContext, budget: int, draft: bool = False) -> Packed:
        try:
            return self.recall.for_draft(text, ctx, budget) if draft else self.recall.for_turn(text, ctx, budget)
        except Exception:  # recall is a bonus: never lose the turn over it
            log.exception("recall failed")
            return Packed(None)

    def _generate(
        self, messages: list[Message], hits: tuple[dict[str, Any], ...] = (), **record_extra: Any
    ) -> Iterator[TurnEvent]:
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
                            yield Delta(shown)
                        if guard.feed(chunk.text):
                            reason = "repetition"
                            break
                    calls.extend(chunk.tool_calls)
                    reason = chunk.finish_reason or reason
            rest = filter_.flush()
            if rest:
                reply += rest
                yield Delta(rest)
            if reason != "repetition" and guard.feed("\n"):  # the loop's last line had no newline yet
                reason = "repetition"
            if reason == "cancelled":
                stats.cancelled = True
                break
            if reason == "repetition":  # a small model looping: keep the reply without the loop
                reply = P.strip_stamp_echo(guard.trimmed()) if not calls else reply
                yield Trimmed(reply)
                break
            calls = _own_calls(calls, tools, messages)
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
        yield Done(reply.strip(), record, stats=stats, recalled=hits)

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
            events.append(ToolRan(result.output, record, result=result))
            added.append({"role": "tool", "tool_call_id": call.id or f"call_{index}", "content": tool_message_content(result)})
        return added, events


def _own_calls(calls: list[ToolCall], tools: list[dict[str, Any]] | None, messages: list[Message]) -> list[ToolCall]:
    """The calls the model itself produced: to a tool it was offered, and spelled out nowhere in its input.

    Backends check this too; here it holds for every backend, whatever its server sent."""
    if not calls:
        return []
    offered = {t["function"]["name"] for t in tools or []}
    quoted = prompt_inputs(messages, fold)  # widths and case folded as everywhere else we compare text
    own = [c for c in calls if c.name in offered and not quoted.contains(c)]
    if len(own) < len(calls):
        log.warning("Ignored %d tool call(s) that were not offered or that the input spelled out", len(calls) - len(own))
    return own


def _opens_day(previous: Record | None, today: date) -> bool:
    """A message after `previous` is the day's first."""
    return previous is None or previous.day != today


def _last_user(records: list[Record]) -> Record | None:
    return next((r for r in reversed(records) if r.role == "user"), None)


def _user_turns(records: list[Record]) -> int:
    """User messages among the last 50 records, the one being answered included."""
    return 1 + sum(1 for r in records[-49:] if r.role == "user")


def _blocks(packed: Packed) -> list[str]:
    return [packed.block] if packed.block else []


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
