"""What a statement takes back: self-corrections ("sorry, I meant Lille", "不是上海，是杭州") and
past habits ("I don't teach anymore", "我以前住在广州"), read by rule in English and Chinese."""

from __future__ import annotations

import re
from dataclasses import dataclass

from companion.memory.lang import HAN, HAN_CHAR

_CJK = HAN_CHAR
_EN_LEAD = r"^(?:(?:sorry|oops|wait|no|nope|oh|ah|hmm|my bad|sorry to confuse you)[,!.]?\s+)*"
_EN_MEANT = re.compile(
    _EN_LEAD + r"(?:I meant(?: to say)?|I mean|it'?s actually|actually,? it'?s|actually|correction:|it is actually|make that|rather)"
    r"\s*[,:]?\s+(?P<x>.+?)(?:,?\s+not\s+(?P<o>[^,.!?]+?))?[.!]*$",
    re.I,
)
_EN_ITS = re.compile(
    r"^(?:(?:sorry|oops|wait|no|nope|oh|ah|hmm|my bad|correction|typo)[,!.:]?\s+)+(?:it'?s|it is|that'?s|that should be|should be|make it)"
    r"\s+(?P<x>.+?)(?:,?\s+not\s+(?P<o>[^,.!?]+?))?[.!]*$",
    re.I,
)
_EN_SAID = re.compile(
    r"^I (?:said|told you|wrote|mentioned)(?: that)? (?P<o>.+?),? but (?:(?:it'?s|it is|it was|that'?s|actually|in fact|really)\s+)*(?P<x>.+?)[.!]*$", re.I
)
_EN_NOT_TAIL = re.compile(r"^(?P<x>.+?),\s+not\s+(?P<o>[A-Z][\w'-]*(?: [A-Z][\w'-]*)*|[\w'-]+)[.!]*$")
_ZH_NOT_IS = re.compile(r"^(?P<pre>我)?不是(?P<o>[^，,。]+)[，,]\s*(?:而)?是(?P<x>[^，,。！]+)[。！]*$")
_ZH_WRONG = re.compile(r"^(?P<o>[^，,]+)[，,]\s*(?:不对|错了|说错了|不是)[，,]\s*(?:应该|其实)?是(?P<x>[^，,。！]+)[。！]*$")
_ZH_LEAD = re.compile(r"^(?:(?:刚才|刚刚)?(?:我)?(?:说错了|搞错了|打错了|写错了|记错了)|不对(?:不对)?|更正|纠正一下|抱歉|不好意思)[，,：:。!！\s]*")
_ZH_TAIL = re.compile(r"^(?P<x>.+?)[，,]\s*(?:而)?不是(?P<o>[^，,。]+)[。！]*$")
_ZH_MEANT = re.compile(r"^(?P<own>我是说|我的意思是|我想说的是)?(?:应该是|其实是|是)?(?P<x>[^，,。！]+)[。！]*$")
_ARTICLES = {"a", "an", "the"}


@dataclass(frozen=True)
class Correction:
    """`new` replaces `old` (either may be a whole clause or just the corrected value)."""

    new: str
    old: str | None


def correction(sentence: str) -> Correction | None:
    """The correction a sentence makes, if it is one."""
    text = sentence.strip()
    if _CJK.search(text):
        lead = _ZH_LEAD.match(text)
        rest = text[lead.end():] if lead else text
        for pattern in (_ZH_NOT_IS, _ZH_WRONG):
            match = pattern.match(rest)
            if match:
                pre = match.groupdict().get("pre") or ""
                return Correction(pre + match.group("x"), pre + match.group("o"))
        match = _ZH_TAIL.match(rest)
        if match:
            return Correction(match.group("x"), match.group("o"))
        match = _ZH_MEANT.match(rest)
        if match and (lead or match.group("own")):
            return Correction(match.group("x"), None)
        return Correction(rest, None) if lead and rest else None
    for pattern in (_EN_SAID, _EN_MEANT, _EN_ITS):
        match = pattern.match(text)
        if match:
            return Correction(match.group("x").strip(), (match.group("o") or "").strip() or None)
    match = _EN_NOT_TAIL.match(text)
    if match and len(match.group("x").split()) >= 3:
        return Correction(match.group("x"), match.group("o"))
    return None


