"""The semantic channel: the index's items embedded into a vector store, found by meaning in any language.

It holds no model: the caller hands it two functions (texts -> vectors, query -> vector), so the
memory layer stays free of model runtimes. Catching up embeds what has no vector yet, newest
first, in small batches the caller paces; `prune` drops the vectors of text no longer indexed
(edited, deleted or forgotten).
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from typing import Callable, Sequence, TYPE_CHECKING

from companion.memory import entries as E
from companion.memory.search.index import Candidate, SearchIndex
from companion.memory.search.vectors import VectorStore

if TYPE_CHECKING:  # numpy is imported where it is used: opening the app does not wait for it
    import numpy as np

log = logging.getLogger(__name__)

EmbedTexts = Callable[[Sequence[str]], "np.ndarray"]
EmbedQuery = Callable[[str], "np.ndarray"]


@dataclass
class Progress:
    done: int  # items with a vector
    total: int  # items indexed

    @property
    def complete(self) -> bool:
        return self.done >= self.total

    @property
    def share(self) -> float:
        return self.done / self.total if self.total else 1.0


def embeddable(text: str) -> str:
    """What is embedded of an item's text: an entry without its bullet, citations and notes (they carry no meaning)."""
    return E.entry_text(text) or text


class SemanticChannel:
    """One embedder's view of the index."""

    def __init__(self, index: SearchIndex, store: VectorStore, embed_texts: EmbedTexts, embed_query: EmbedQuery,
                 label: str = "", floor: float = 0.2, chinese_floor: float | None = None) -> None:
        self.index = index
        self.floor = floor  # the embedder's own "not related at all" similarity
        # the same between two Chinese texts, where an embedder may score everything higher
        self.chinese_floor = floor if chinese_floor is None else max(floor, chinese_floor)
        self.store = store
        self.embed_texts = embed_texts
        self.embed_query = embed_query
        self.label = label or store.embedder_id
        self._queue: list[int] = []
        self._queue_lock = threading.Lock()
        self._seen_row = 0  # items up to this row were queued once: later scans read only newer rows
        self._seen_generation = -1  # the index file generation _seen_row belongs to
        self._query_cache: dict[str, np.ndarray] = {}

    # -- keeping in step ------------------------------------------------------

    def pending(self) -> list[int]:
        """Text keys with no vector yet, newest first (every item the first time, then only newer items)."""
        generation = self.index.generation
        after = self._seen_row if generation == self._seen_generation else 0
        last, keys = self.index.newest_text_keys(after)
        if last < after or self.index.generation != generation:  # the index started over meanwhile
            generation = self.index.generation
            last, keys = self.index.newest_text_keys(0)
        self._seen_row, self._seen_generation = last, generation
        return self.store.missing(keys)

    def progress(self) -> Progress:
        keys = self.index.text_keys()
        return Progress(len(keys) - len(self.store.missing(keys)), len(keys))

    def catch_up(self, batch: int = 16, limit: int | None = None, pause: Callable[[], bool] = lambda: False) -> int:
        """Embed up to `limit` pending texts (all: None), `batch` at a time, stopping when `pause()` says so.

        Returns how many were embedded."""
        with self._queue_lock:
            if not self._queue:
                self._queue = self.pending()
            todo = self._queue if limit is None else self._queue[:limit]
            self._queue = [] if limit is None else self._queue[limit:]
        done = 0
        for start in range(0, len(todo), batch):
            if pause():
                with self._queue_lock:
                    self._queue = todo[start:] + self._queue
                break
            pairs = self.index.texts_for(todo[start : start + batch])
            if not pairs:
                continue
            vectors = self.embed_texts([embeddable(text) for _, text in pairs])
            self.store.add([key for key, _ in pairs], vectors)
            done += len(pairs)
        return done

    def prune(self) -> int:
        """Delete the vectors of texts no longer indexed; how many went."""
        removed = self.store.retain(self.index.text_keys())
        with self._queue_lock:
            self._queue = []
            self._seen_row = 0  # a full scan next time: an edit may have re-added texts under old rows
        self._query_cache.clear()
        return removed

    def reset_queue(self) -> None:
        with self._queue_lock:
            self._queue = []
            self._seen_row = 0

    # -- searching ------------------------------------------------------------

    def query_vector(self, text: str) -> np.ndarray:
        """The query's vector (the last few are kept: a turn asks recall and the tool the same thing)."""
        cached = self._query_cache.get(text)
        if cached is None:
            cached = self.embed_query(text)
            if len(self._query_cache) > 32:
                self._query_cache.clear()
            self._query_cache[text] = cached
        return cached

    def candidates(
        self,
        text: str,
        limit: int,
        *,
        floor: float | None = None,
        kinds: Sequence[str] | None = None,
        since: str | None = None,
        until: str | None = None,
        exclude: frozenset[str] = frozenset(),
    ) -> list[Candidate]:
        """Items nearest in meaning to `text` whose similarity reaches `floor`, best first (relevance: cosine)."""
        nearest = self.store.search(self.query_vector(text), limit + len(exclude))
        bar = self.floor if floor is None else floor
        scores = {key: score for key, score in nearest if score >= bar}
        found = self.index.by_text_keys(scores, kinds=kinds, since=since, until=until, exclude=exclude)
        found.sort(key=lambda c: (-c.relevance, c.item.key))
        return found[: limit * 2]
