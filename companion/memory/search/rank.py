"""Ranking: text relevance first, then who said it, when, the turns around a match; recency as a light tie-breaker."""

from __future__ import annotations

import heapq
import math
import re
from dataclasses import dataclass, field
from datetime import date
from typing import Any, Iterable

from companion.memory.lang import CJK, mostly_chinese
from companion.memory.lexicon import lexicon
from companion.memory.search.index import Candidate, SearchIndex
from companion.memory.search.items import Item
from companion.memory.search.semantic import SemanticChannel
from companion.memory.search.tokenize import is_cjk, query_terms

# "what did I say lately": recency matters for these queries
_RECENT = re.compile(
    r"\b(lately|recently|recent|these days|nowadays|this week|last week|yesterday|today|latest|now|currently|"
    r"still|anymore)\b|最近|这几天|昨天|今天|这周|上周|现在|目前",
    re.I,
)
DECAY_MODES = ("none", "multiply", "blend")
# how a question is phrased, not what it is about (as query terms, i.e. stemmed)
QUESTION_WORDS = frozenset(query_terms(
    "how many much kind kinds type types sort way ways ever both some any often usually happen happened "
    "something anything thing things"
))


@dataclass
class RankSettings:
    half_life_days: float = 30.0
    decay: str = "blend"  # none | multiply (classic, for comparison) | blend (relevance + small recency bonus)
    recency_weight: float = 0.03  # blend: bonus for an item from today, halving every half-life
    recent_query_weight: float = 0.6  # blend: the same for queries about "lately"
    hit_weight: float = 0.03  # per log(1 + times recalled before)
    entry_boost: float = 1.15  # distilled long-term entries and digests beat raw turns on equal text match
    same_day_penalty: float = 1.0  # each further pick from the same day counts this much less (1: none;
    # evidence in real talk clusters in one day's conversation)
    speaker_weight: float = 0.6  # a query naming one speaker: their turns gain this share
    day_weight: float = 0.5  # a query naming a time ("in May", "last week"): items from then gain this share
    neighbour_weight: float = 0.5  # a turn beside a match (the reply to a question) gets this share of its score
    neighbour_hits: int = 20  # ...for the best this many matches
    neighbour_span: int = 2  # turns each side; each step further passes on neighbour_weight again
    word_families: bool = True  # a long, rarely found word also finds words sharing its first letters...
    family_below: int = 10  # ...when fewer items than this hold the word itself (more: the family is noise)
    question_words: bool = True  # words that phrase a question ("how many", "what kind") are not searched for
    typo_terms: int = 2  # near terms added for a query word the index does not know
    common_term_share: float = 0.05  # a query word found in more than this share of items...
    common_term_floor: int = 5000  # ...and in more items than this is dropped when rarer words remain
    fetch_factor: float = 1.5  # word matches read per result wanted (speaker, time and neighbours re-rank them)
    score_cap: int = 1500  # query words in more items than this: only about this many of the newest are ranked
    lexical: bool = True  # the word channel (off: meaning alone, for measuring)
    semantic: bool = True  # the meaning channel, when an embedder is there
    fusion: str = "weighted"  # "weighted": word score + weight x closeness in meaning | "rrf": by rank
    rrf_k: float = 20.0  # reciprocal rank fusion: a channel's rank r adds weight / (rrf_k + r)
    lexical_weight: float = 1.0
    semantic_weight: float = 1.0
    semantic_floor: float | None = None  # cosine below which an item is not near in meaning (None: the embedder's own)
    semantic_chinese_floor: float | None = None  # ...for a Chinese query and a Chinese item (None: the embedder's)
    semantic_candidates: int = 60
    bridge_weight: float = 0.4  # the query's words in the other language (Chinese <-> English) count this much
    bridge_per_word: int = 4  # ...for each word, its first renderings the memory holds
    bridge_terms: int = 32  # ...and at most this many in all
    bridge_score_cap: int = 750  # ...ranking at most about this many of their newest matches (they count less)
    max_recalled: int = 24  # automatic recall shows at most this many snippets, however old the home
    recall_share: float = 0.1  # ...and only those scoring at least this share of the best one


