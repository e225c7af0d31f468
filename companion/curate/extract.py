"""The rule path: first-person statements become entries without a model (English and Chinese)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import time
from typing import Callable

from companion.memory.records import Record
from companion.curate import corrections as C
from companion.memory import entries as E
from companion.curate import disclose, listen, slots as S
from companion.curate.dates import find_dates, resolve_moment
from companion.curate.ops import Op
from companion.memory.lang import HAN, HAN_CHAR, has_han

_SENTENCE = re.compile(r"(?<=[.!?。！？;；])\s*|\n+")
_STOP = re.compile(
    r"(?:,|，|;|；)?\s+(?:but|because|since|so|although|though|and then|which|by the way|btw|anyway|haha|lol)\b.*$"
    r"|,\s+(?:\w+ed|found|got|went|had|was|were|is|it|that|which|who|so|since|just|found out)\b.*$"
    r"|[，,](?:但|因为|所以|不过|顺便).*$",
    re.I,
)
_TEMPORAL = re.compile(r"\s+(?:(?:last|this|next) (?:week|month|year|night|weekend)|yesterday|today|tonight|tomorrow|recently|lately|now)$", re.I)
_NEGATED = {"can't": "Cannot ", "cannot": "Cannot "}
_PLEASE = re.compile(r"[, ]+please$", re.I)
_ZH_END = re.compile(r"(?:了|啦|呢|吧|哦)+$")
_ABBREV = re.compile(r"\b(St|Dr|Mr|Mrs|Ms|Prof|Jr|Sr|Mt|e\.g|i\.e|etc|vs)\.", re.I)
_DOT = "\u2024"
_CJK = HAN_CHAR
_TRAIL = " \t.,!?。！？，、;；:：\"'”"
_JOBS = (r"engineer|developer|programmer|teacher|nurse|doctor|student|designer|writer|manager|lawyer|artist|"
         r"scientist|chef|cook|accountant|researcher|architect|consultant|pharmacist|journalist|translator|"
         r"photographer|musician|farmer|driver|analyst|professor|dentist|therapist|electrician|carpenter|mechanic")
_REL = (r"wife|husband|partner|girlfriend|boyfriend|son|daughter|sister|brother|mother|mom|mum|father|dad|"
        r"best friend|friend|boss|cat|dog|grandmother|grandma|grandfather|grandpa|aunt|uncle|cousin")
_ZH_REL = "妻子|老婆|丈夫|老公|女儿|儿子|姐姐|妹妹|哥哥|弟弟|妈妈|母亲|爸爸|父亲|猫|狗|男朋友|女朋友|老板|朋友"


@dataclass(frozen=True)
class Rule:
    pattern: re.Pattern[str]
    file: str
    section: str
    render: Callable[[re.Match[str]], str]
    slot: str = ""  # entries that replace each other (an update of e.g. "Lives in ...")


def _x(match: re.Match[str], group: str = "x") -> str:
    value = _PLEASE.sub("", _STOP.sub("", match.group(group)).strip(_TRAIL))
    value = _ZH_END.sub("", _TEMPORAL.sub("", value).strip(_TRAIL))
    return disclose.whole(value)


def _place(match: re.Match[str]) -> str:
    """A home without the reason or company: "Galway for the new job" -> "Galway"."""
    return re.sub(r"\s+(?:for|because|with|since|to be|after|thanks to)\b.*$", "", _x(match), flags=re.I)


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def _rule(p: str, file: str, section: str, render: Callable[[re.Match[str]], str], slot: str = "", flags: int = re.I) -> Rule:
    return Rule(re.compile(p, flags), file, section, render, slot)


RULES: list[Rule] = [
    # who the user is
    _rule(r"(?:\b(?i:my name is|my name's)|(?:^|(?<=[-–—:,] ))(?i:name's|name is)) (?P<x>[^\W\d_][\w'-]{0,30}(?: [A-Z][\w'-]{0,30})?)", "USER.md", "Profile", lambda m: f"Name: {_x(m)}", E.NAME_SLOT, 0),
    _rule(r"\bI(?:'m| am) al+erg?ic to (?P<x>[^.!?]{2,200})|\bmy allergies(?: are)?\s*[:：]?\s*(?P<y>[^.!?]{2,200})", "USER.md", "Profile", lambda m: f"Allergic to {_x(m, 'x' if m.group('x') else 'y')}"),
    _rule(r"\bI (?:now |currently |still )?work (?P<p>as|at|for|in) (?P<x>[^.!?]{2,200})", "USER.md", "Profile", lambda m: f"Works {m.group('p').lower()} {_x(m)}", S.JOB),
    _rule(r"\bI(?:'ve| have)? (?:just )?(?:got|started|landed|accepted|found|took) (?:a |the )?(?:new )?(?:job|position|role) (?P<p>at|with|as) (?P<x>[^.!?]{2,200})", "USER.md", "Profile",
          lambda m: f"Works {'at' if m.group('p').lower() == 'with' else m.group('p').lower()} {_x(m)}", S.JOB),
    _rule(r"\bI(?:'ve| have)? (?:just )?started (?:working|to work) (?P<p>at|for|as) (?P<x>[^.!?]{2,200})", "USER.md", "Profile", lambda m: f"Works {m.group('p').lower()} {_x(m)}", S.JOB),
    _rule(r"\b(?i:my) birthday is (?:on )?(?P<x>[^.!?]{3,30})", "USER.md", "Profile", lambda m: f"Birthday: {_x(m)}", S.BIRTHDAY, 0),
    _rule(r"我的生日是(?P<x>[^，。！？,.!?]{2,12})", "USER.md", "Profile", lambda m: f"生日：{_x(m)}", S.BIRTHDAY, 0),
    _rule(r"\bI (?:can )?speak (?P<x>[A-Z][^.!?]{2,200})", "USER.md", "Profile", lambda m: f"Speaks {_x(m)}", "", 0),
    _rule(r"\bI have (?P<x>(?:a|an|one|two|three|four|five|six|\d+) (?:[\w-]+ ){0,2}(?:kid|child|children|son|daughter|cat|dog|pet|sibling|brother|sister|grandchild|grandchildren|grandkid|horse|rabbit|parrot|hamster|garden|car|bike)s?)\b(?! (?:named|called))", "USER.md", "Profile", lambda m: f"Has {_x(m)}"),
    _rule(r"\bI(?:'m| am)(?: now)?(?: happily)? (?P<x>married|engaged|divorced|single|widowed|retired)\b|\bI (?:just |recently )?got (?P<y>married|engaged|divorced)\b", "USER.md", "Profile",
          lambda m: f"Is {(m.group('x') or m.group('y')).lower()}", S.MARITAL),
    _rule(r"\bI (?:now )?(?P<x>[a-z]+) for a living\b", "USER.md", "Profile", lambda m: f"{_cap(disclose.third_verb(m.group('x')))} for a living", S.JOB),
    _rule(r"\bI(?:'m| am) (?P<x>(?:an? )?(?:[\w-]+ ){0,2}(?:" + _JOBS + r"))s?\b(?P<w> (?:at|in|for|with|on) [^.!?,;]{2,60})?", "USER.md", "Profile",
          lambda m: (f"Is {_x(m)}" if _x(m).lower().startswith(("a ", "an ")) else f"Is a {_x(m)}") + (f" {_x(m, 'w')}" if m.group("w") else ""), S.JOB),
    _rule(r"\bI(?:'m| am|'ve been| have been) (?:now )?(?:an? )?(?P<x>vegetarian|vegan|pescatarian)\b", "USER.md", "Profile", lambda m: f"Is a {_x(m).lower()}", S.DIET),
    _rule(r"\b(?:I|we)(?: now| currently| still)?(?: live|'m living| am living|'m now living| am now living|'re living| are living) in (?P<x>[^.!?]{2,200})", "USER.md", "Profile", lambda m: f"Lives in {_place(m)}", S.HOME),
    _rule(r"\b(?:I|we)(?:'ve| have)? (?:just |recently |finally )?(?:moved|relocated) (?:from [^.!?]{2,40}? )?to (?P<x>[^.!?]{2,200})", "USER.md", "Profile", lambda m: f"Lives in {_place(m)}", S.HOME),
    # negations keep their "not"
    _rule(r"\bI (?P<n>don't|do not|never|can't|cannot) (?P<v>eat|drink|smoke|own|drive|watch|use|wear|read|play|have|take|cook|buy|gamble|vape)(?:[.!]?$|(?P<x> [^.!?]{2,200}))", "USER.md", "Preferences",
          lambda m: f"{_NEGATED.get(m.group('n').lower(), 'Does not ') if m.group('n').lower() != 'never' else 'Never '}{disclose.third_verb(m.group('v')) if m.group('n').lower() == 'never' else m.group('v')}" + (f" {_x(m)}" if m.group("x") else "")),
    _rule(r"^(?:please,? )?(?P<x>(?:stop|quit) (?:using|saying|calling|sending|adding|asking|mentioning) [^.!?]{2,200}|(?:don't|do not) (?:use|say|call|send|add|mention) [^.!?]{2,200})",
          "USER.md", "Instructions", lambda m: _cap(_x(m))),
    _rule(r"\b(?i:(?:please )?call me |(?:everyone|everybody|people|friends|they|most people) calls? me )(?!(?i:back|later|tomorrow|tonight|today|when|if|at|on|in)\b)(?P<x>[A-Z][\w'-]{1,30})\b", "USER.md", "Profile", lambda m: E.name_entry(_x(m)), E.NAME_SLOT, 0),
    _rule(r"(?:以后|今后)?(?:请|你)?(?:就)?叫我(?P<x>(?:小|老|阿)[" + HAN + r"]{1,2}|[" + HAN + r"]{2,3}(?=吧|就好|就行)|[A-Z][a-z]{1,20}(?![A-Za-z]))", "USER.md", "Profile", lambda m: E.name_entry(_x(m)), E.NAME_SLOT, 0),
    _rule(r"\bI(?i:'m| am) (?i:from) (?P<x>[A-Z][^.!?]{1,60})", "USER.md", "Profile", lambda m: f"From {_x(m)}", "", 0),
    _rule(r"\b(?i:my (?P<r>" + _REL + r")(?:'s name)? is (?:called |named )?)(?P<x>[A-Z][\w'-]{1,30})", "USER.md", "Profile", lambda m: f"{_cap(m.group('r').lower())}: {_x(m)}", "", 0),
    _rule(r"\b(?i:(?:I|we) have an? (?P<r>" + _REL + r") (?:named|called) )(?P<x>[A-Z][\w'-]{1,30})", "USER.md", "Profile", lambda m: f"{_cap(m.group('r').lower())}: {_x(m)}", "", 0),
    # likes and dislikes
    _rule(r"\bI (?:really |absolutely )?(?:love|like|enjoy|adore)(?! to talk| you| it| that| this)(?P<x> [^.!?]{2,200})", "USER.md", "Preferences", lambda m: f"Likes {_x(m)}"),
    _rule(r"\bI(?:'m| am) (?:a )?(?:big |huge )?fan of (?P<x>[^.!?]{2,200})", "USER.md", "Preferences", lambda m: f"Likes {_x(m)}"),
    _rule(r"\bI(?:'m| am) not (?:a |really a |much of a )?(?:big |huge )?fan of (?P<x>[^.!?]{2,200})", "USER.md", "Preferences", lambda m: f"Dislikes {_x(m)}"),
    _rule(r"\b(?i:my) (?:all-time )?favou?rite (?P<k>[a-z][\w -]{1,30}?) (?:is|are) (?P<x>[^.!?]{2,200})", "USER.md", "Preferences", lambda m: f"Favourite {m.group('k').lower()}: {_x(m)}", "", 0),
    _rule(r"\bI play (?!it\b|along\b|dumb\b|safe\b|nice\b|games with\b)(?P<x>(?:the )?[a-z][^.!?]{2,200})", "USER.md", "Preferences", lambda m: f"Plays {_x(m)}", "", 0),
    _rule(r"\bI (?:really )?(?:hate|dislike|can't stand|cannot stand|don't (?:really |particularly )?like|do not (?:really )?like)(?! you| it| that| this)(?P<x> [^.!?]{2,200})", "USER.md", "Preferences", lambda m: f"Dislikes {_x(m)}"),
    _rule(r"\bI prefer (?P<x>[^.!?]{2,200})", "USER.md", "Preferences", lambda m: f"Prefers {_x(m)}"),
    # instructions to the companion
    _rule(r"^(?:please,? )?(?P<x>(?:always|never|don't ever|do not ever) [^.!?]{3,120})", "USER.md", "Instructions", lambda m: _cap(_x(m))),
    _rule(r"\bfrom now on,? (?:please )?(?!call me\b)(?P<x>[^.!?]{3,120})", "USER.md", "Instructions", lambda m: _cap(_x(m))),
    _rule(r"^(?:please,? )?(?P<x>(?:keep|be|use|answer|reply|write|talk|speak|call|stop|avoid|don't|do not|always|never)\b[^.!?]{3,100}?)"
          r",? (?:from now on|going forward|in (?:the )?future)\b", "USER.md", "Instructions", lambda m: _cap(_x(m))),
    # persona changes (SOUL)
    _rule(r"\b(?:call yourself|your name (?:is|should be|will be)|I'?ll call you) (?P<x>[^\W\d_][\w'-]{0,30})", "SOUL.md", "Identity", lambda m: f"Name: {_x(m)}", E.NAME_SLOT),
    _rule(r"\b(?:please |can you |could you )?(?P<x>be (?:more|less) [a-z]+|(?:talk|speak|reply|answer|write) (?:more |less )?[a-z]+ly)\b", "SOUL.md", "Style", lambda m: _cap(_x(m))),
    # memory: decisions, corrections, interests, events
    _rule(r"\bI(?:'ve| have)? decided (?:to )?(?P<x>[^.!?]{3,120})", "MEMORY.md", "Decisions", lambda m: f"Decided to {_x(m)}"),
    _rule(r"\bI(?:'m| am) (?:interested in|into|learning(?! to\b| how\b)|studying|reading about) (?P<x>[^.!?]{2,200})", "MEMORY.md", "Topics & Interests", lambda m: f"Interested in {_x(m)}"),
    # Chinese
    _rule(r"我(?:的名字)?叫(?P<x>[" + HAN + r"]{1,4}|[A-Za-z]{1,20})(?![" + HAN + r"A-Za-z])", "USER.md", "Profile", lambda m: E.name_entry(_x(m)), E.NAME_SLOT, 0),
    _rule(r"我(?:是)?对(?P<x>[^，。！？,.!?]{1,20})过敏", "USER.md", "Profile", lambda m: f"对{_x(m)}过敏", "", 0),
    _rule(r"我(?:现在)?是(?:一名|一个|一位|个)?(?P<x>[^，。！？,.!?]{0,8}(?:工程师|老师|教师|学生|医生|护士|程序员|设计师|律师|作家|经理|厨师|会计|研究员|翻译|记者|司机|警察|销售))", "USER.md", "Profile", lambda m: f"是{_x(m)}", S.JOB, 0),
    _rule(r"我(?:们)?(?:已经|刚|刚刚|最近)?(?:从|由)?(?:[^，。！？,.!?]{1,12})?搬(?:到|去)了?(?P<x>[^，。！？,.!?了]{1,20})", "USER.md", "Profile", lambda m: f"住在{_x(m)}", S.HOME, 0),
    _rule(r"我(?P<n>从不|从来不|不)(?P<v>吃|喝|抽|开|看|用|穿|玩)(?P<x>[^，。！？,.!?]{1,20})", "USER.md", "Preferences", lambda m: f"{m.group('n')}{m.group('v')}{_x(m)}", "", 0),
    _rule(r"我(?:现在)?住在(?P<x>[^，。！？,.!?]{1,20})", "USER.md", "Profile", lambda m: f"住在{_x(m)}", S.HOME, 0),
    _rule(r"我(?:现在)?在(?P<x>[^，。！？,.!?]{1,20})(?:工作|上班)", "USER.md", "Profile", lambda m: f"在{_x(m)}工作", S.JOB, 0),
    _rule(r"我的?(?P<r>" + _ZH_REL + r")叫(?P<x>[" + HAN + r"A-Za-z]{1,12})", "USER.md", "Profile", lambda m: f"{m.group('r')}叫{_x(m)}", "", 0),
    _rule(r"我的(?P<k>爱好|兴趣|特长|兴趣爱好)(?:是|[：:])(?P<x>[^。！？!?]{1,40})", "USER.md", "Preferences", lambda m: f"{m.group('k')}：{_x(m)}", "", 0),
    _rule(r"我(?:很)?喜欢的(?:东西|事情?|食物|运动|音乐|颜色)(?:是|有|[：:])(?P<x>[^。！？!?]{1,40})", "USER.md", "Preferences", lambda m: f"喜欢{_x(m)}", "", 0),
    _rule(r"我最喜欢的(?P<k>[^，。！？,.!?是]{1,10})是(?P<x>[^，。！？,.!?]{1,20})", "USER.md", "Preferences", lambda m: f"最喜欢的{m.group('k')}是{_x(m)}", "", 0),
    _rule(r"我(?:很|非常|特别|最)?(?:喜欢|爱吃|爱)(?!的|你|这|那|它)(?P<x>[^，。！？,.!?]{1,30})", "USER.md", "Preferences", lambda m: f"喜欢{_x(m)}", "", 0),
    _rule(r"我(?:会说|会讲|说)(?P<x>[^，。！？,.!?]{1,12}?(?:语|话|文))", "USER.md", "Profile", lambda m: f"会说{_x(m)}", "", 0),
    _rule(r"我有(?P<x>(?:一|两|二|三|四|五|六|\d+)(?:个|只|条|位|辆|匹)[^，。！？,.!?]{0,6}?(?:孩子|儿子|女儿|猫|狗|宠物|兄弟|姐妹|孙子|孙女|车))", "USER.md", "Profile", lambda m: f"有{_x(m)}", "", 0),
    _rule(r"我(?:现在)?(?:是|吃)(?P<x>素食者|素食主义者|素)(?![" + HAN + r"])", "USER.md", "Profile", lambda m: "是素食者" if _x(m) != "素" else "吃素", S.DIET, 0),
    _rule(r"我(?:一点[也都]|并|真的|根本|实在)?(?P<n>不太喜欢|不喜欢|讨厌|不爱)(?P<x>[^，。！？,.!?]{1,30})", "USER.md", "Preferences", lambda m: f"{'不太喜欢' if m.group('n') == '不太喜欢' else '不喜欢'}{_x(m)}", "", 0),
    _rule(r"^(?:请你?)?(?:以后|总是|永远)(?:请你?)?(?!(?:就)?叫我)(?P<x>[^。！？!?]{2,60})", "USER.md", "Instructions", lambda m: f"以后{_x(m)}", "", 0),
    _rule(r"(?:你就叫|就叫你|你的名字叫)(?P<x>[" + HAN + r"A-Za-z]{1,12})", "SOUL.md", "Identity", lambda m: f"Name: {_x(m)}", E.NAME_SLOT, 0),
    _rule(r"(?P<x>(?:说话|回答|回复)(?:要|请)?(?:更|再)?(?:简洁|简短|详细|正式|随意|幽默)一?(?:点|些)?)", "SOUL.md", "Style", lambda m: _x(m), "", 0),
    _rule(r"我决定(?P<x>[^。！？!?]{2,60})", "MEMORY.md", "Decisions", lambda m: f"决定{_x(m)}", "", 0),
    _rule(r"我(?:在学|正在学)(?P<x>[^，。！？,.!?]{1,20})", "MEMORY.md", "Topics & Interests", lambda m: f"在学{_x(m)}", "", 0),
    _rule(r"我对(?P<x>[^，。！？,.!?]{1,20})感兴趣", "MEMORY.md", "Topics & Interests", lambda m: f"对{_x(m)}感兴趣", "", 0),
]

SLOTS = frozenset(rule.slot for rule in RULES if rule.slot) | S.ALL
slot_matches = S.matches
slot_of = S.slot_of


_NO_PLAN = re.compile(r"\b(?:no idea|not sure|wonder|don'?t know|can'?t decide)\b|不知道|没想好", re.I)
_PLAN_EN = re.compile(
    r"^(?:so |and |well,? |oh,? )?(?:I(?:'ve| have)(?: got)?|I(?:'m| am) (?:going to|gonna|having|meeting|seeing|flying|visiting|leaving|starting)|"
    r"I(?:'ll| will)|I need to|I have to|I must|we(?:'re| are) (?:going to|having|meeting|visiting)|my [\w ]{2,30} is|"
    r"(?:I|we) (?:had|went|saw|met|visited|finished|started|passed|moved|bought|flew))\b",
    re.I,
)
_PLAN_LEAD = re.compile(
    r"^(?:so |and |well,? |oh,? )?(?:I(?:'ve| have)(?: got)?|I(?:'ll| will)|I need to|I have to|I must|I had(?: to)?|I(?:'m| am)|we(?:'re| are)|I|we)\s+(?:an? |my |the )?",
    re.I,
)
_PLAN_TAIL = re.compile(r"\s+(?:and|but|so|then|and then)(?:\s+(?:it\s+)?turns? out)?\s*$|\s+(?:and\s+)?(?:it\s+)?turns? out\s*$", re.I)
_DATE_WORDS = re.compile(r"\s*\b(?:on|this|next|at|by)\s*$", re.I)


def _plan(sentence: str, record: Record) -> Op | None:
    if listen.habitual(sentence) or _NO_PLAN.search(sentence):  # "choir on Tuesday evenings" recurs: it is no one date
        return None
    found = find_dates(sentence, record.day)
    if not found:
        return None
    zh = has_han(sentence)
    if zh:
        if "我" not in sentence or not re.search(r"要|得|会|打算|准备|约|有", sentence):
            return None
    elif not _PLAN_EN.search(sentence):
        return None
    when = found[0].when
    moment = resolve_moment(sentence, record.timestamp)  # "on December 10 at 9am": the time is kept too
    spans = [(found[0].start, found[0].end)]
    at = None
    if moment is not None and len(moment[2]) == 2 and moment[0] == when:
        at, spans = moment[1], moment[2]
    what = sentence
    for start, end in sorted(spans, reverse=True):
        what = _DATE_WORDS.sub("", what[:start]) + what[end:]
    if zh:
        what = re.sub(r"^(?:我们|我)?(?:要|得|会|打算|准备)?", "", what.replace("我", "", 1)).strip(_TRAIL)
    else:
        what = _PLAN_LEAD.sub("", what.strip()).strip(_TRAIL)
        what = _PLAN_TAIL.sub("", re.sub(r"\s{2,}", " ", what))
    if len(what) < (2 if zh else 3):  # "开会" says it in two characters
        return None
    section = "Upcoming" if when >= record.day else "Timeline"
    clock = time(at.hour, at.minute) if at is not None else None
    entry = E.Entry.timed(when, clock, _cap(what.replace(_DOT, ".")))
    return Op("add", "MEMORY.md", section, entry.text, [record.id], origin="rule")


_QUOTED = re.compile(r"\"[^\"]*\"|“[^”]*”|「[^」]*」|『[^』]*』|‘[^’]*’|(?<![\w])'[^']*'(?![\w])")
_REPORTED = re.compile(
    r"\b(?:said|says|wrote|writes|told|tells|asked|asks|replied|read|reads|posted|texted)\b[^:：]*[:：].*$"
    r"|\b(?:you|he|she|they) (?:said|say|told me|tell me|think|thought|mentioned|claimed|claim)\b.*$"
    r"|(?:说|写道|告诉[^:：]{0,10}|问)[:：].*$|(?<![跟和给对])你(?:说过|说|提到过?)[^。！？]*",
    re.I,
)


MAX_RULE_CHARS = 8000  # statements about oneself come early; a pasted document would take seconds per night


def own_words(text: str) -> str:
    """The text without quotations and reported speech ("she said: ..."): only what the user
    says in their own voice can change their profile or the companion's persona."""
    return _REPORTED.sub("", _QUOTED.sub(" ", text)).strip()


