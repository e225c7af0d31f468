"""English and Chinese words every part reads the same way: CJK ranges, numbers, months, weekdays, folding."""

from __future__ import annotations

import re
import unicodedata

__all__ = [
    "CJK", "CJK_CHAR", "HAN", "HAN_CHAR", "IRREGULAR", "MONTHS", "MONTH_PATTERN", "WEEKDAYS", "WEEKDAY_PATTERN", "WORD_NUMBERS",
    "ZH_DIGITS", "ZH_NUMERALS", "ZH_WEEKDAYS", "cjk_count", "fold", "has_cjk", "has_han", "month_index",
    "zh_number", "zh_weekday",
]

# -- scripts --------------------------------------------------------------------------------------------
# Han ideographs (unified, extension A, compatibility): the characters of Chinese words.
HAN = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
# Every script written without spaces between words: kana, Han and hangul. Use inside a class: f"[{CJK}]".
CJK = "\u3040-\u30ff" + HAN + "\uac00-\ud7af"
HAN_CHAR = re.compile(f"[{HAN}]")
CJK_CHAR = re.compile(f"[{CJK}]")


def has_han(text: str) -> bool:
    """Whether `text` holds a Chinese character (the test for "this was said in Chinese")."""
    return HAN_CHAR.search(text) is not None


def has_cjk(text: str) -> bool:
    return CJK_CHAR.search(text) is not None


def cjk_count(text: str) -> int:
    return len(CJK_CHAR.findall(text))


_LATIN_WORD = re.compile(r"[A-Za-z]+")


def mostly_chinese(text: str) -> bool:
    """More CJK characters than Latin words: the text is read as Chinese."""
    return cjk_count(text) > len(_LATIN_WORD.findall(text))


# -- folding --------------------------------------------------------------------------------------------


def fold(text: str) -> str:
    """Text for comparison: compatibility forms unified (full-width 'Ａ', NFD 'ü'), then case folded."""
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", text).casefold())


# -- numbers --------------------------------------------------------------------------------------------

WORD_NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
                "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12}
ZH_DIGITS = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
ZH_NUMERALS = "".join(ZH_DIGITS) + "十百"  # every character zh_number reads, for regex classes


def zh_number(text: str) -> int | None:
    """A number in Arabic or Chinese numerals, None when it is none.

    '8', '八' -> 8; '十二' -> 12; '二十三' -> 23; '一百零五' -> 105; digit by digit as years and
    dates are read: '一二' -> 12, '二〇二六' -> 2026."""
    text = text.strip()
    if not text:
        return None
    if text.isascii() and text.isdigit():
        return int(text)
    if "十" not in text and "百" not in text:
        if any(c not in ZH_DIGITS for c in text):
            return None
        value = 0
        for char in text:
            value = value * 10 + ZH_DIGITS[char]
        return value
    hundreds, _, rest = text.rpartition("百") if "百" in text else ("", "", text)
    if "百" in text:
        high = ZH_DIGITS.get(hundreds) if hundreds else 1
        if high is None:
            return None
        rest = rest.removeprefix("零")
    else:
        high = 0
    if not rest:
        return high * 100
    if "十" in rest:
        tens, _, ones = rest.partition("十")
        ten = ZH_DIGITS.get(tens) if tens else 1
        one = ZH_DIGITS.get(ones) if ones else 0
        if ten is None or one is None or len(ones) > 1:
            return None
        return high * 100 + ten * 10 + one
    one = ZH_DIGITS.get(rest)
    return None if one is None or "百" not in text else high * 100 + one


# -- months and weekdays --------------------------------------------------------------------------------

MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
          "november", "december")
MONTH_PATTERN = (r"(?P<mon>jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
                 r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)")
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
WEEKDAY_PATTERN = r"(?P<wd>monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
ZH_WEEKDAYS = "一二三四五六日"  # 星期一 .. 星期日; 星期天 is Sunday too


def month_index(name: str) -> int:
    """'Dec', 'december' -> 12."""
    prefix = name.lower()[:3]
    return next(i for i, m in enumerate(MONTHS) if m.startswith(prefix)) + 1


def zh_weekday(char: str) -> int:
    """'一' -> 0 (Monday) .. '日' / '天' -> 6."""
    return 6 if char == "天" else ZH_WEEKDAYS.index(char)


# irregular English forms, by their base: what was said ("went", "bought") meets what is asked ("go", "buy")
_IRREGULAR_BASES = {
    "go": "went gone", "lose": "lost", "buy": "bought", "make": "made", "take": "took taken", "come": "came",
    "see": "saw seen", "get": "got gotten", "give": "gave given", "find": "found", "tell": "told", "say": "said",
    "think": "thought", "know": "knew known", "feel": "felt", "leave": "left", "meet": "met", "run": "ran",
    "begin": "began begun", "write": "wrote written", "eat": "ate eaten", "drive": "drove driven",
    "fly": "flew flown", "sing": "sang sung", "swim": "swam swum", "win": "won", "teach": "taught",
    "bring": "brought", "catch": "caught", "build": "built", "send": "sent", "spend": "spent", "hold": "held",
    "keep": "kept", "sleep": "slept", "hear": "heard", "stand": "stood", "understand": "understood",
    "sell": "sold", "pay": "paid", "fall": "fell fallen", "break": "broke broken", "choose": "chose chosen",
    "draw": "drew drawn", "drink": "drank drunk", "forget": "forgot forgotten", "grow": "grew grown",
    "hide": "hid hidden", "ride": "rode ridden", "rise": "rose risen", "shake": "shook shaken",
    "speak": "spoke spoken", "steal": "stole stolen", "throw": "threw thrown", "wake": "woke woken",
    "wear": "wore worn", "become": "became", "mean": "meant", "lead": "led", "lend": "lent", "sit": "sat",
    "fight": "fought", "bite": "bitten", "blow": "blew blown", "dig": "dug", "feed": "fed", "hang": "hung",
    "strike": "struck", "swear": "swore sworn", "tear": "tore torn", "bend": "bent", "seek": "sought",
    "sink": "sank sunk", "shoot": "shot", "shine": "shone", "freeze": "froze frozen", "forgive": "forgave forgiven",
    "child": "children", "man": "men", "woman": "women", "foot": "feet", "tooth": "teeth", "mouse": "mice",
}
IRREGULAR = {form: base for base, forms in _IRREGULAR_BASES.items() for form in forms.split()}
