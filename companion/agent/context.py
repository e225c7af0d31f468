"""What one turn knows, read once: the recent history, the long-term files as they fit, the budgets."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import date, datetime
from typing import Callable

from companion.agent import prompt as P
from companion.errors import FrontmatterError
from companion.llm.base import Message
from companion.memory.daylog import DayLog
from companion.memory.document import Document, body_only
from companion.memory.longterm import LongTermStore
from companion.memory.records import Record
from companion.memory.setup import template_text
from companion.settings import Settings

log = logging.getLogger(__name__)
HISTORY_TAIL = 400  # records read from the day logs for the history (the window picks from these)
SLACK_TOKENS = 64  # role markers and the <context> wrapper
LONG_TERM_FILES = tuple(name for name, _ in P.LONG_TERM_TITLES)


@dataclass(frozen=True)
class TurnContext:
    """One turn's view of memory: the prompt builder and recall both read it, nothing reads the files again."""

    now: datetime
    records: list[Record]  # the conversational tail of the day logs, without the message being answered
    documents: dict[str, Document]  # SOUL.md, USER.md, MEMORY.md as read for this turn
    fit: P.MemoryFit  # the long-term bodies as they fit their share of the memory budget
    system: str  # the system prompt built from them
    history: list[Record]  # the records the prompt's history holds, oldest first
    count: Callable[[str], int]  # the model's tokenizer (or the estimate without a model)
    message: Record | None = None  # the user message being answered (its own turn, not a memory)
    replaced: frozenset[str] = frozenset()  # replies a regenerated answer replaces (not memories either)

    @property
    def today(self) -> date:
        return self.now.date()

    @property
    def window_start(self) -> str | None:
        return self.history[0].id if self.history else None

    @property
    def in_prompt(self) -> frozenset[str]:
        """Ids recall leaves out: the history the prompt shows, the message itself, replies being replaced."""
        ids = {r.id for r in self.history} | self.replaced
        if self.message is not None:
            ids.add(self.message.id)
        return frozenset(ids)

    @property
    def shown(self) -> str:
        """The long-term text the system prompt shows (recall leaves out entries already there)."""
        return "\n".join(self.fit.bodies.values())

    @property
    def recall_budget(self) -> int:
        return self.fit.recall_budget

    @property
    def in_bootstrap(self) -> bool:
        return not P.has_content(self.documents["SOUL.md"].body)

    def messages(self, final: Message | None) -> list[Message]:
        """The prompt: system, history, then the new user message (if any)."""
        messages: list[Message] = [{"role": "system", "content": self.system}]
        messages.extend(P.history_messages(self.history))
        if final is not None:
            messages.append(final)
        return messages


class ContextBuilder:
    """Reads the day logs and the long-term files for a turn and fits them into the context window."""

    def __init__(
        self, store: LongTermStore, daylog: DayLog, settings: Settings, *, include: Callable[[Record], bool] | None = None
    ) -> None:
        self.store = store
        self.daylog = daylog
        self.settings = settings
        self.include = include or (lambda record: True)  # e.g. private turns stay out of later prompts
        self.window = P.HistoryWindow()
        self._base = template_text("base_instructions.md")
        self._bootstrap = template_text("BOOTSTRAP.md")
        self._fit: P.MemoryFit | None = None
        self._fit_key: tuple[object, ...] | None = None

    def history_records(self) -> list[Record]:
        """The one day-log read of a turn."""
        return [r for r in P.conversational(self.daylog.tail(HISTORY_TAIL)) if self.include(r)]

    def documents(self) -> dict[str, Document]:
        """The one read of each long-term file in a turn; a file with broken frontmatter still gives
        its body, so chat keeps working until the user fixes or restores it."""
        return {name: self.document(name) for name in LONG_TERM_FILES}

    def document(self, name: str) -> Document:
        """One long-term file as chat reads it (its body alone when its frontmatter is broken)."""
        try:
            return self.store.read(name)
        except FrontmatterError as exc:
            log.warning("%s: %s (its body is used without its settings)", name, exc)
            return body_only(name, self.store.read_raw(name))

    def memory_budget(self, n_ctx: int | None) -> int:
        """memory.prompt_budget_tokens, but never more than a third of what the context window leaves
        after the reply, so a small window still has room for the conversation."""
        budget = self.settings.memory.prompt_budget_tokens
        if n_ctx is not None:
            budget = min(budget, max(0, (n_ctx - self.settings.model.max_reply_tokens) // 3))
        return budget

    def fit(self, documents: dict[str, Document], n_ctx: int | None, count: Callable[[str], int], model: object) -> P.MemoryFit:
        """The long-term files as they fit their share of the budget (cached per content, budget and model)."""
        bodies = {name: documents[name].body for name in LONG_TERM_FILES}
        budget = self.memory_budget(n_ctx)
        key = (tuple(bodies.values()), budget, id(model))
        if self._fit is None or self._fit_key != key:
            self._fit = P.fit_memory(bodies, budget, count)
            self._fit_key = key
        return self._fit

    def build(
        self,
        now: datetime,
        records: list[Record],
        documents: dict[str, Document],
        *,
        n_ctx: int | None,
        count: Callable[[str], int],
        model: object = None,
        reserve: int = 0,
        message: Record | None = None,
        replaced: frozenset[str] = frozenset(),
    ) -> TurnContext:
        """Fit memory and history into the window. `reserve`: tokens of the new user message (without
        recalled snippets: their share is kept free whether used or not, so the history budget, and
        with it the prompt prefix, does not move with each turn's recall)."""
        fit = self.fit(documents, n_ctx, count, model)
        soul = documents["SOUL.md"].body
        system = P.build_system_prompt(
            self._base, fit.bodies["SOUL.md"], fit.bodies["USER.md"], fit.bodies["MEMORY.md"],
            self._bootstrap if not P.has_content(soul) else None,
        )
        history: list[Record] = []
        if n_ctx is not None:
            budget = (
                n_ctx - self.settings.model.max_reply_tokens - count(system) - fit.recall_budget - reserve - SLACK_TOKENS
            )
            history = self.window.select(records, lambda r: count(P.clip(r.text)) + 12, budget)
        return TurnContext(now, records, documents, fit, system, history, count, message, replaced)
