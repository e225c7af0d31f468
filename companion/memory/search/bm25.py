"""FTS5's BM25, computed here for a few rows: the same scores without FTS5 reading every list of items to count them.

FTS5's bm25() first counts, for each query term, every item that holds it (a read of the term's whole
list of items: milliseconds for a common word in a big index), then scores each matching row. When
all terms must match, few rows do, and the index's table of terms already holds those counts: scoring
the rows here costs far less. The formula, constants and statistics are FTS5's own (fts5_aux.c).
"""

from __future__ import annotations

import math
from typing import Iterable

K1 = 1.2
B = 0.75
AVERAGES_ROWID = 1  # FTS5's record of the row count and the total number of tokens per column
ROW_COST_NS = 6000  # reading and scoring one row here (its stored terms)...
LIST_COST_NS = 65  # ...against FTS5 reading one entry of a term's list of items to count them


def most_rows(counts: Iterable[int]) -> int:
    """The most rows worth scoring here rather than letting FTS5 count the terms' items."""
    return int(sum(counts) * LIST_COST_NS / ROW_COST_NS)


def averages(blob: bytes) -> tuple[int, int] | None:
    """(rows, tokens) from FTS5's averages record (one varint each, a one-column table); None if unreadable."""
    values: list[int] = []
    position = 0
    while position < len(blob) and len(values) < 2:
        value = 0
        for step in range(9):  # SQLite varint: seven bits a byte, high bit set while more follow; the 9th byte whole
            if position >= len(blob):
                return None
            byte = blob[position]
            position += 1
            if step == 8:
                value = (value << 8) | byte
                break
            value = (value << 7) | (byte & 0x7F)
            if not byte & 0x80:
                break
        values.append(value)
    if len(values) < 2 or values[0] <= 0:
        return None
    return values[0], values[1]


def scores(rows: list[tuple[int, str]], counts: dict[str, int], total_rows: int, total_tokens: int) -> list[tuple[int, float]] | None:
    """(rowid, BM25 score, higher is better) for rows of (rowid, stored terms) that hold every term in `counts`;
    None when a row lacks one (its stored terms do not read as FTS5 reads them: let FTS5 score)."""
    average = total_tokens / total_rows
    weights = []
    for term, held in counts.items():
        idf = math.log((total_rows - held + 0.5) / (held + 0.5))
        weights.append((term, idf if idf > 0 else 1e-6))
    out = []
    for rowid, text in rows:
        tokens = text.split()
        norm = K1 * (1 - B + B * len(tokens) / average)
        score = 0.0
        for term, idf in weights:
            freq = tokens.count(term)
            if not freq:
                return None
            score += idf * (freq * (K1 + 1)) / (freq + norm)
        out.append((rowid, score))
    return out