_CHAT_SPELLING = {"im": "I'm", "ive": "I've", "dont": "don't", "cant": "can't", "doesnt": "doesn't", "didnt": "didn't",
                  "wont": "won't", "isnt": "isn't", "arent": "aren't", "wasnt": "wasn't", "ill": "I'll", "id": "I'd"}
_CHAT_WORD = re.compile(r"(?<![\w'’])(?:im|ive|dont|cant|doesnt|didnt|wont|isnt|arent|wasnt)(?= [a-z])|(?<![\w'’])i(?=['’ ])")


def chat_spelling(text: str) -> str:
    """Chat spelling read as written out: "im alergic" -> "I'm alergic", "i dont" -> "I don't"."""
    return _CHAT_WORD.sub(lambda m: "I" if m.group(0) == "i" else _CHAT_SPELLING[m.group(0)], text)


def sentences(text: str) -> list[str]:
    protected = _ABBREV.sub(lambda m: m.group(0)[:-1] + _DOT, text)
    return [s.strip() for s in _SENTENCE.split(protected) if s and s.strip()]


_CLAUSE_EN = re.compile(
    r"(?:[,;]\s*(?:(?:and|but|so|also|plus|and also|while|though)\s+)?|\s+(?:and|but|so|also|plus|and also|while|though)\s+)"
    r"(?=(?:I|I'm|I've|I'd|I'll|my|we)\b)"
)
_CLAUSE_ZH = re.compile(r"[，,；;：:]\s*(?:而且|并且|还有|但是|不过|可是|所以|同时)?")
# "Just moved to Galway": chat drops the "I" before a verb in the past (an imperative would be a request)
_SUBJECTLESS = re.compile(r"^(?P<lead>(?:(?:so|and|btw|oh|also|update|news|big news)[,:!]?\s+)*)(?=(?:just |recently |finally )?"
                          r"(?:moved|relocated|started|began|joined|quit|left|switched|became|got (?:a|married|engaged|divorced)|adopted)\b)", re.I)
