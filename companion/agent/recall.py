"""Automatic recall: the best memory snippets for each message, within the memory budget; the memory_search tool."""

from __future__ import annotations

import json
import logging
import os
import re
import sys
import threading
import time
import weakref
from dataclasses import dataclass, field, replace
from datetime import date
from typing import Any, Callable

from companion.agent.context import TurnContext
from companion.agent.excerpt import best_excerpt, excerpt
from companion.curate.names import name_in
from companion.curate.when import around_day, query_time, spell_out, spoken
from companion.errors import CompanionError, ToolError
from companion.llm.catalog import EMBEDDERS
from companion.llm.embed import BuiltinEmbedder, Embedder, load_embedder
from companion.memory.lexicon import lexicon
from companion.memory.longterm import LongTermStore
from companion.memory.search import Hit, RankSettings, SearchIndex, SearchQuery, search
from companion.memory.search.semantic import SemanticChannel
from companion.memory.search.tokenize import query_terms
from companion.memory.search.vectors import VectorStore, store_path
from companion.paths import Home

log = logging.getLogger(__name__)

HEADER = "Memories that may help (dated; older ones may be out of date):"
MAX_SNIPPET_TOKENS = 50  # a long turn shows the sentences that answer: more memories fit, Chinese ones above all
LONG_SNIPPET_SHARE = 8  # ...but the best hits may show up to this fraction of the room left
MIN_LINE_TOKENS = 16  # less room than this left in the budget: no line fits, stop trying
SHORT_LINE_TOKENS = 20  # a short remembered turn, as a line
MIN_RECALL_TOKENS = 48  # the header and the best snippet, however slow the machine
LINE_PREFIX_TOKENS = 12  # about what "- [13 September 2023, user] " costs
STARTUP_WAIT_S = 5.0
MIN_RELEVANCE = 0.05  # of the best match: weaker matches are noise, not memories
EMBED_BATCH = 16  # texts embedded at a time in the background
EMBED_DUTY = 0.5  # the background embedder works at most this share of the time
SWITCH_SHARE = 0.98  # a new embedder takes over once it has embedded this share of the memory
PRUNE_EVERY_S = 600.0
DRAFT_KEPT_S = 120.0  # a draft's recall older than this is done again when it is sent (embedding went on)
AUTO = object()  # Recall's default embedder: the strongest one present, loaded in the background
_TRIVIAL = re.compile(
    r"^(ok(ay)?|k|kk|thanks?( you)?( so much)?|thx|ty|cool|nice|great|good|yes|yeah|yep|no|nope|sure|fine|hi|"
    r"hello|hey|bye|good ?night|good ?morning|lol|haha+|hm+|wow|好的?|嗯+|哦+|谢谢(你)?|哈+|好吧|是的?|对|不|再见|晚安|早安?)"
    r"[\s!.?,。！？～~]*$",
    re.I,
)

MEMORY_SEARCH_TOOL: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "memory_search",
        "description": "Search everything remembered (past conversations, memory files, digests). "
        "Returns snippets with file, record id or line, date and score.",
        "parameters": {
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": "What to look for, in the user's words."},
                "k": {"type": "integer", "minimum": 1, "maximum": 20, "description": "How many snippets (default 5)."},
            },
            "required": ["query"],
        },
    },
}


def is_trivial(text: str) -> bool:
    """Acknowledgements and greetings need no recall."""
    stripped = text.strip()
    return not stripped or bool(_TRIVIAL.match(stripped)) or not query_terms(stripped)


def snippet_line(hit: Hit, excerpt: str) -> str:
    """One dated line of the memory block; dates written out ('8 May 2023') as a reader would."""
    item = hit.item
    day = _spoken_day(item.day)
    if item.kind == "turn":
        who = "user" if item.role == "user" else "you"
        return f"- [{day}, {who}] {excerpt}"
    if item.kind == "digest":
        return f"- [{day} summary] {excerpt}"
    where = item.source + (f", {item.context}" if item.context else "")
    return f"- [{where}] {excerpt}"


def _spoken_day(day: str | None) -> str:
    try:
        return spoken(date.fromisoformat(day or ""))
    except ValueError:
        return day or "undated"


def hit_text(hit: Hit) -> str:
    """A turn's text with its relative dates spelled out against the day it was said."""
    item = hit.item
    if item.kind != "turn" or not item.day:
        return item.text
    try:
        return spell_out(item.text, date.fromisoformat(item.day))
    except ValueError:
        return item.text


@dataclass
class Packed:
    block: str | None
    hits: list[Hit] = field(default_factory=list)
    tokens: int = 0