@dataclass
class SearchQuery:
    text: str
    k: int = 5
    kinds: tuple[str, ...] = ()
    since: date | None = None
    until: date | None = None
    today: date | None = None  # recency is measured from this day (default: the newest item)
    exclude: frozenset[str] = frozenset()  # record ids already in the prompt
    names: dict[str, str] = field(default_factory=dict)  # role -> the speaker's name (USER.md / SOUL.md)
    days: tuple[date, date] | None = None  # a time the query names (first and last day): boosted, not filtered
    time_words: tuple[str, ...] = ()  # the words that named that time: not searched for as text
    neighbours: bool = False  # also the turns just before and after the best matching turns (recall's context)
    meaning_depth: int = 0  # meaning matches read before fusion, when more than k (and semantic_candidates)


@dataclass
class Hit:
    """A ranked result; `score` orders hits, `relevance` is the text match alone (0..1)."""

    item: Item
    score: float
    relevance: float  # the word match alone, as a share of the best word match (0..1)
    terms: list[str] = field(default_factory=list)
    similarity: float = 0.0  # cosine to the query in the meaning channel (0 when it did not find the item)

    @property
    def where(self) -> str:
        """A record id ('2024-03-01#4') for a turn, 'file:line' for a file entry."""
        if self.item.kind == "turn":
            return self.item.locator
        return f"{self.item.source}:{self.item.locator}"

    def to_dict(self) -> dict[str, Any]:
        item = self.item
        return {
            "kind": item.kind,
            "file": item.source,
            ("id" if item.kind == "turn" else "line"): item.locator,
            "date": item.day,
            "role": item.role or None,
            "section": item.context or None,
            "text": item.text,
            "score": round(self.score, 4),
        }


def expand_terms(index: SearchIndex, terms: list[str], settings: RankSettings) -> tuple[list[str], bool]:
    """Query terms plus word families and, for words the index has never seen, close spellings (typos).

    The flag says that all terms must match (a query of only very common words)."""
    counts = index.term_counts(terms)
    # a word the index has never seen is most likely a typo: its close spellings stand in for it
    near = {t: index.near_terms(t, settings.typo_terms) for t in terms if not counts.get(t, 0) and settings.typo_terms}
    # a word in a large share of everything says little and costs the most to rank: leave it out
    # while rarer words remain (an all-common query keeps its words, all of them required)
    common = _common_count(index, settings)
    rare = [t for t in terms if 0 < counts.get(t, 0) <= common or near.get(t)]
    frequent = [t for t in terms if counts.get(t, 0) > common]
    if not rare and len(frequent) > 1:
        return frequent, True  # every word is everywhere: items must hold them all
    if rare and frequent:
        terms = [t for t in terms if t not in frequent]
    expanded = list(terms)
    for term in terms:
        expanded.extend(t for t in near.get(term, []) if t not in expanded)
        # word families: 'allergy' also finds 'allergic', 'instruments' finds 'instrumental'. Not for a
        # typo that has corrections: its prefix finds the same words through a slow prefix scan. Not for
        # a word found often: its own matches are better than its family's.
        seldom = counts.get(term, 0) < settings.family_below
        if settings.word_families and seldom and len(term) >= 6 and term.isalpha() and not is_cjk(term) and not near.get(term):
            expanded.append(term[: max(5, len(term) - 3)] + "*")
    return expanded, False


def is_recency_query(text: str) -> bool:
    return bool(_RECENT.search(text))