_ZH_LABEL = re.compile(r"(我的?(?:爱好|兴趣|特长|兴趣爱好)|我(?:很|最)?喜欢的[" + HAN + r"]{1,4})\s*[：:]")
_SELF_LIST = re.compile(r"^(?:(?:a few|some|quick|random)\s+)?(?:things|facts|notes)?\s*(?:about me|intro(?:duction)?)\s*[:：\-–—]\s*(?P<items>.+)$", re.I)
_ITEM = re.compile(r"\s*(?:\d[).]|[;•]|,\s*(?:and\s+)?|\s-\s)\s*")
# a clause that comments on the one before it ("特别是秋天", "尤其是晚上") has no predicate about the user
_ZH_ASIDE = re.compile(r"^(?:特别是|尤其是?|比如|例如|就是|因为|所以|但是?|不过|而且|还是|或者|可是|然后|其实|反正|毕竟|真|太|好|挺)")
_DIET_WORD = re.compile(r"vegetarian|vegan|pescatarian|素食|吃素|^素$", re.I)
_CJK_SPACE = re.compile(r"(?<=[" + HAN + r"])\s+(?=[" + HAN + r"])")
_ZH_NAMED = re.compile(r"^(?:它|他|她)?(?:的名字)?(?:名字)?叫(?P<x>[" + HAN + r"A-Za-z]{1,8})$")
_ZH_INTRODUCED = re.compile(r"(?:养|有)了?(?:一|两|二|三|[0-9]+)(?:只|条|个|匹|头)(?P<n>[" + HAN + r"]{1,3})$")
_QUESTION = re.compile(r"[?？]\s*$")
_ASKING = re.compile(r"^(?:do|does|did|is|are|am|can|could|would|will|should|shall|what|how|why|where|who|when|which|have you|has|was|were|isn't|aren't|don't)\b"
                     r"|^(?:你|您|是不是|有没有|能不能|可不可以)|[吗呢]", re.I)
