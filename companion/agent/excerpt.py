"""Excerpts of long remembered texts: the sentences that answer a question, within a token limit."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

from companion.memory.search.tokenize import index_terms

# a list item's or heading's marker at the start of a line: "1.", "2)", "-", "*", "•", "###"
_MARKER = re.compile(r"^(?:\d{1,3}[.)]|[-*+•·]|#{1,6})\s+")
# a sentence ends at . ! ? before a space and what starts a sentence (not "approx. 60", "e.g. the", "3.5"),
# or at 。！？ whatever follows; closing quotes and brackets stay with the sentence they close
_END = re.compile(r"[.!?]+[\"'”’)\]]*(?=\s+[^\s\da-z])|[。！？]+[”’」』）)\]]*")
# what makes a sentence specific: a number, a quoted title or name, a capitalised word inside it
_SPECIFIC = re.compile(r"\d|[\"“《「『]|(?<=[\w,;:] )[A-Z]\w")

AFTER = (1.0, 0.6, 0.36, 0.22)  # a match's weight passed to the sentences after it (an answer follows what it answers)
BEFORE = (1.0, 0.5, 0.25)  # ...and to those before it
TOPIC = 0.5  # a long text's first sentence says what it is about, as a share of the best match
MIN_TOPIC_TOKENS = 8  # ...its first sentence this long: not a greeting ("Thanks, Melanie!")
SPECIFIC = 1.5  # a sentence with numbers, names or titles is worth this much more near a match
ITEM = 1.0  # a list right after the best match: each item's first sentence, as a share of that match
MIN_ITEM_TOKENS = 8  # an item's first sentence is cut to its share of the room, never below this
FLOOR = 0.0  # sentences worth less than this share of the best match are left out, even when they fit


@dataclass(frozen=True)
class Sentence:
    text: str
    line: int  # which line of the text it is on
    head: bool  # the first sentence of its line: a paragraph's topic, a list item's name
    item: bool  # its line is a list item


def sentences(text: str) -> list[Sentence]:
    """The sentences of `text`, line by line; a list marker stays with the first sentence of its item."""
    found: list[Sentence] = []
    for number, raw in enumerate(text.splitlines()):
        line = " ".join(raw.split())
        if not line:
            continue
        marker = _MARKER.match(line)
        start = marker.end() if marker else 0
        parts: list[str] = []
        for end in _END.finditer(line, start):
            parts.append(line[start : end.end()].strip())
            start = end.end()
        parts.append(line[start:].strip())
        parts = [p for p in parts if p]
        if marker and parts:
            parts[0] = marker.group(0) + parts[0]
        elif marker:
            parts = [marker.group(0).strip()]
        found.extend(Sentence(p, number, i == 0, bool(marker)) for i, p in enumerate(parts))
    return found


def matches(sentence: str, terms: list[str]) -> int:
    """How many of the sentence's distinct words the query's terms find (a term ending in * is a prefix)."""
    exact = {t for t in terms if not t.endswith("*")}
    prefixes = tuple(t[:-1] for t in terms if t.endswith("*"))
    return sum(1 for word in set(index_terms(sentence)) if word in exact or (prefixes and word.startswith(prefixes)))


def best_excerpt(text: str, terms: list[str], count: Callable[[str], int], limit: int) -> str:
    """The whole text when it fits `limit` tokens, else the sentences most likely to answer the query, in
    their order, gaps marked with "…": the best-matching sentence, the ones right after it (a list that
    follows it by each item's first sentence), then what other matches and the opening say, sentences with
    numbers and names first."""
    flat = " ".join(text.split())
    if count(flat) <= limit:
        return flat
    units = sentences(text)
    if not units:
        return clip(flat, limit, count)
    found = [matches(u.text, terms) for u in units]
    if not any(found):  # found by meaning alone: its opening
        found = [1] + [0] * (len(units) - 1)
    centre = max(range(len(units)), key=lambda i: (found[i], -i))
    best = max(found[centre], 1)
    value = [0.0] * len(units)
    for i, strength in enumerate(found):
        if not strength:
            continue
        for step, weight in enumerate(AFTER):
            if i + step < len(units):
                value[i + step] = max(value[i + step], strength * weight)
        for step, weight in enumerate(BEFORE[1:], 1):
            if i - step >= 0:
                value[i - step] = max(value[i - step], strength * weight)
    opening = next((i for i, u in enumerate(units) if count(u.text) >= MIN_TOPIC_TOKENS), 0)
    value[opening] = max(value[opening], best * TOPIC)
    items = _list_after(units, centre)
    for i in items:
        value[i] = max(value[i], best * ITEM)
    for i, unit in enumerate(units):
        if i != centre and _SPECIFIC.search(_MARKER.sub("", unit.text)):
            value[i] *= SPECIFIC
    value[centre] = float("inf")
    shown: dict[int, str] = {}
    used = 0
    share = _item_share(units, items, centre, limit, count)
    for i in sorted(range(len(units)), key=lambda i: (-value[i], i)):
        if value[i] <= best * FLOOR:
            break
        piece = units[i].text
        cost = count(piece) + 1
        if i in items and cost > share:
            piece = clip(piece, max(share - 1, MIN_ITEM_TOKENS), count)
            cost = count(piece) + 1
        if i == centre and cost > limit:
            piece = clip(piece, limit - 2, count)
            cost = count(piece) + 1
        if i - 1 not in shown and i + 1 not in shown:
            cost += 1  # a "…" before it, at most
        if used + cost <= limit:
            shown[i] = piece
            used += cost
    for step in (1, -1):  # room left: read on from the best match while whole sentences fit
        i = centre + step
        while i in shown:
            i += step
        while 0 <= i < len(units) and i not in shown and used + count(units[i].text) + 1 <= limit:
            shown[i] = units[i].text
            used += count(units[i].text) + 1
            i += step
    return _join(shown, len(units))


def _list_after(units: list[Sentence], centre: int) -> list[int]:
    """The list items whose lines follow the line of the best match, when it introduces them."""
    last = centre
    while last + 1 < len(units) and units[last + 1].line == units[centre].line:
        last += 1
    if last != centre or last + 1 >= len(units) or not units[last + 1].item:
        return []
    items = []
    for i in range(last + 1, len(units)):
        if units[i].head and not units[i].item:
            break
        if units[i].head:
            items.append(i)
    return items


def _item_share(units: list[Sentence], items: list[int], centre: int, limit: int, count: Callable[[str], int]) -> int:
    if not items:
        return limit
    left = limit - count(units[centre].text) - 2
    return max(MIN_ITEM_TOKENS, left // len(items))


def _join(shown: dict[int, str], total: int) -> str:
    """The shown sentences in order, "…" where something was left out (once: a cut sentence ends in one)."""
    ordered = sorted(shown)
    parts: list[str] = []
    for position, index in enumerate(ordered):
        gap = index > 0 if position == 0 else ordered[position - 1] != index - 1
        if gap and not (parts and parts[-1].endswith("…")):
            parts.append("…")
        parts.append(shown[index])
    if ordered and ordered[-1] < total - 1 and not parts[-1].endswith("…"):
        parts.append("…")
    return " ".join(parts)


def clip(text: str, limit: int, count: Callable[[str], int]) -> str:
    """`text` cut to `limit` tokens with "…" (at a word's end where there is one)."""
    low, high = 0, len(text)
    while low < high:
        middle = (low + high + 1) // 2
        if count(text[:middle] + "…") <= limit:
            low = middle
        else:
            high = middle - 1
    cut = text[:low]
    if low < len(text) and " " in cut[len(cut) // 2 :]:
        cut = cut[: cut.rindex(" ")]
    return cut.rstrip() + "…"
