"""Find in the conversation: the turns holding a text, newest first, from the search index (not the screen)."""

from __future__ import annotations

import unicodedata

from companion.memory.search.index import SearchIndex
from companion.memory.search.tokenize import index_terms, is_cjk

FIND_LIMIT = 2000  # matches listed; more than that is shown as "2000+"


def _fold(text: str) -> str:
    return unicodedata.normalize("NFKC", text).casefold()


def _order(record_id: str) -> tuple[str, int]:
    day, _, seq = record_id.partition("#")
    return day, int(seq) if seq.isdigit() else 0


def find_turns(index: SearchIndex, text: str, limit: int = FIND_LIMIT) -> list[str]:
    """Record ids of the user's and the companion's turns that contain `text` (case-insensitive), newest first.

    The index narrows the search to turns holding every word (the last one as a prefix, so a word
    being typed matches); each candidate is then checked for the text itself."""
    needle = _fold(text.strip())
    terms = list(dict.fromkeys(index_terms(needle)))
    if not terms:
        return []
    if not is_cjk(terms[-1]) and needle[-1:].isalnum():
        terms[-1] += "*"
    index.refresh()
    found = [locator for locator, said in index.turns_matching(terms, limit * 4) if needle in _fold(said)]
    return sorted(dict.fromkeys(found), key=_order, reverse=True)[:limit]