# An instruction speaks to the companion: "Never use emoji", "Always answer in French"; "Never been to Japan" does not.
_ADDRESSED = re.compile(
    r"^(?:please,? )?(?:always|never|don't ever|do not ever|don't|do not|stop|quit|from now on|keep|be|use|answer|reply|write|talk|speak|call|avoid)"
    r",?\s+(?:please\s+)?(?:use|say|call|send|add|mention|answer|reply|respond|write|talk|speak|give|tell|ask|remind|suggest|recommend|show|start|"
    r"end|include|bring|put|make|be|assume|correct|apologi[sz]e|explain|sign|greet|translate|format|list|swear|curse|using|saying|calling|sending|"
    r"adding|asking|mentioning|it|me|my|with|in|to|more|less|short|brief|concise|formal|casual|emojis?|[a-z]+ly)\b"
    r"|\b(?:from now on|going forward|in (?:the )?future)\b|[" + HAN + r"]",
    re.I,
)
_POLITE = re.compile(r"^(?:could|can|would|will) you(?: please)?,?\s+(?=(?:please )?(?:keep|be|use|answer|reply|write|talk|speak|call|stop|avoid|always|never)\b)(?P<rest>.*?)\s*\?\s*$", re.I)
MAX_STANDING_SENTENCES = 6  # a longer message is a paste, not a request about how to behave


