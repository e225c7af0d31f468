"""Wallet recovery phrases: a run of BIP39 words, read from the `mnemonic` package's word lists."""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from mnemonic import Mnemonic

MIN_WORDS = 12  # the shortest phrase a wallet writes
_LATIN = ("english", "spanish", "french", "italian", "portuguese", "czech")
_CHINESE = ("chinese_simplified", "chinese_traditional")
_WORD = re.compile(r"(?:[^\W\d_]|[\u0300-\u036f])+")  # letters, and accents written as combining marks
_GAP = re.compile(r"[\s,;.·\-]*(?:\d{1,2}[.):]?[\s,;.\-]*)?")  # "1. abandon 2) ability", "abandon, ability"
_ZH_GAP = re.compile(r"[\s,，、]*")
_ZH_LABEL = re.compile(r"助记词|助记|恢复短语|种子短语|种子词|钱包|助記詞|恢復短語|種子")


def _fold(word: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFKD", word.lower()) if not unicodedata.combining(c))


@lru_cache(maxsize=1)
def _latin_lists() -> tuple[frozenset[str], ...]:
    return tuple(frozenset(_fold(w) for w in Mnemonic(language).wordlist) for language in _LATIN)


@lru_cache(maxsize=1)
def _chinese_words() -> frozenset[str]:
    return frozenset(w for language in _CHINESE for w in Mnemonic(language).wordlist)


def recovery_phrases(text: str) -> list[tuple[int, int]]:
    """(start, end) of every run of at least MIN_WORDS words from one BIP39 list, in any language."""
    return sorted(_latin_runs(text) + _chinese_runs(text))


def _latin_runs(text: str) -> list[tuple[int, int]]:
    words = [(m.start(), m.end(), _fold(m.group(0))) for m in _WORD.finditer(text)]
    spans: list[tuple[int, int]] = []
    for wordlist in _latin_lists():
        run: list[tuple[int, int]] = []
        for start, end, word in words:
            if word not in wordlist or (run and _GAP.fullmatch(text, run[-1][1], start) is None):
                _close(run, spans)
                run = []
            if word in wordlist:
                run.append((start, end))
        _close(run, spans)
    return spans


def _chinese_runs(text: str) -> list[tuple[int, int]]:
    """Twelve list characters spaced apart, or run together near a label such as 助记词
    (unspaced, every common character is on the list: ordinary sentences would match)."""
    wordlist = _chinese_words()
    runs: list[tuple[list[int], bool]] = []
    run: list[int] = []
    spaced = True
    for index, char in enumerate(text):
        if char not in wordlist:
            continue
        if run and _ZH_GAP.fullmatch(text, run[-1] + 1, index) is not None:
            spaced = spaced and index > run[-1] + 1
            run.append(index)
            continue
        runs.append((run, spaced))
        run, spaced = [index], True
    runs.append((run, spaced))
    spans = []
    for positions, apart in runs:
        if len(positions) < MIN_WORDS:
            continue
        if apart or _ZH_LABEL.search(text, max(0, positions[0] - 20), positions[-1] + 1):
            spans.append((positions[0], positions[-1] + 1))
    return spans


def _close(run: list[tuple[int, int]], spans: list[tuple[int, int]]) -> None:
    if len(run) >= MIN_WORDS:
        spans.append((run[0][0], run[-1][1]))
