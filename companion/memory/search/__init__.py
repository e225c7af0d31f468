"""Search over all memory: day-log turns, long-term file entries and digests."""

from companion.memory.search.index import SearchIndex, open_index
from companion.memory.search.items import KINDS, Item
from companion.memory.search.rank import Hit, RankSettings, SearchQuery, search

__all__ = ["KINDS", "Hit", "Item", "RankSettings", "SearchIndex", "SearchQuery", "open_index", "search"]
