"""Resolve dates in a message ("tomorrow", "next Friday", "May 14", "明天", "5月14日") against its own day."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from companion.memory.lang import (MONTH_PATTERN, WEEKDAY_PATTERN, WEEKDAYS, WORD_NUMBERS, ZH_NUMERALS, has_han, month_index,
                                   zh_number, zh_weekday)

_MON = MONTH_PATTERN
_ZH_NUM = f"[{ZH_NUMERALS}\\d]+"

_PATTERNS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"\b(?P<y>\d{4})-(?P<m>\d{1,2})-(?P<d>\d{1,2})\b"), "iso"),
    (re.compile(r"\bday after tomorrow\b", re.I), "+2"),
    (re.compile(r"\btomorrow\b", re.I), "+1"),
    (re.compile(r"\byesterday\b", re.I), "-1"),
    (re.compile(r"\b(?:today|tonight|this (?:morning|afternoon|evening))\b", re.I), "+0"),
    (re.compile(r"\bin (?P<n>\d{1,3}|a|one|two|three|four|five|six|seven) (?P<unit>days?|weeks?)\b", re.I), "in"),
    (re.compile(r"\bnext week\b", re.I), "+7"),
    (re.compile(r"\b(?P<next>next |this |on )?" + WEEKDAY_PATTERN + r"\b", re.I), "weekday"),
    (re.compile(r"\b" + _MON + r"\.? (?P<d>\d{1,2})(?:st|nd|rd|th)?\b", re.I), "md"),
    (re.compile(r"\b(?P<d>\d{1,2})(?:st|nd|rd|th)? (?:of )?" + _MON + r"\b", re.I), "md"),
    (re.compile(r"大后天"), "+3"),
    (re.compile(r"后天"), "+2"),
    (re.compile(r"明天|明早|明晚"), "+1"),
    (re.compile(r"昨天"), "-1"),
    (re.compile(r"今天|今晚|今早"), "+0"),
    (re.compile(r"(?P<next>下)?(?:周|星期|礼拜)(?P<zw>[一二三四五六日天])"), "zh_weekday"),
    (re.compile(r"(?P<m>\d{1,2})月(?P<d>\d{1,2})[日号]"), "zh_md"),
    (re.compile(r"(?P<n>" + _ZH_NUM + r")天(?:后|以后|之后)"), "zh_in"),
]


@dataclass(frozen=True)
class FoundDate:
    when: date
    start: int
    end: int
    text: str


def _future_md(anchor: date, month: int, day: int) -> date | None:
    try:
        candidate = date(anchor.year, month, day)
    except ValueError:
        return None
    if candidate < anchor - timedelta(days=60):  # "Jan 3" said in December means next year
        try:
            candidate = date(anchor.year + 1, month, day)
        except ValueError:
            return None
    return candidate


def _resolve(kind: str, match: re.Match[str], anchor: date) -> date | None:
    groups = match.groupdict()
    if kind == "iso":
        try:
            return date(int(groups["y"]), int(groups["m"]), int(groups["d"]))
        except ValueError:
            return None
    if kind[0] in "+-":
        return anchor + timedelta(days=int(kind))
    if kind == "in":
        raw = groups["n"].lower()
        count = int(raw) if raw.isdigit() else WORD_NUMBERS[raw]
        return anchor + timedelta(days=count * (7 if groups["unit"].lower().startswith("week") else 1))
    if kind in ("weekday", "zh_weekday"):
        target = WEEKDAYS.index(groups["wd"].lower()) if kind == "weekday" else zh_weekday(groups["zw"])
        ahead = (target - anchor.weekday()) % 7
        nxt = (groups.get("next") or "").strip().lower()
        if nxt in ("next", "下"):
            ahead = ahead or 7
            if kind == "zh_weekday":  # 下周三: the Wednesday of next week
                monday_next = anchor + timedelta(days=7 - anchor.weekday())
                return monday_next + timedelta(days=target)
        return anchor + timedelta(days=ahead)
    if kind == "md":
        return _future_md(anchor, month_index(groups["mon"]), int(groups["d"]))
    if kind == "zh_md":
        return _future_md(anchor, int(groups["m"]), int(groups["d"]))
    if kind == "zh_in":
        days = zh_number(groups["n"])
        return anchor + timedelta(days=days) if days else None
    return None


def find_dates(text: str, anchor: date) -> list[FoundDate]:
    """Every date expression in `text`, resolved against `anchor` (the message's day), in order."""
    found: list[FoundDate] = []
    taken: list[tuple[int, int]] = []
    for pattern, kind in _PATTERNS:
        for match in pattern.finditer(text):
            if any(s < match.end() and match.start() < e for s, e in taken):
                continue
            when = _resolve(kind, match, anchor)
            if when is not None:
                found.append(FoundDate(when, match.start(), match.end(), match.group(0)))
                taken.append((match.start(), match.end()))
    return sorted(found, key=lambda f: f.start)


_RELATIVE_WORDS = re.compile(
    r"\b(today|tonight|tomorrow|yesterday|recently|lately|the other day|last (?:week|month|night)|"
    r"this (?:week|month|morning|afternoon|evening)|next (?:week|month))\b|今天|明天|昨天|最近|前几天|上周|下周",
    re.I,
)


def has_relative_date(text: str) -> bool:
    """Words an entry must not keep: they mean nothing once the day has passed."""
    return _RELATIVE_WORDS.search(text) is not None


def absolutize(text: str, anchor: date) -> str:
    """Replace date expressions with ISO dates ("see the dentist tomorrow" -> "see the dentist on 2024-05-14")."""
    out = text
    for found in sorted(find_dates(text, anchor), key=lambda f: f.start, reverse=True):
        if re.fullmatch(r"\d{4}-\d{1,2}-\d{1,2}", found.text):
            continue
        prefix = out[: found.start]
        zh = has_han(found.text)
        joiner = "" if zh or re.search(r"\b(on|by|until|before|after)\s*$", prefix, re.I) else "on "
        prefix = re.sub(r"\b(on|this|next)\s+$", lambda m: m.group(0) if m.group(1).lower() == "on" else "", prefix, flags=re.I)
        out = prefix + joiner + found.when.isoformat() + out[found.end :]
    out = re.sub(r"\s{2,}", " ", out)
    return out.strip()


# -- times of day ("at 8", "8:30pm", "noon", "八点", "下午三点半", "in 20 minutes") ------------------------

_AMPM = r"(?P<ap>[ap])\.?\s?m\b\.?"
_ZH_DIGITS = ZH_NUMERALS
_ZH_PART = r"(?P<part>早上|早晨|上午|中午|下午|傍晚|晚上|夜里|凌晨|今晚|明晚|明早)?"
_TIME_PATTERNS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"(?<![\d:])(?P<h>\d{1,2})[:.](?P<m>\d{2})\s*" + _AMPM, re.I), "clock"),
    (re.compile(r"(?<![\d:.])(?P<h>\d{1,2})\s*" + _AMPM, re.I), "clock"),
    (re.compile(r"(?<![\d:])(?P<h>\d{1,2}):(?P<m>\d{2})(?![\d:])"), "clock"),
    (re.compile(r"\b(?:at )?(?P<h>\d{1,2}) ?o'?clock\b", re.I), "clock"),
    (re.compile(r"\bat (?P<h>\d{1,2})(?:[:.](?P<m>\d{2}))?\b(?! ?(?:%|years?|days?|weeks?|months?|minutes?|hours?))", re.I), "clock"),
    (re.compile(r"\b(?:at )?(?P<word>noon|midday|midnight)\b", re.I), "word"),
    (re.compile(r"\bin (?P<n>\d{1,3}|a|an|one|two|three|half an?) (?P<unit>minutes?|mins?|hours?)\b", re.I), "in"),
    (re.compile(_ZH_PART + rf"(?P<h>[{_ZH_DIGITS}\d]{{1,3}})[点點时](?:(?P<half>半)|(?P<q>一刻|三刻)|(?P<m>[{_ZH_DIGITS}\d]{{1,3}})分?)?"), "zh"),
    (re.compile(rf"(?P<n>[{_ZH_DIGITS}\d]{{1,3}}|半)个?(?P<unit>分钟|小时|钟头)(?:后|以后|之后)"), "zh_in"),
]
_EVENING = re.compile(r"\b(?:tonight|this evening|in the evening|evening|afternoon|at night)\b|下午|傍晚|晚上|今晚|明晚|夜里", re.I)