def clauses(sentence: str) -> list[str]:
    """A compound statement split where a new subject starts ("I live in Lyon and I work as a baker").
    A Chinese clause without a subject belongs to the subject before it: "我养了猫，叫咪咪" names the cat,
    "我爸爸退休了，住在西安" is the father's home, "我叫王芳，住在南京" the user's."""
    if not _CJK.search(sentence):
        listed = _SELF_LIST.match(sentence)
        if listed:  # "About me: 1) nurse 2) live in Leeds 3) two kids": each item is the user's
            return [disclose.self_item(item) for item in _ITEM.split(listed.group("items")) if item.strip(" ,;.")]
        parts = [_SUBJECTLESS.sub(r"\g<lead>I ", p.strip()) for p in _CLAUSE_EN.split(sentence) if p and p.strip()]
        return parts or [sentence]
    sentence = _ZH_LABEL.sub(r"\1是", _CJK_SPACE.sub("，", sentence))  # "我的爱好：游泳" is one statement
    parts = [p.strip(" \t。！!") for p in _CLAUSE_ZH.split(sentence) if p and p.strip(" \t。！!")]
    result: list[str] = []
    speaker: str | None = None  # "self", "other" or unknown
    for part in parts:
        subject = _subject(part)
        named = _ZH_NAMED.match(part)
        introduced = _ZH_INTRODUCED.search(result[-1]) if result else None
        if named and introduced and speaker == "self":
            part = f"我的{introduced.group('n')}叫{named.group('x')}"
        elif subject is None and speaker == "self" and _CJK.match(part) and not _ZH_ASIDE.match(part):
            part = "我" + part
        elif subject is not None:
            speaker = subject
        result.append(part)
    return result