def search(
    index: SearchIndex, query: SearchQuery, settings: RankSettings | None = None, semantic: SemanticChannel | None = None
) -> list[Hit]:
    """The best `query.k` items for the query, most relevant first: words and meaning, fused by rank."""
    settings = settings or RankSettings()
    terms = search_terms(query.text)
    meaning = semantic is not None and settings.semantic
    if query.k <= 0 or not (terms or meaning) or not (settings.lexical or meaning):
        return []
    speaker = named_speaker(terms, query.names)
    scored: list[Hit] = []
    searched: list[str] = []
    if terms and settings.lexical:
        # speakers' names and the words that named a time select whose turns and which days, rather than
        # matching text: a name is mostly in greetings ("Hey Anna!"), a month name in any plan
        aside = {t for name in query.names.values() for t in query_terms(name)} | set(query_terms(" ".join(query.time_words)))
        if settings.question_words:
            aside |= QUESTION_WORDS
        unnamed = _without_names(query.text, query.names)
        content = [t for t in (terms if unnamed == query.text else search_terms(unnamed)) if t not in aside]
        candidates, searched = _match(index, content or terms, query, settings)
        if not candidates and content and len(content) < len(terms):
            candidates, searched = _match(index, terms, query, settings)  # nothing else matched: names and times do
        scored = score_candidates(candidates, query, settings, speaker)
        if settings.bridge_weight > 0:
            other, bridged = _match_bridged(index, query, settings, set(terms) | aside)
            scored = add_scaled(scored, score_candidates(bridged, query, settings, speaker), settings.bridge_weight)
            searched = searched + other
    if meaning and semantic is not None:
        near = semantic.candidates(
            query.text, max(settings.semantic_candidates, query.k, query.meaning_depth), floor=floor_of(settings, semantic),
            kinds=query.kinds or None, since=query.since.isoformat() if query.since else None,
            until=query.until.isoformat() if query.until else None, exclude=query.exclude,
        )
        near = on_one_scale(near, query.text, floor_of(settings, semantic), chinese_floor_of(settings, semantic))
        scored = fuse(scored, score_meaning(near, query, settings, speaker), settings, floor_of(settings, semantic))
    if query.neighbours and settings.neighbour_weight > 0 and (not query.kinds or "turn" in query.kinds):
        scored = with_neighbours(index, scored, query, settings)
    return diversify(scored, query.k, settings.same_day_penalty, searched or terms)


def score_meaning(candidates: list[Candidate], query: SearchQuery, settings: RankSettings, speaker: str = "") -> list[Hit]:
    """Meaning-channel hits ordered by similarity, with the same gains for speaker, time and distilled entries."""
    hits: list[Hit] = []
    for candidate in candidates:
        item = candidate.item
        score = candidate.relevance * (settings.entry_boost if item.kind != "turn" else 1.0)
        score *= _context_boost(item, query, settings, speaker)
        hits.append(Hit(item, score, 0.0, similarity=candidate.relevance))
    hits.sort(key=_order)
    return hits


def floor_of(settings: RankSettings, semantic: SemanticChannel) -> float:
    return semantic.floor if settings.semantic_floor is None else settings.semantic_floor


def chinese_floor_of(settings: RankSettings, semantic: SemanticChannel) -> float:
    if settings.semantic_chinese_floor is not None:
        return settings.semantic_chinese_floor
    return semantic.chinese_floor if settings.semantic_floor is None else settings.semantic_floor


def on_one_scale(near: list[Candidate], text: str, floor: float, chinese_floor: float) -> list[Candidate]:
    """Meaning matches of a Chinese question with Chinese text moved onto the common scale: at
    `chinese_floor` a pair counts as `floor` (unrelated), at 1 as 1; pairs under it go. Other pairs stay."""
    if chinese_floor <= floor or not mostly_chinese(text):
        return near
    span = (1.0 - floor) / (1.0 - chinese_floor)
    out = []
    for candidate in near:
        if not mostly_chinese(candidate.item.text):
            out.append(candidate)
        elif candidate.relevance >= chinese_floor:
            out.append(Candidate(candidate.item, floor + (candidate.relevance - chinese_floor) * span, candidate.hits))
    out.sort(key=lambda c: (-c.relevance, c.item.key))
    return out