@dataclass(frozen=True)
class FoundTime:
    """A time of day (hour, minute), or an offset from now for "in 20 minutes" (then `after` is set)."""

    hour: int
    minute: int
    start: int
    end: int
    text: str
    explicit: bool = False  # am/pm, 24-hour clock or a part of the day: no guessing about noon
    after: timedelta | None = None


def _time(kind: str, match: re.Match[str]) -> FoundTime | None:
    g = match.groupdict()
    span = (match.start(), match.end(), match.group(0))
    if kind == "word":
        return FoundTime(0 if g["word"].lower() == "midnight" else 12, 0, *span, explicit=True)
    if kind in ("in", "zh_in"):
        raw = g["n"].lower()
        if raw.startswith("half") or raw == "半":
            amount = 0.5
        elif kind == "in":
            amount = float(raw) if raw.isdigit() else float(WORD_NUMBERS.get(raw, 0))
        else:
            amount = float(zh_number(raw) or 0)
        hours = g["unit"].lower().startswith(("hour", "小时", "钟头"))
        after = timedelta(hours=amount) if hours else timedelta(minutes=amount)
        return FoundTime(0, 0, *span, explicit=True, after=after) if after else None
    if kind == "zh":
        hour = zh_number(g["h"])
        minute = 30 if g["half"] else 15 if g["q"] == "一刻" else 45 if g["q"] == "三刻" else zh_number(g["m"]) if g["m"] else 0
        if hour is None or minute is None:
            return None
        part = g["part"] or ""
        if part in ("下午", "傍晚", "晚上", "夜里", "今晚", "明晚") and hour < 12 or part == "中午" and hour < 3:
            hour += 12
        explicit = bool(part) or hour > 12
    else:
        hour, minute = int(g["h"]), int(g.get("m") or 0)
        ap = (g.get("ap") or "").lower()
        if ap:
            if not 1 <= hour <= 12:
                return None
            hour = hour % 12 + (12 if ap == "p" else 0)
        explicit = bool(ap) or ":" in match.group(0) or hour == 0 or hour > 12  # "11:30" reads as a 24-hour clock
    if not (0 <= hour <= 23 and 0 <= minute <= 59):
        return None
    return FoundTime(hour, minute, *span, explicit=explicit)


