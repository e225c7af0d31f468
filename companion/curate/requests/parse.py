"""Read requests honoured by rule, without the model: "remember ...", "forget ...", "remind me ...", bootstrap answers."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, time

from companion.curate.dates import find_dates, resolve_moment
from companion.memory.entries import Entry
from companion.memory.lang import HAN

_TRAIL = " \t.!。！?？"

_REMEMBER = [
    re.compile(r"^\s*(?:please\s+|pls\s+)?(?:remember|note down|keep in mind|don'?t forget)(?:\s+that)?\s*[:,]?\s+(?P<fact>.+)$", re.I | re.S),
    re.compile(r"^\s*(?:请你?|麻烦你?)?(?:记住|记一下|记下|帮我记住|帮我记一下)\s*[:：,，]?\s*(?P<fact>.+)$", re.S),
]
_FORGET = [
    re.compile(r"^\s*(?:please\s+)?forget(?:\s+that|\s+about)?\s*[:,]?\s+(?P<what>.+)$", re.I | re.S),
    re.compile(r"^\s*(?:请你?)?(?:忘记|忘掉|忘了|别再记得|不要记得)\s*[:：,，]?\s*(?P<what>.+)$", re.S),
]
_USER_NAME = [
    re.compile(r"\b(?:my name is|my name's|i am called|i'm called|call me)\s+(?P<name>[^\W\d_][\w'-]{0,30})", re.I),
    re.compile(r"(?:我叫|我的名字是|叫我)\s*(?P<name>[" + HAN + r"A-Za-z]{1,12})"),
]
_COMPANION_NAME = [
    re.compile(r"\b(?:call yourself|your name (?:is|should be|will be)|i'?ll call you|i will call you|name you)\s+(?P<name>[^\W\d_][\w'-]{0,30})", re.I),
    re.compile(r"(?:你就叫|就叫你|你叫|你的名字是|你的名字叫)\s*(?P<name>[" + HAN + r"A-Za-z]{1,12})"),
]
_STYLES: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"\b(concise|brief|short|to the point|succinct)\b|简洁|简短|简单点", re.I), "Keep replies short and to the point."),
    (re.compile(r"\b(detailed|in depth|thorough|long answers)\b|详细", re.I), "Give detailed, thorough answers."),
    (re.compile(r"\b(casual|relaxed|informal|friendly|chill)\b|轻松|随意|友好", re.I), "Be casual and friendly."),
    (re.compile(r"\b(formal|professional|polite)\b|正式|礼貌", re.I), "Be formal and polite."),
    (re.compile(r"\b(funny|humou?r|jokes?|playful)\b|幽默|有趣", re.I), "Use some humour."),
]
STYLES_ZH = {  # the same styles for a persona written in Chinese
    "Keep replies short and to the point.": "回答简短，直奔主题。",
    "Give detailed, thorough answers.": "回答详细、周全。",
    "Be casual and friendly.": "轻松随意，友好亲切。",
    "Be formal and polite.": "正式、有礼貌。",
    "Use some humour.": "带一点幽默。",
}
_USE = [
    re.compile(r"\b(?:help me (?:with|to)|i want (?:you )?to use you (?:for|to)|use you (?:for|to)|i need help with)\s+(?P<use>[^.!?\n]{3,120})", re.I),
    re.compile(r"(?:帮我|帮助我|我想用你来?)(?P<use>[^。！？\n]{2,60})"),
]
_FIRST_PERSON = [
    (re.compile(r"\bI am\b|\bI'm\b", re.I), "the user is"),
    (re.compile(r"\bmy\b", re.I), "the user's"),
    (re.compile(r"\bmine\b", re.I), "the user's"),
    (re.compile(r"\bme\b", re.I), "the user"),
    (re.compile(r"\bI\b"), "the user"),
    (re.compile(r"我的"), "用户的"),
    (re.compile(r"我(?!们)"), "用户"),  # "我们" (we) stays: the household, not the user alone
]


@dataclass(frozen=True)
class MemoryRequest:
    kind: str  # "remember" | "forget"
    text: str  # in the third person ("The user's sister is Lea"), or what to forget
    said: str = ""  # the fact in the user's own words ("my sister is Lea")

    @property
    def forgets(self) -> str | None:
        """What a "forget" names (the window offers to erase it everywhere); None for "remember"."""
        return self.text if self.kind == "forget" else None


def _clean(text: str) -> str:
    return text.strip().strip(_TRAIL).strip()


_AGREE = re.compile(
    r"\b(the user) (like|love|live|work|want|need|prefer|hate|enjoy|play|speak|go|study|drink|eat|read|watch|own|use|"
    r"teach|run|cook|write|know|think|feel|plan|hope)\b",
    re.I,
)


def third_person(fact: str) -> str:
    """'my sister is Lea' -> 'the user's sister is Lea', 'I like tea' -> 'the user likes tea'."""
    for pattern, replacement in _FIRST_PERSON:
        fact = pattern.sub(replacement, fact)
    fact = re.sub(r"\b(the user) have\b", r"\1 has", fact, flags=re.I)
    fact = re.sub(r"\b(the user) (go)\b", r"\1 goes", fact, flags=re.I)
    fact = _AGREE.sub(lambda m: f"{m.group(1)} {m.group(2)}s" if m.group(2).lower() != "go" else m.group(0), fact)
    fact = fact.strip()
    return fact[:1].upper() + fact[1:] if fact else fact