def pack(hits: list[Hit], budget: int, count: Callable[[str], int]) -> Packed:
    """Snippets in rank order while they fit `budget` tokens; what does not fit (the least relevant) is left out.

    Each line is tokenized once (the block's size is the sum of its lines and newlines); the
    finished block is counted once more, and in the rare case a tokenizer joins lines differently
    the last lines go until it fits."""
    header = count(HEADER)
    if not hits or budget <= header + 8:
        return Packed(None)
    lines = [HEADER]
    chosen: list[Hit] = []
    used = header
    for hit in hits:
        if budget - used < MIN_LINE_TOKENS:
            break
        raw = hit_text(hit)
        text = " ".join(raw.split())
        # the best hits may show more of a long turn while much of the budget is left
        room = min(max(MAX_SNIPPET_TOKENS, (budget - used) // LONG_SNIPPET_SHARE), budget - used - LINE_PREFIX_TOKENS)
        line = snippet_line(hit, text)
        cost = count(line) + 1  # and the newline before it
        if cost > room + LINE_PREFIX_TOKENS:  # a long turn: its matching sentences
            line = snippet_line(hit, excerpt(raw, hit.terms, count, room))
            cost = count(line) + 1
        if used + cost <= budget:
            lines.append(line)
            chosen.append(hit)
            used += cost
    while chosen:
        block = "\n".join(lines)
        total = count(block)
        if total <= budget:
            return Packed(block, chosen, total)
        lines.pop()
        chosen.pop()
    return Packed(None)


def budget_for_speed(budget: int, tokens_per_second: float | None, seconds: float) -> int:
    """The recall block's size on this machine: what the model reads in about `seconds` before its first
    word, within `budget`, and never less than room for the best snippet. Unknown speed: the whole budget."""
    if tokens_per_second is None or seconds <= 0:
        return budget
    return min(budget, max(MIN_RECALL_TOKENS, int(tokens_per_second * seconds)))


def candidates_for(budget: int, least: int) -> int:
    """Enough candidates to fill `budget` with short lines (a bigger budget is not left half empty)."""
    return max(least, budget // SHORT_LINE_TOKENS)


def names_in(bodies: dict[str, str]) -> dict[str, str]:
    """Role -> name, from USER.md and SOUL.md: a question naming someone is about their turns."""
    found = {"user": name_in(bodies.get("USER.md", "")), "assistant": name_in(bodies.get("SOUL.md", ""))}
    return {role: name for role, name in found.items() if name}


@dataclass(frozen=True)
class _Draft:
    key: tuple[object, ...]
    version: tuple[int, int, int]  # the search index's, once it had caught up for the draft
    until: float  # monotonic time after which the draft's recall is done again
    packed: Packed


class Recall:
    """Keeps the index and its vectors in step with the memory folder and recalls for every turn.

    It reads nothing a turn already read: what the prompt shows (history ids, long-term text),
    the budget and the date come in with the turn's context. The meaning channel is a bonus:
    until an embedder is loaded, or where none can run, recall ranks by words alone."""

    def __init__(
        self,
        home: Home,
        store: LongTermStore,
        index: SearchIndex | None = None,
        settings: RankSettings | None = None,
        *,
        embedder: Embedder | None | object = AUTO,
        busy: Callable[[], bool] = lambda: False,
        start: bool = True,
    ) -> None:
        """start=False: the start-up scan and the embedder wait for `start()` (the app calls it once its
        window is on screen); a recall asked for before that starts them itself."""
        self.home = home
        self.store = store
        self.index = index or SearchIndex(home)
        self.settings = settings or RankSettings()
        self.k = 40  # candidates; the budget decides how many are shown
        self.ready = threading.Event()
        self.embedded = threading.Event()  # set whenever the vectors have caught up with the index
        self.busy = busy  # a turn is running: the background embedder waits
        self.semantic: SemanticChannel | None = None
        self.semantic_problem = "" if embedder is not None else "semantic recall is off"
        self._next: SemanticChannel | None = None  # a new embedder filling its store before it takes over
        self._embedder_arg = embedder
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._quiet_until = 0.0
        self._draft: _Draft | None = None  # the recall of what the user is typing
        store.subscribe(self._on_memory_change)
        weakref.finalize(self, self._finish, self._stop, self._wake, self.index)
        self._thread = threading.Thread(target=self._startup, name="search-index", daemon=True)
        self._started = threading.Lock()
        if start:
            self.start()

    @property
    def started(self) -> bool:
        """The start-up scan has been started (it may still be running)."""
        return self._thread.ident is not None

    def start(self) -> None:
        """Catch up with the memory folder and load the embedder, in the background (once)."""
        with self._started:
            if self._thread.ident is None and not self._stop.is_set():
                self._thread.start()

    @staticmethod
    def _finish(stop: threading.Event, wake: threading.Event, index: SearchIndex) -> None:
        stop.set()
        wake.set()
        index.close()

    def _startup(self) -> None:
        """Catch up with what changed while the app was closed (including edits made outside it), then
        load the embedder and embed in the background, at low priority, as records arrive."""
        try:
            self.index.sync()
        except Exception:  # recall is a bonus: a broken index must never stop the app
            log.exception("Search index start-up scan failed")
        finally:
            self.ready.set()
        lexicon()  # the Chinese-English dictionary, read now rather than on the first question
        if self._embedder_arg is None or self._stop.is_set():
            self.embedded.set()
            return
        _lower_thread_priority()
        if self._embedder_arg is AUTO:
            choice = load_embedder(self.home.models)
            embedder, self.semantic_problem = choice.embedder, choice.problem
        else:
            embedder = self._embedder_arg  # type: ignore[assignment]
        if embedder is None:
            log.info("Recall by meaning is off: %s", self.semantic_problem)
            self.embedded.set()
            return
        try:
            self._take(embedder)
        except CompanionError as exc:
            self.semantic_problem = str(exc)
            self.embedded.set()
            return
        self._embed_loop()

    def _take(self, embedder: Embedder) -> None:
        """Use `embedder`; a new one whose store is still filling waits behind the built-in one's vectors."""
        channel = self._channel(embedder)
        builtin = store_path(self.home.state, BuiltinEmbedder.id)
        if embedder.id != BuiltinEmbedder.id and builtin.exists() and channel.progress().share < SWITCH_SHARE:
            try:
                self.semantic = self._channel(BuiltinEmbedder())
                self._next = channel
                return
            except CompanionError:
                pass
        self.semantic = channel

    def _channel(self, embedder: Embedder) -> SemanticChannel:
        store = VectorStore(store_path(self.home.state, embedder.id), embedder.id, embedder.dim)
        return channel_of(self.index, store, embedder)

    def _embed_loop(self) -> None:
        last_prune = 0.0
        while not self._stop.is_set():
            try:
                if time.monotonic() - last_prune > PRUNE_EVERY_S:
                    for channel in (self.semantic, self._next):
                        if channel is not None:
                            channel.prune()
                    last_prune = time.monotonic()
                    self._look_for_stronger()
                worked = self._embed_some()
            except Exception:  # a failed batch is retried later; recall goes on by words meanwhile
                log.exception("Background embedding failed")
                worked = 0.0
                self._wake.wait(30.0)
            if worked is None:  # a turn is running: look again shortly
                self._stop.wait(0.5)
                continue
            if worked:
                time.sleep(worked * (1 - EMBED_DUTY) / EMBED_DUTY)  # leave the cores to the chat
                continue
            self.embedded.set()
            self._wake.wait(60.0)
            self._wake.clear()

    def _embed_some(self) -> float | None:
        """Embed one batch of what has no vector yet (the new embedder's first); seconds spent (0: nothing left,
        None: paused for a turn)."""
        if self._paused():
            return None
        self.index.refresh()
        channel = self._next or self.semantic
        if channel is None:
            return 0.0
        started = time.monotonic()
        done = channel.catch_up(batch=EMBED_BATCH, limit=EMBED_BATCH, pause=self._paused)
        if not done and self._paused():
            return None
        if self._next is not None and not done:  # the new embedder has read everything
            self._switch()
        if not done:
            return 0.0
        self.embedded.clear()
        return max(time.monotonic() - started, 0.001)

    def _paused(self) -> bool:
        return self._stop.is_set() or self.busy() or time.monotonic() < self._quiet_until

    def _switch(self) -> None:
        """The new embedder's vectors are there: recall uses them, the old store is deleted."""
        old, self.semantic, self._next = self.semantic, self._next, None
        if old is not None and self.semantic is not None and old.store.path != self.semantic.store.path:
            old.store.delete_file()
        log.info("Recall by meaning now uses %s", self.semantic.label if self.semantic else "nothing")

    def _look_for_stronger(self) -> None:
        """A stronger embedder downloaded while the app runs is taken up without a restart."""
        if self._embedder_arg is not AUTO or self._next is not None:
            return
        current = self.semantic.store.embedder_id if self.semantic is not None else ""
        for model in EMBEDDERS:
            if model.key == current:
                return  # the strongest present is already in use
            if (self.home.models / model.filename).is_file():
                choice = load_embedder(self.home.models, (model,))
                if choice.embedder is not None and choice.embedder.id == model.key:
                    self.use_embedder(choice.embedder)
                return

    def use_embedder(self, embedder: Embedder) -> None:
        """Change the embedder (a stronger one was downloaded): it embeds the memory in the background and
        takes over when done; recall keeps using the current one meanwhile."""
        channel = self._channel(embedder)
        if self.semantic is None:
            self.semantic = channel
        else:
            self._next = channel
        self.semantic_problem = ""
        self.embedded.clear()
        self._wake.set()

    def status(self) -> str:
        """One line for the About box: how recall finds memories."""
        channel = self.semantic
        if channel is None:
            reason = self.semantic_problem or "the embedder is still loading"
            return f"by words only ({reason})"
        line = f"by words and meaning ({channel.label})"
        if self._next is not None:
            line += f"; switching to {self._next.label} once it has read the memory"
        return line

    def wait_embedded(self, timeout: float | None = None) -> bool:
        """Block until the vectors have caught up (tests, the evaluation harness)."""
        self.start()
        self.ready.wait(timeout)
        self._wake.set()
        return self.embedded.wait(timeout)

    def _on_memory_change(self, name: str, _doc: object) -> None:
        self.index.mark_dirty(self.store.path(name))
        self._wake.set()

    def _wait(self) -> bool:
        self.start()
        return self.ready.wait(STARTUP_WAIT_S)

    def hits_for(self, text: str, ctx: TurnContext, k: int | None = None, *, history: bool = True) -> list[Hit]:
        """Ranked hits for a message, leaving out what the turn's prompt already shows
        (history=False: as if the prompt held no history)."""
        if not self._wait():
            return []
        self.index.refresh()
        shown = ctx.shown
        exclude = ctx.in_prompt if history else frozenset()
        names = names_in({name: doc.body for name, doc in ctx.documents.items()})
        automatic = k is None
        cap = k or self.settings.max_recalled  # automatic recall is bounded by the question, not the home's age
        depth = k or candidates_for(ctx.recall_budget, self.k)
        k = min(depth, cap)  # no more are kept: ranking more by words only costs time
        # meaning matches are read as deep as the budget could show: fusion lifts some from far down (measured)
        query = replace(self.query(text, k * 2, ctx.today, names, exclude=exclude, neighbours=True),
                        meaning_depth=depth * 2)
        hits = [
            h for h in search(self.index, query, self.settings, self.semantic)
            if self.relevant(h) and not (h.item.kind == "entry" and h.item.text in shown)
        ]
        if hits and automatic:  # only what is near the best match
            bar = max(h.score for h in hits) * self.settings.recall_share
            hits = [h for h in hits if h.score >= bar]
        return hits[: min(k, cap)]

    def search(self, query: SearchQuery) -> list[Hit]:
        """The one hybrid ranking (words and meaning, fused) for any caller: recall, the tool, other agents."""
        return search(self.index, query, self.settings, self.semantic)

    def relevant(self, hit: Hit) -> bool:
        """The relevance bar: a real word match, or near enough in meaning."""
        channel = self.semantic
        floor = (channel.floor if channel is not None else 1.0) if self.settings.semantic_floor is None else self.settings.semantic_floor
        return hit.relevance >= MIN_RELEVANCE or hit.similarity >= floor

    def query(
        self,
        text: str,
        k: int,
        today: date,
        names: dict[str, str],
        *,
        exclude: frozenset[str] = frozenset(),
        neighbours: bool = False,
    ) -> SearchQuery:
        """The search for a message: its words, the speaker and the time it names, resolved against today."""
        when = query_time(text, today)
        days: tuple[date, date] | None = None
        if when is not None and when.anchor:  # "the day before my trip": the trip's day first
            found = search(self.index, SearchQuery(when.anchor, k=1, today=today, names=names), self.settings)
            if found and found[0].item.day:
                days = around_day(date.fromisoformat(found[0].item.day), when.offset)
        elif when is not None:
            days = (when.first, when.last)
        return SearchQuery(text, k=k, today=today, exclude=exclude, names=names, neighbours=neighbours, days=days,
                           time_words=when.words if when is not None else ())

    def for_turn(self, text: str, ctx: TurnContext, budget: int | None = None) -> Packed:
        """The memory block for this message within `budget` tokens (default: the turn's recall budget;
        empty when nothing fits). A draft of it recalled on the same memory is not recalled again: its
        block is the one the model read ahead, whatever budget the speed measured since would give."""
        budget = ctx.recall_budget if budget is None else budget
        draft, self._draft = self._draft, None
        if draft is not None and draft.key == self._draft_key(text, ctx) and time.monotonic() < draft.until:
            packed = draft.packed
        else:
            packed = self._recall(text, ctx, budget)
        if packed.hits:
            self.index.record_hits(h.item for h in packed.hits)
        return packed

    def for_draft(self, text: str, ctx: TurnContext, budget: int) -> Packed:
        """for_turn for what the user is still typing: the hits are not counted as used, and sending the
        same words on the same memory (history, long-term files, index) reuses them."""
        packed = self._recall(text, ctx, budget)
        self._draft = _Draft(self._draft_key(text, ctx), self.index.version(),
                             time.monotonic() + DRAFT_KEPT_S, packed)
        return packed

    def before_message(self) -> None:
        """A message is about to be logged: the index catches up with the day logs first, and a draft
        recalled before anything changed there (a deleted message, another computer's turns, a forget)
        is recalled again."""
        draft = self._draft
        if draft is None:
            return
        try:
            self.index.refresh()
            unchanged = self.index.version() == draft.version
        except CompanionError as exc:
            log.warning("Search index unavailable: %s", exc)
            unchanged = False
        if not unchanged:
            self._draft = None

    def _recall(self, text: str, ctx: TurnContext, budget: int) -> Packed:
        if is_trivial(text):
            return Packed(None)
        self._quiet_until = time.monotonic() + 1.0  # the reply is about to be generated: embedding waits
        return pack(self.hits_for(text, ctx), budget, ctx.count)

    def _draft_key(self, text: str, ctx: TurnContext) -> tuple[object, ...]:
        """What a recall depends on, the message's own id aside (a draft has none yet)."""
        channel = self.semantic
        return (
            text, ctx.today, frozenset(r.id for r in ctx.history) | ctx.replaced,
            tuple(doc.body for doc in ctx.documents.values()), channel.label if channel is not None else None,
        )

    def tool(self, args: dict[str, Any], today: date, count: Callable[[str], int]) -> str:
        """memory_search(query, k): JSON list of snippets with file, id or line, date and score."""
        query = args.get("query")
        if not isinstance(query, str) or not query.strip():
            raise ToolError("memory_search needs 'query': the words to look for.")
        k = args.get("k", 5)
        if not isinstance(k, int) or isinstance(k, bool):
            raise ToolError("'k' must be a whole number from 1 to 20.")
        k = min(max(k, 1), 20)
        try:
            self._wait()
            self.index.refresh()
            names = names_in({name: self.store.read(name).body for name in ("USER.md", "SOUL.md")})
            hits = search(self.index, self.query(query, k, today, names), self.settings, self.semantic)
        except CompanionError as exc:
            raise ToolError(f"Search failed: {exc}") from exc
        results = []
        for hit in hits:
            entry = hit.to_dict()
            entry["text"] = best_excerpt(hit.item.text, hit.terms, count, MAX_SNIPPET_TOKENS)
            results.append(entry)
        return json.dumps(results, ensure_ascii=False) if results else "No memories match that query."

    def close(self) -> None:
        self.store.unsubscribe(self._on_memory_change)
        self._stop.set()
        self._wake.set()
        with self._started:  # a scan that never started never will
            started = self._thread.ident is not None
        if started and self._thread is not threading.current_thread():
            self._thread.join(timeout=10.0)
        for channel in (self.semantic, self._next):
            if channel is not None:
                channel.store.close()
        self.index.close()


def channel_of(index: SearchIndex, store: VectorStore, embedder: Embedder) -> SemanticChannel:
    """The meaning channel of one embedder over `index`, read on that embedder's scale."""
    return SemanticChannel(index, store, embedder.passages, embedder.query, embedder.label, embedder.floor,
                           getattr(embedder, "chinese_floor", None))


def open_channel(home: Home, index: SearchIndex, embedder: Embedder, catch_up: int = 2000) -> SemanticChannel:
    """The meaning channel over `index` outside the app (`companion search`): the vectors the app stored, plus up to
    `catch_up` of the newest texts it has not embedded yet."""
    store = VectorStore(store_path(home.state, embedder.id), embedder.id, embedder.dim)
    channel = channel_of(index, store, embedder)
    channel.catch_up(batch=64, limit=catch_up)
    return channel


def _lower_thread_priority() -> None:
    """The calling thread runs below normal priority where the OS allows it per thread (Linux); elsewhere
    the embedder's pacing (EMBED_DUTY, pausing during turns) keeps it out of the chat's way."""
    if not sys.platform.startswith("linux"):  # elsewhere the id is not a process id: never renice by it
        return
    try:
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 10)
    except (AttributeError, OSError):
        pass