def fuse(lexical: list[Hit], meaning: list[Hit], settings: RankSettings, floor: float = 0.2) -> list[Hit]:
    """Both channels' hits in one order (see `fuse_weighted` and `fuse_rrf`)."""
    if not meaning:
        return lexical
    if not lexical:
        return meaning
    if settings.fusion == "rrf":
        return fuse_rrf(lexical, meaning, settings)
    return fuse_weighted(lexical, meaning, settings, floor)


def fuse_weighted(lexical: list[Hit], meaning: list[Hit], settings: RankSettings, floor: float) -> list[Hit]:
    """The word score (best match about 1) plus semantic_weight times how far above the floor the meaning
    is (0 at the floor, 1 at identical): a close paraphrase joins the word matches, a strong word match
    keeps its place, and a question no word matches is ranked by meaning alone."""
    span = max(1e-6, 1.0 - floor)
    fused = {h.item.key: Hit(h.item, h.score, h.relevance, similarity=h.similarity) for h in lexical}
    for hit in meaning:
        closeness = max(0.0, (hit.similarity - floor) / span)
        gain = settings.semantic_weight * closeness * (hit.score / hit.similarity if hit.similarity else 1.0)
        known = fused.get(hit.item.key)
        if known is None:
            fused[hit.item.key] = Hit(hit.item, gain, 0.0, similarity=hit.similarity)
        else:
            known.score += gain
            known.similarity = max(known.similarity, hit.similarity)
    out = sorted(fused.values(), key=_order)
    return out


def fuse_rrf(lexical: list[Hit], meaning: list[Hit], settings: RankSettings) -> list[Hit]:
    """Reciprocal rank fusion: each channel's rank r adds weight / (rrf_k + r); the top of one channel scores
    its weight. Ranks, not raw scores, so BM25's and cosine's scales never have to agree."""
    fused: dict[str, Hit] = {}
    scores: dict[str, float] = {}
    for weight, hits in ((settings.lexical_weight, lexical), (settings.semantic_weight, meaning)):
        for rank, hit in enumerate(hits, 1):
            key = hit.item.key
            share = weight * (settings.rrf_k + 1) / (settings.rrf_k + rank)
            scores[key] = scores.get(key, 0.0) + share
            known = fused.get(key)
            if known is None:
                fused[key] = Hit(hit.item, 0.0, hit.relevance, similarity=hit.similarity)
            else:
                known.relevance = max(known.relevance, hit.relevance)
                known.similarity = max(known.similarity, hit.similarity)
    out = []
    for key, hit in fused.items():
        hit.score = scores[key]
        out.append(hit)
    out.sort(key=_order)
    return out


def _match(index: SearchIndex, terms: list[str], query: SearchQuery, settings: RankSettings) -> tuple[list[Candidate], list[str]]:
    """Candidates for these query terms (expanded), and the terms searched."""
    expanded, require_all = expand_terms(index, terms, settings)
    return _matching(index, expanded, query, settings, require_all), expanded


def _matching(
    index: SearchIndex, terms: list[str], query: SearchQuery, settings: RankSettings, require_all: bool = False,
    score_cap: int | None = None,
) -> list[Candidate]:
    """The index's best items holding these exact terms, within the query's filters."""
    return index.match(
        dict.fromkeys(terms, 1.0),
        require_all=require_all,
        kinds=query.kinds or None,
        since=query.since.isoformat() if query.since else None,
        until=query.until.isoformat() if query.until else None,
        limit=max(60, int(query.k * settings.fetch_factor)),
        exclude=query.exclude,
        score_cap=settings.score_cap if score_cap is None else score_cap,
    )


def _common_count(index: SearchIndex, settings: RankSettings) -> int:
    """A word in more items than this says little and costs the most to rank."""
    return max(settings.common_term_floor, int(index.count_cached() * settings.common_term_share))


_CJK_RUN = re.compile(f"[{CJK}]+")


def search_terms(text: str) -> list[str]:
    """The query's terms: Chinese is first cut into dictionary words and its grammar and question
    words ("是什么时候", "的") left out, so their bigrams do not match every other sentence."""
    words = lexicon()
    if not words.english:
        return query_terms(text)
    return query_terms(_CJK_RUN.sub(lambda m: " " + " ".join(words.content_phrases(m.group(0))) + " ", text))