def memory_request(message: str) -> MemoryRequest | None:
    """An explicit remember/forget request at the start of the message, if any."""
    for pattern in _REMEMBER:
        match = pattern.match(message)
        if match:
            fact = _clean(match.group("fact"))
            return MemoryRequest("remember", third_person(fact), fact) if fact else None
    for pattern in _FORGET:
        match = pattern.match(message)
        if match:
            what = _clean(match.group("what"))
            return MemoryRequest("forget", what) if what else None
    return None


@dataclass(frozen=True)
class BootstrapAnswers:
    user_name: str | None = None
    companion_name: str | None = None
    styles: tuple[str, ...] = ()
    use: str | None = None

    def any(self) -> bool:
        return bool(self.user_name or self.companion_name or self.styles or self.use)


def _first(patterns: list[re.Pattern[str]], text: str, group: str) -> str | None:
    for pattern in patterns:
        match = pattern.search(text)
        if match:
            value = _clean(match.group(group))
            if value:
                return value
    return None


_PARTICLES = re.compile(r"[吧啊呀呢哦嘛]+$")


def _name(patterns: list[re.Pattern[str]], text: str) -> str | None:
    value = _first(patterns, text, "name")
    return _PARTICLES.sub("", value) or None if value else None


def bootstrap_answers(message: str) -> BootstrapAnswers:
    """What a first-conversation message tells about names, use and preferred style."""
    user_name = _name(_USER_NAME, message)
    companion_name = _name(_COMPANION_NAME, message)
    if user_name and companion_name and user_name == companion_name:
        user_name = None
    styles = tuple(style for pattern, style in _STYLES if pattern.search(message))
    return BootstrapAnswers(user_name, companion_name, styles, _first(_USE, message, "use"))


# -- "remind me ..." ------------------------------------------------------------------------

_REMIND = [
    re.compile(r"^\s*(?:(?:please|pls|can you|could you|would you)\s+)?(?:remind me|set a reminder)\s*[:,]?\s+(?P<rest>.+)$", re.I | re.S),
    re.compile(r"^\s*(?:请你?|麻烦你?|帮我|记得)?(?:提醒我|提醒一下我|叫我)\s*[:：,，]?\s*(?P<rest>.+)$", re.S),
]
_REMIND_LEAD = re.compile(r"^(?:(?:to|about|that|of|for)\s+|(?:要|去|一下|该|得)\s*)", re.I)
_REMIND_JOIN = re.compile(r"\s+(?:to|about|that)\s*$|(?:的时候|时)\s*$", re.I)
_ON_AT = re.compile(r"\b(?:on|at|by)\s*$", re.I)


@dataclass(frozen=True)
class ReminderRequest:
    """'Remind me tomorrow at 8 to call my mother' said on 2026-11-30 -> 2026-12-01, 08:00, 'call my mother'."""

    day: date
    at: time | None
    text: str

    @property
    def forgets(self) -> str | None:
        return None  # a reminder erases nothing

    def entry(self) -> str:
        """The Upcoming entry's text: '2026-12-01 08:00: Call my mother' (no time: '2026-12-01: ...')."""
        return Entry.timed(self.day, self.at, self.text).text


def _without(text: str, spans: list[tuple[int, int]]) -> str:
    """`text` with the date/time spans cut out (overlapping spans merged), joined with one space."""
    kept, position = [], 0
    for start, end in sorted(spans):
        if start > position:
            piece = text[position:start]
            kept.append(_ON_AT.sub("", piece) if start < len(text) else piece)
        position = max(position, end)
    kept.append(text[position:])
    return re.sub(r"\s{2,}", " ", " ".join(p.strip() for p in kept if p.strip()))


def reminder_request(message: str, now: datetime) -> ReminderRequest | None:
    """'Remind me ...' / '提醒我……' naming a day or a time, resolved against the message's own time."""
    for pattern in _REMIND:
        match = pattern.match(message)
        if match is not None:
            return _when_and_what(match.group("rest").strip(), now)
    return None


def dated_request(fact: str, now: datetime) -> ReminderRequest | None:
    """A fact to remember that names a day and a time ("Dentist on December 10 at 9am"): a timed entry, so it
    reminds at 9:00. A time alone ("parked at level 3") or a day alone does not make a fact a reminder."""
    if not find_dates(fact, now.date()):
        return None
    found = _when_and_what(fact.strip(), now)
    return found if found is not None and found.at is not None else None


def _when_and_what(rest: str, now: datetime) -> ReminderRequest | None:
    moment = resolve_moment(rest, now)
    if moment is None:
        return None
    day, at, spans = moment
    what = _without(rest, spans)
    what = _REMIND_JOIN.sub("", _REMIND_LEAD.sub("", what.strip(" ,，:：")))
    what = _REMIND_LEAD.sub("", _clean(what)).strip(" ,，:：")
    if len(what) < 2:
        return None
    return ReminderRequest(day, time(at.hour, at.minute) if at else None, what)


Request = MemoryRequest | ReminderRequest


def parse_request(message: str, now: datetime) -> Request | None:
    """What a message asks by rule: remember or forget something, or a reminder; None for anything else."""
    return memory_request(message) or reminder_request(message, now)
