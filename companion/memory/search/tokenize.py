"""Text to index terms: lower-cased light-stemmed words for alphabetic text, bigrams for CJK."""

from __future__ import annotations

import re

from companion.memory.lang import CJK, IRREGULAR, fold

# CJK ideographs, kana and hangul: written without spaces, so they are cut into overlapping pairs.
_CJK = CJK
# a word is letters and digits but never CJK: "18岁生日" is 18 and 岁生日, so 生日 finds it
_TOKEN = re.compile(rf"[{_CJK}]+|[^\W_{_CJK}]+(?:['’][^\W_{_CJK}]+)?", re.UNICODE)
_IS_CJK = re.compile(rf"[{_CJK}]")

STOPWORDS = frozenset(
    """a an and are as at be been but by can could did do does for from had has have he her his i if in into is it
    its me my no not of on or our she so that the their them then there these they this to too was we were what
    when where which who why will with would you your yours am im i'm it's dont don't just about also very
    really okay ok yes yeah thanks thank please hi hello hey""".split()
)
# CJK function characters that carry no topic on their own
_CJK_STOP = frozenset("的了是我你他她它们在有和就不也都吗呢吧啊么这那个")




def stem(word: str) -> str:
    """A deliberately light English stemmer: plural and common verb endings only."""
    if len(word) <= 3 or not word.isalpha():
        return word
    for suffix, keep in (("ies", "y"), ("sses", "ss"), ("ing", ""), ("ied", "y"), ("ed", ""), ("es", ""), ("s", "")):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            if suffix == "s" and word.endswith(("ss", "us", "is")):
                return word
            if suffix == "es" and not word.endswith(("shes", "ches", "xes", "zes", "oes")):
                continue
            base = word[: len(word) - len(suffix)] + keep
            if suffix in ("ing", "ed") and len(base) > 3 and base[-1] == base[-2] and base[-1] not in "lsz":
                base = base[:-1]  # running -> run, planned -> plan
            return base
    return word


def _word(token: str) -> str:
    """A word's term: the possessive goes first ("Melanie's" is Melanie, not a plural), then the stem."""
    if token.endswith("'s"):
        token = token[:-2]
    token = token.replace("'", "")
    return IRREGULAR.get(token) or stem(token)


def _normalize(text: str) -> str:
    return fold(text).replace("’", "'")


def _cjk_terms(run: str, unigrams: bool) -> list[str]:
    if len(run) == 1:
        return [run]
    pairs = [run[i : i + 2] for i in range(len(run) - 1)]
    if unigrams:
        pairs.extend(ch for ch in run if ch not in _CJK_STOP)
    return pairs


def index_terms(text: str) -> list[str]:
    """Every term an item is found by (CJK runs give bigrams and single characters)."""
    terms: list[str] = []
    for match in _TOKEN.finditer(_normalize(text)):
        token = match.group(0)
        if _IS_CJK.match(token):
            terms.extend(_cjk_terms(token, unigrams=True))
        elif token not in STOPWORDS:
            terms.append(_word(token))
    return terms


def query_terms(text: str) -> list[str]:
    """Distinct terms of a query, in order; CJK runs give bigrams (a lone character stays itself)."""
    seen: dict[str, None] = {}
    for match in _TOKEN.finditer(_normalize(text)):
        token = match.group(0)
        if _IS_CJK.match(token):
            for term in _cjk_terms(token, unigrams=False):
                if not (len(term) == 1 and term in _CJK_STOP):
                    seen.setdefault(term, None)
        elif token not in STOPWORDS:
            seen.setdefault(_word(token), None)
    return list(seen)


def is_cjk(term: str) -> bool:
    return bool(_IS_CJK.match(term))