def _without_names(text: str, names: dict[str, str]) -> str:
    """The query with the speakers' Chinese names cut out, so that no pair of characters straddles a
    name and the word beside it (梅兰妮六月 is not searched for 妮六)."""
    for name in names.values():
        if name and is_cjk(name[0]):
            text = text.replace(name, " ")
    return text


def bridged_terms(text: str) -> list[list[str]]:
    """The query's words in the other language as query terms, one group per word: English for its
    Chinese, Chinese for its English (a dictionary gives several renderings of one word)."""
    words = lexicon()
    groups = [[t for w in group for t in query_terms(w)] for group in words.english_words(text) + words.chinese_words(text)]
    return [list(dict.fromkeys(g)) for g in groups if g]


def _match_bridged(
    index: SearchIndex, query: SearchQuery, settings: RankSettings, known: set[str]
) -> tuple[list[str], list[Candidate]]:
    """Candidates for the query's words in the other language: for each word, the first few renderings
    the memory holds, not the commonest (renderings never written are noise, common ones say little)."""
    groups = [[t for t in g if t not in known] for g in bridged_terms(query.text)]
    every = list(dict.fromkeys(t for g in groups for t in g))
    if not every:
        return [], []
    counts = index.term_counts(every)
    common = _common_count(index, settings)
    held: dict[str, None] = {}
    for group in groups:
        for term in [t for t in group if 0 < counts.get(t, 0) <= common][: settings.bridge_per_word]:
            held.setdefault(term, None)
    terms = list(held)[: settings.bridge_terms]
    return (terms, _matching(index, terms, query, settings, score_cap=settings.bridge_score_cap)) if terms else ([], [])


def add_scaled(hits: list[Hit], more: list[Hit], weight: float) -> list[Hit]:
    """`hits` with `weight` times the scores of `more` added (items only in `more` join at that share)."""
    if not more:
        return hits
    merged = {h.item.key: h for h in hits}
    for hit in more:
        known = merged.get(hit.item.key)
        if known is None:
            merged[hit.item.key] = Hit(hit.item, weight * hit.score, weight * hit.relevance, list(hit.terms))
        else:
            known.score += weight * hit.score
            known.relevance = max(known.relevance, weight * hit.relevance)
    return sorted(merged.values(), key=_order)


def named_speaker(terms: list[str], names: dict[str, str]) -> str:
    """The role whose name leads the query: "what did Anna say", "what did Anna tell Ben" are about
    Anna's turns; "did Anna and Ben both ..." (names side by side) is about neither in particular."""
    places = []
    for role, name in names.items():
        words = query_terms(name)
        if words and words[0] in terms:  # the given name is enough: "Priya" for Priya Nair
            start = terms.index(words[0])
            whole = terms[start : start + len(words)] == words
            places.append((start, start + (len(words) if whole else 1), role))
    if not places:
        return ""
    places.sort()
    if len(places) > 1 and places[1][0] == places[0][1]:  # "Anna and Ben": the stopword between them is gone
        return ""
    return places[0][2]


def score_candidates(
    candidates: list[Candidate], query: SearchQuery, settings: RankSettings, speaker: str = ""
) -> list[Hit]:
    if not candidates:
        return []
    top = max(c.relevance for c in candidates) or 1.0
    today = query.today or max((date.fromisoformat(c.item.day) for c in candidates if c.item.day), default=None)
    weight = settings.recent_query_weight if is_recency_query(query.text) else settings.recency_weight
    hits: list[Hit] = []
    recencies: dict[tuple[str, str | None], float] = {}  # many candidates share a day
    for candidate in candidates:
        item = candidate.item
        relevance = candidate.relevance / top
        text_score = relevance * (settings.entry_boost if item.kind != "turn" else 1.0)
        text_score *= _context_boost(item, query, settings, speaker)
        recency = recencies.get((item.kind, item.day))
        if recency is None:
            recency = recencies[(item.kind, item.day)] = _recency(item, today, settings.half_life_days)
        if settings.decay == "multiply":
            score = text_score * recency
        elif settings.decay == "blend":
            score = text_score + weight * recency
        else:
            score = text_score
        score += settings.hit_weight * math.log1p(candidate.hits)
        hits.append(Hit(item, score, relevance))
    hits.sort(key=_order)
    return hits


