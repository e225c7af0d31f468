"""What a "forget" request means: its content words, in English and Chinese, and the entries holding them.

"Forget that I'm learning Spanish" means the entries about Spanish ("Interested in Spanish"), not only an
entry with every word of the request; "忘掉我女儿的名字" means "女儿叫朵朵". English: every content word
(function words and generic verbs such as "learning", "like", "name" left out) must appear as a word, its
plural or possessive too. Chinese has no spaces: the request, stripped of function words, is read as
character pairs, and an entry holding half of them (all, for a short request) matches. A character-pair
reading needs no dictionary: a segmenter such as jieba took about 1 s to import and 4-5 s for its first
sentence on a busy two-core machine, too slow for one request in a chat.
"""

from __future__ import annotations

import re
from typing import Callable

from companion.memory.dedupe import normalize
from companion.memory.lang import HAN, HAN_CHAR

Matcher = Callable[[str], bool]  # called with normalized entry text (memory.dedupe.normalize)

_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)?", re.UNICODE)
_CJK = HAN_CHAR
_FUNCTION = {
    "it", "that", "this", "those", "these", "them", "everything", "all", "about", "me", "my", "mine", "the", "a", "an", "what",
    "i", "i'm", "im", "i've", "said", "just", "please", "you", "your", "there", "thing", "things", "stuff", "and", "or", "of",
    "to", "in", "on", "at", "for", "with", "from", "by", "is", "am", "are", "was", "were", "be", "been", "being", "we", "our",
    "us", "he", "she", "his", "her", "they", "their", "that's", "it's", "do", "does", "did", "anything", "something", "also",
    "any", "some", "which", "who", "whom", "everything", "again", "now", "ever", "never", "so", "too", "very", "really",
}
# generic verbs and nouns of a request: they say what kind of fact, not which one
_GENERIC = {
    "have", "has", "had", "like", "likes", "love", "loves", "learning", "learn", "learns", "studying", "study", "live", "lives",
    "living", "work", "works", "working", "name", "names", "named", "called", "call", "go", "goes", "going", "play", "plays",
    "playing", "speak", "speaks", "speaking", "know", "fact", "facts", "info", "information", "detail", "details", "part",
    "remember", "mentioned", "told", "memory", "memories", "entry", "entries", "note", "notes", "favourite", "favorite",
    "interested", "into", "allergic", "prefer", "prefers", "got", "get", "own", "owns",
}
_ZH_FUNCTION = re.compile(
    r"请你?|帮我|把|给我|忘掉|忘记|忘了|删掉|删除|去掉|不要再?记|别再?记|记住|关于|有关|所有的?|一切|那件事|这件事|事情|那个|这个|"
    r"的名字|名字|叫什么|是什么|什么|我们|我的|我|你|的|了|吧|啊|呢|吗|说过|提过|刚才|以前|和|跟|还有|都|也|很|就"
)


def _stem(word: str) -> str:
    word = word.casefold().replace("’", "'")
    for suffix, repl in (("'s", ""), ("ies", "y"), ("es", ""), ("s", "")):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: len(word) - len(suffix)] + repl
    return word


def content_words(text: str) -> list[str]:
    """The words of an English request that say what it is about ("learning Spanish" -> ["spanish"]);
    the generic ones when nothing more specific is there ("my name" -> ["name"])."""
    words = [w for w in (m.group(0).casefold() for m in _WORD.finditer(text)) if w not in _FUNCTION and not _CJK.search(w)]
    specific = [w for w in words if w not in _GENERIC]
    return specific or words


_ZH_GENERIC = re.compile(r"喜欢|爱吃|爱喝|住在|工作|上班|在学|学习|正在|会说|感兴趣|过敏|是|叫|有|养|在")


def _pairs(text: str) -> list[str]:
    stripped = _ZH_FUNCTION.sub(" ", text)
    for reading in (_ZH_GENERIC.sub(" ", stripped), stripped):  # the specific words; the generic ones if nothing else
        chunks = [c for c in re.split(r"[^" + HAN + r"]+", reading) if c]
        pairs = [p for p in dict.fromkeys(c[i:i + 2] for c in chunks for i in range(max(1, len(c) - 1))) if len(p) == 2]
        if pairs:
            return pairs
    return []


def forget_matcher(what: str) -> Matcher | None:
    """A test for the entries a forget request means, or None when it names nothing specific ("forget it")."""
    what = normalize(what)
    pairs = _pairs(what) if _CJK.search(what) else []
    words = [_stem(w) for w in content_words(what)]
    words = [w for w in words if len(w) >= 3 or w.isdigit()]
    if not pairs and not words:
        return None
    need = len(pairs) if len(pairs) <= 2 else (len(pairs) + 1) // 2

    def matches(line: str) -> bool:
        if pairs and sum(1 for p in pairs if p in line) < need:
            return False
        if words:
            have = {_stem(w) for w in _WORD.findall(line.casefold())}
            return all(w in have for w in words)
        return True

    return matches