def find_time(text: str) -> FoundTime | None:
    """The first time of day said in `text`, if any."""
    found: list[FoundTime] = []
    for pattern, kind in _TIME_PATTERNS:
        for match in pattern.finditer(text):
            if any(f.start < match.end() and match.start() < f.end for f in found):
                continue
            when = _time(kind, match)
            if when is not None:
                found.append(when)
    return min(found, key=lambda f: f.start) if found else None


def resolve_moment(text: str, now: datetime) -> tuple[date, FoundTime | None, list[tuple[int, int]]] | None:
    """The day and time a message names, against `now`, and the spans that said it; None if it names neither.

    "at 8" without am/pm means the next 8 o'clock from now (8:00 today, 20:00 if that has passed, else
    tomorrow), or 20:00 when the message says evening; a time alone means today, or tomorrow once passed."""
    days = find_dates(text, now.date())
    moment = find_time(text)
    if not days and moment is None:
        return None
    spans = [(d.start, d.end) for d in days[:1]] + ([(moment.start, moment.end)] if moment else [])
    if moment is not None and moment.after is not None:
        at = now + moment.after
        if at.second or at.microsecond:  # "in 1 minute" said at 14:00:30 is due 14:02, never before 14:01:30
            at = at.replace(second=0, microsecond=0) + timedelta(minutes=1)
        return at.date(), FoundTime(at.hour, at.minute, moment.start, moment.end, moment.text, True), spans
    day = days[0].when if days else now.date()
    if moment is None:
        return day, None, spans
    hour, minute = moment.hour, moment.minute
    guess = not moment.explicit and hour < 12  # "at 8": morning or evening
    if guess and _EVENING.search(text):
        hour, guess = hour + 12, False
    if not days and (hour, minute) <= (now.hour, now.minute):
        if guess and (hour + 12, minute) > (now.hour, now.minute):
            hour += 12
        else:
            day = now.date() + timedelta(days=1)
    return day, FoundTime(hour, minute, moment.start, moment.end, moment.text, True), spans