_LABEL = re.compile(r"^[^:：]{1,30}[:：]|^[" + HAN + r"]{1,6}?(?:叫|是)")


def label(text: str) -> str:
    """What an entry is about, before its value: "Sister:" of "Sister: Lea", "女儿叫" of "女儿叫豆豆"."""
    match = _LABEL.match(text)
    return match.group(0) if match else ""


def swap_value(text: str, old: str) -> str | None:
    """The entry as it read before a correction: `old` put back in place of the corrected value
    ("对虾过敏", old "对蟹" -> "对蟹过敏"; "Sister: Leonie", old "Lea" -> "Sister: Lea")."""
    if _CJK.search(old):
        at = text.find(old[0])
        return text[:at] + old + text[at + len(old):] if at >= 0 else None
    return replace_value(text, old)


def replace_value(clause: str, new: str, old: str | None = None) -> str:
    """`clause` with its value changed: `old` replaced by `new`, or else its last words/characters."""
    if old and old in clause:
        at = clause.rfind(old)
        return clause[:at] + new + clause[at + len(old):]
    if _CJK.search(clause) and not " " in clause.strip():
        return clause[: max(0, len(clause) - len(new))] + new
    words = clause.rstrip(" .!").split()
    new_words = new.split()
    if new[:1].isupper():
        count = 0
        while count < len(words) - 1 and words[-1 - count][:1].isupper():
            count += 1
        count = max(count, 1)
    else:
        count = len(new_words)
        if new_words and new_words[0].lower() in _ARTICLES and len(words) > count and words[-count].lower() not in _ARTICLES:
            count -= 1
            new = " ".join(new_words[1:])
    return " ".join(words[: len(words) - count] + [new])


_EN_PAST = re.compile(
    r"\b(?:I )?(?:used to|no longer|stopped|quit|gave up(?: on)?)\s+(?P<a>[^,.!?;]+)"
    r"|\bI(?: don'?t| do not| am not|'m not| won'?t| can'?t)\s+(?P<b>[^,.!?;]+?)\s+(?:any ?more|any longer)\b",
    re.I,
)
_ZH_PAST = re.compile(r"(?:不再|已经不|早就不)(?P<a>[^，。！,.了]{2,10})|不(?P<b>[^，。！,.了]{2,10})了|(?:以前|曾经)(?P<c>[^，。！,.]{2,12})")
_SKIP = {"my", "the", "a", "an", "to", "at", "in", "on", "job", "be", "being", "any", "more", "was", "am", "like", "really", "much", "it", "that",
         "last", "year", "years", "ago", "month", "months", "week", "weeks", "since", "school", "college", "now", "then", "day", "days", "for", "when"}
_VERBS = {"eat", "drink", "play", "smoke", "use", "take", "watch", "read", "go", "do", "make", "have", "own", "wear", "drive", "live"}
_ZH_FILLER = re.compile(r"^(?:当|做|很|也|都|经常|常常|还|是)+")
_ZH_VERB = re.compile(r"^(?:喝|吃|抽|玩|看|用|开|打)(?=[" + HAN + r"]{2})")
_WORD = re.compile(r"[a-z']+")


def retired(clause: str) -> str | None:
    """What a past-habit clause says the user no longer does ("teach", "住在广州"), or None."""
    match = (_ZH_PAST if _CJK.search(clause) else _EN_PAST).search(clause)
    if not match:
        return None
    activity = next(g for g in match.groups() if g)
    if _CJK.search(activity):
        activity = _ZH_VERB.sub("", _ZH_FILLER.sub("", activity))
        return activity if len(activity) >= 2 else None
    keys = [w for w in _WORD.findall(activity.lower()) if w not in _SKIP and len(w) >= 3]
    things = [w for w in keys if not w.endswith("ing") and w not in _VERBS]
    return " ".join(things if things and len(things) < len(keys) else keys) or None


def retires(activity: str, entry: str) -> bool:
    """Whether an entry states the activity ("teach" -> "Is a teacher", "live paris" -> "Lives in Paris")."""
    if _CJK.search(activity):
        return activity in entry
    words = _WORD.findall(entry.lower())
    return all(any(w.startswith(key[:4]) for w in words) for key in activity.split())