def _subject(part: str) -> str | None:
    """Who a clause is about, when it says: the user ("我", "I", "we"), someone else, or None (no subject)."""
    if listen.other_subject(part):
        return "other"
    if re.match(r"^(?:(?:so|and|btw|but|also|honestly|oh)[, ]+)*(?:I|i|I'm|I've|we|We|my|My)\b|^我", part) or re.search(r"^[^，,]{1,8}我[^们的]", part):
        return "self"
    if re.match(r"^(?:你|您|他|她|它|这|那|[A-Z][a-z]+ (?:is|was|has|likes|lives|works))", part):
        return "other"
    return None


def _rule_ops(clause: str, record: Record, standing: bool) -> list[Op]:
    ops = []
    for rule in RULES:
        if not standing and (rule.file == "SOUL.md" or rule.section == "Instructions"):
            continue
        match = rule.pattern.search(clause)
        if match and not (rule.section == "Instructions" and not _ADDRESSED.search(clause)):
            text = rule.render(match).replace(_DOT, ".").strip(_TRAIL)
            if rule.section != "Instructions" and rule.file != "SOUL.md" and not _CJK.search(text):
                text = disclose.third_person(text)  # a note about the user: "with their girlfriend Lea"
            if text:
                ops.append(Op("update" if rule.slot else "add", rule.file, rule.section, text, [record.id], old=rule.slot, origin="rule"))
    if ops or listen.other_subject(clause):
        return ops
    heard = disclose.chinese(clause) if "我" in clause[:8] else disclose.english(clause) if not _CJK.match(clause) else []
    return [Op("update" if h.slot else "add", h.file, h.section, h.text.replace(_DOT, "."), [record.id], old=h.slot, origin="rule")
            for h in heard if h.text]


