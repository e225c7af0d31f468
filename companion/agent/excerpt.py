"""Excerpts of long remembered texts: the sentences that answer a question, within a token limit."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Callable

from companion.memory.lang import CJK
from companion.memory.search.tokenize import index_terms

# a list item's or heading's marker at the start of a line: "1.", "2)", "-", "*", "•", "###"
_MARKER = re.compile(r"^(?:\d{1,3}[.)]|[-*+•·]|#{1,6})\s+")
# a sentence ends at . ! ? before a space and what starts a sentence (not "approx. 60", "e.g. the", "3.5"), or
# before Chinese ("好!你呢?"), or at 。！？ whatever follows; closing quotes and brackets stay with the sentence
_END = re.compile(rf"[.!?]+[\"'”’)\]]*(?=\s+[^\s\da-z]|[{CJK}])|[。！？]+[”’」』）)\]]*")
_TITLE = re.compile(r"(?:^|\W)(?:Mr|Mrs|Ms|Dr|St|vs)$")  # "Mrs" before a period that ends no sentence
# a list item's name: its marker and the few words before a colon or dash ("3. **Campari**:", "- 东京塔：")
_ITEM_NAME = re.compile(r"^\S+\s+(?:[^\s:：]+\s+){0,4}?[^\s:：]+\s*(?:[:：]|\s[-–—](?=\s))")
# a line that names a group of items: bold on its own, or a few words and a colon
_HEADING = re.compile(r"^(?:\*\*[^*]{1,60}\*\*[:：]?|[^.!?。！？]{1,40}[:：])$")
# what makes a sentence specific: a number, a quoted title or name, a capitalised word inside it
_SPECIFIC = re.compile(r"\d|[\"“《「『]|(?<=[\w,;:] )[A-Z]\w")

AFTER = (1.0, 0.6, 0.36, 0.22)  # a match's weight passed to the sentences after it (an answer follows what it answers)
BEFORE = (1.0, 0.5, 0.25)  # ...and to those before it
TOPIC = 0.5  # a long text's opening statement says what it is about: worth this share of the best match
MIN_TOPIC_TOKENS = 8  # ...its first sentence this long, that is (not a greeting: "Thanks, Melanie!")
SPECIFIC = 1.5  # a sentence with numbers, names or titles is worth this much more near a match
ITEM = SPECIFIC  # a list the best match introduces: each item's first sentence, next after that match
MIN_ITEM_TOKENS = 8  # an item is cut to its share of the room; a share below this shows only its name


@dataclass(frozen=True)
class Sentence:
    """One sentence of a remembered text and where it stands in it."""

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
            if _TITLE.search(line[max(0, end.start() - 4) : end.start()]):
                continue
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
    words: set[str] = set()
    for chunk in sentence.split():
        words.update(_terms_of(chunk))
    return sum(1 for word in words if word in exact or (prefixes and word.startswith(prefixes)))


@lru_cache(maxsize=16384)
def _terms_of(chunk: str) -> tuple[str, ...]:
    """The index terms of one space-free piece of text (no term spans a space): the same words recur
    from turn to turn, so each is stemmed once."""
    return tuple(index_terms(chunk))


def best_excerpt(text: str, terms: list[str], count: Callable[[str], int], limit: int) -> str:
    """The whole text when it fits `limit` tokens, else the sentences most likely to answer the query, in
    their order, gaps marked with "…": the best-matching sentence, the ones right after it (a list that
    it introduces by each item's first sentence), then what other matches and the opening say, sentences
    with numbers and names first; what does not fit is skipped for what does."""
    flat = " ".join(text.split())
    return flat if count(flat) <= limit else excerpt(text, terms, count, limit)


def excerpt(text: str, terms: list[str], count: Callable[[str], int], limit: int) -> str:
    """What best_excerpt shows of a text already known not to fit `limit` (it is not counted whole again)."""
    units = sentences(text)
    if not units:
        return clip(" ".join(text.split()), limit, count)
    costs: dict[int, int] = {}

    def cost_of(index: int) -> int:
        if index not in costs:
            costs[index] = count(units[index].text) + 1  # and the space after it
        return costs[index]

    found = [matches(u.text, terms) for u in units]
    if not any(found):  # found by meaning alone: its opening
        found = [1] + [0] * (len(units) - 1)
    centre = max(range(len(units)), key=lambda i: (found[i], -i))
    items = set(_list_after(units, centre))
    value = _values(units, found, centre, items, cost_of)
    share = max(4, (limit - cost_of(centre) - 1) // len(items)) if items else limit
    shown: dict[int, str] = {}
    used = 0
    for i in sorted(range(len(units)), key=lambda i: (-value[i], i)):
        if value[i] <= 0 or limit - used < 3:
            break
        piece, cost = units[i].text, cost_of(i)
        if i in items and cost > share:
            piece = _shorten_item(piece, share - 1, count)
            cost = count(piece) + 1
        if i == centre and cost > limit:
            piece = clip(piece, limit - 2, count)
            cost = count(piece) + 1
        if i - 1 not in shown and i + 1 not in shown and not piece.endswith("…"):
            cost += 1  # a "…" before it, at most (a cut piece's own "…" marks the gap)
        if used + cost <= limit:
            shown[i] = piece
            used += cost
    for step in (1, -1):  # room left: read on from the best match while whole sentences fit
        i = centre + step
        while i in shown:
            i += step
        while 0 <= i < len(units) and i not in shown and used + cost_of(i) <= limit:
            shown[i] = units[i].text
            used += cost_of(i)
            i += step
    return _join(shown, len(units))


def _values(units: list[Sentence], found: list[int], centre: int, items: set[int], cost_of: Callable[[int], int]) -> list[float]:
    """How much each sentence is worth to the question: its own matches, those of the matches just before
    and after it, the opening statement and the items of a list the best match introduces; more with
    numbers and names. The best match is worth the most."""
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
    opening = next((i for i in range(len(units)) if cost_of(i) > MIN_TOPIC_TOKENS), 0)
    value[opening] = max(value[opening], best * TOPIC)
    for i in items:
        value[i] = max(value[i], best * ITEM)
    for i, unit in enumerate(units):
        if i != centre and i not in items and _SPECIFIC.search(unit.text):
            value[i] *= SPECIFIC
    value[centre] = float("inf")
    return value


def _list_after(units: list[Sentence], centre: int) -> list[int]:
    """The first sentences of the list items (and the headings between them) on the lines after the best
    match, when it ends a paragraph that the list follows straight away."""
    last = centre
    while last + 1 < len(units) and units[last + 1].line == units[centre].line:
        last += 1
    if last != centre or units[centre].item:  # not the end of a paragraph, or an item itself: no list to introduce
        return []
    items = []
    for i in range(last + 1, len(units)):
        if not units[i].head:
            continue
        if not (units[i].item or _heading(units, i)):
            break
        items.append(i)
    return items


def _heading(units: list[Sentence], index: int) -> bool:
    """A line that only names what follows: "**Books:**", "Restaurants:"."""
    alone = index + 1 == len(units) or units[index + 1].line != units[index].line
    return alone and bool(_HEADING.match(units[index].text))


def _shorten_item(item: str, limit: int, count: Callable[[str], int]) -> str:
    """A list item cut to `limit` tokens; below MIN_ITEM_TOKENS, to its name ("2. Dry vermouth: …") if it has one."""
    if limit >= MIN_ITEM_TOKENS:
        return clip(item, limit, count)
    name = _ITEM_NAME.match(item)
    return name.group(0) + " …" if name else clip(item, MIN_ITEM_TOKENS, count)


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