def _context_boost(item: Item, query: SearchQuery, settings: RankSettings, speaker: str) -> float:
    """Gains for being said by the speaker the query names and for being from the time it names."""
    boost = 1.0
    if speaker and item.kind == "turn" and item.role == speaker:
        boost += settings.speaker_weight
    if query.days and item.day and query.days[0].isoformat() <= item.day <= query.days[1].isoformat():
        boost += settings.day_weight
    return boost


def _order(hit: Hit) -> tuple[float, str, str]:
    return (-hit.score, hit.item.day or "", hit.item.key)


def with_neighbours(index: SearchIndex, hits: list[Hit], query: SearchQuery, settings: RankSettings) -> list[Hit]:
    """Turns just before and after the best matching turns share their score: answers often sit in
    the reply to a matching question, or in the question a matching reply answers."""
    by_id = {h.item.locator: h for h in hits if h.item.kind == "turn"}
    offered: dict[str, tuple[float, float, float]] = {}  # record id -> (score, relevance, similarity) from a neighbour
    for hit in [h for h in hits if h.item.kind == "turn"][: settings.neighbour_hits]:
        day, _, seq = hit.item.locator.partition("#")
        if not seq.isdigit():
            continue
        for step in range(1, settings.neighbour_span + 1):
            share = settings.neighbour_weight**step
            for near in (f"{day}#{int(seq) - step}", f"{day}#{int(seq) + step}"):
                if near not in query.exclude and hit.score * share > offered.get(near, (0.0, 0.0, 0.0))[0]:
                    offered[near] = (hit.score * share, hit.relevance * share, hit.similarity * share)
    for record_id, (score, relevance, similarity) in offered.items():
        known = by_id.get(record_id)
        if known is not None and score > known.score:
            known.score = score
    for item in index.turns(r for r in offered if r not in by_id):  # same day: inside any date filter
        score, relevance, similarity = offered[item.locator]
        hits.append(Hit(item, score, relevance, similarity=similarity))
    hits.sort(key=_order)
    return hits


def _recency(item: Item, today: date | None, half_life: float) -> float:
    """1.0 for today, halving every `half_life` days; long-term file entries never decay."""
    if item.kind == "entry" or not item.day or today is None or half_life <= 0:
        return 1.0
    age = max(0, (today - date.fromisoformat(item.day)).days)
    return float(0.5 ** (age / half_life))


def diversify(hits: list[Hit], k: int, penalty: float, terms: Iterable[str] = ()) -> list[Hit]:
    """Greedy pick; every earlier pick from the same day or file lowers an item's score."""
    term_list = list(terms)
    seen: set[str] = set()
    heap: list[tuple[float, int, int]] = []  # (-score, order, picks of its group when scored)
    for order, hit in enumerate(hits):  # said twice: the best-ranked copy stands for both
        text = " ".join(hit.item.text.casefold().split())
        if text not in seen:
            seen.add(text)
            heap.append((-hit.score, order, 0))
    heapq.heapify(heap)
    chosen: list[Hit] = []
    picked: dict[str, int] = {}
    while heap and len(chosen) < k:
        negative, order, when = heapq.heappop(heap)
        hit = hits[order]
        group = _group(hit)
        now = picked.get(group, 0)
        if now != when:  # its day got another pick since: score it again and put it back
            heapq.heappush(heap, (-hit.score * penalty**now, order, now))
            continue
        picked[group] = now + 1
        hit.terms = term_list
        chosen.append(hit)
    return chosen


def _group(hit: Hit) -> str:
    return hit.item.day or hit.item.source