def _same_kind(a: Op, b: Op) -> bool:
    """Two entries about the same thing: one slot ("Lives in"), or one label ("Sister:", "女儿叫")."""
    return a.file == b.file and (bool(a.old) and a.old == b.old or bool(C.label(a.text)) and C.label(a.text) == C.label(b.text))


class _Listener:
    """Reads one user's statements in order, remembering recent ones so a later correction finds them."""

    def __init__(self, standing: bool = True) -> None:
        self.recent: list[tuple[str, list[Op]]] = []
        self.standing = standing

    def statement_ops(self, clause: str, record: Record) -> list[Op]:
        ops = _rule_ops(clause, record, self.standing)
        if ops:
            self.recent.append((clause, ops))
        return ops

    def correct(self, fix: C.Correction, record: Record) -> list[Op]:
        new_ops = _rule_ops(fix.new, record, self.standing)
        base: tuple[str, list[Op]] | None = None
        if fix.old:
            old_ops = _rule_ops(fix.old, record, self.standing)
            base = (fix.old, old_ops) if old_ops else next(((c, o) for c, o in reversed(self.recent) if fix.old in c), None)
        elif self.recent:
            base = self.recent[-1]
        if not new_ops and base is not None:
            new_ops = _rule_ops(C.replace_value(base[0], fix.new, fix.old if base[0] != fix.old else None), record, self.standing)
        result = []
        for op in new_ops:
            said_wrong = base is not None and base[0] == fix.old  # "I said my sister is Lea, but ..."
            old = next((o.text for o in (base[1] if base else []) if o.text != op.text and (_same_kind(o, op) or said_wrong and o.file == op.file)), "")
            if not old and fix.old and not _rule_ops(fix.old, record, self.standing):
                old = C.swap_value(op.text, fix.old) or ""
            result.append(Op("update", op.file, op.section, op.text, op.sources, old=old or op.old or C.label(op.text), origin="rule"))
        if result:
            self.recent.append((fix.new, result))
        elif fix.old and base is None:  # "I meant Dublin, not Dundee": the entry naming Dundee, wherever it is
            new, old = fix.new.strip(_TRAIL), fix.old.strip(_TRAIL)
            result = [Op("revalue", "USER.md", "", new, [record.id], old=old, origin="rule"),
                      Op("revalue", "MEMORY.md", "Corrections", new, [record.id], old=old, origin="rule")]
        return result

    def read(self, record: Record) -> list[Op]:
        text = chat_spelling(own_words(listen.own_part(record.text[:MAX_RULE_CHARS])))
        said = sentences(text)
        standing = self.standing
        self.standing = standing and len(said) <= MAX_STANDING_SENTENCES
        mocking = listen.sarcastic(text)
        ops: list[Op] = []
        for sentence in said:
            sentence = _POLITE.sub(lambda m: m.group("rest"), sentence)  # "Could you please keep it short?" asks for something
            if _QUESTION.search(sentence):  # "I live in Leeds now, any tips for the rain?": the statement before the question
                head = re.split(r"\s*[,，]\s*(?=[^,，]*$)", sentence, maxsplit=1)
                sentence = head[0] if len(head) == 2 and not _ASKING.match(head[0]) else ""
            if not sentence or listen.sarcastic(sentence):
                continue
            ops.extend(self._sentence(sentence, record))
        self.standing = standing
        return [op for op in ops if not (mocking and op.section == "Preferences")]

    def _sentence(self, sentence: str, record: Record) -> list[Op]:
        fix = C.correction(sentence)
        if fix is not None and not listen.hedged(sentence):
            return self.correct(fix, record)
        ops: list[Op] = []
        before = ""
        for clause in clauses(sentence):
            scope = before + " " + clause
            before = scope
            if listen.hedged(scope) or listen.hypothetical(scope):
                continue
            if C.quits_job(clause):  # "I quit my job", "我辞职了": whatever the job was, it is over
                ops.append(Op("retire", "USER.md", "", "the job", [record.id], old=S.JOB, origin="rule"))
                continue
            activity = C.retired(clause)
            if activity is not None or listen.past_habit(clause):
                if activity:
                    ops.extend(Op("retire", f, "", activity, [record.id], old=activity, origin="rule") for f in ("USER.md", "MEMORY.md"))
                    if _DIET_WORD.search(activity):  # "not vegetarian anymore" also retires "是素食者"
                        ops.append(Op("retire", "USER.md", "", activity, [record.id], old=S.DIET, origin="rule"))
                continue
            found = self.statement_ops(clause, record)
            ops.extend(found)
            plan = None if any(op.file == "USER.md" for op in found) else _plan(clause, record)  # a birthday is no event
            if plan is not None and not (found and plan.text.endswith(found[-1].text)):
                ops.append(plan)
        return ops


def extract(records: list[Record], context: list[Record] | None = None) -> list[Op]:
    """Ops from the user's own statements, in the order they were said. `context`: earlier records
    (not extracted again) that a correction in `records` may refer to."""
    listener = _Listener()
    for record in context or []:
        if record.role == "user":
            listener.read(record)
    ops: list[Op] = []
    for record in records:
        if record.role == "user":
            ops.extend(listener.read(record))
    return ops
