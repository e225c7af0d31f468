"""Time in recall: the days a question names ("in May 2023", "last week", "上周", "三月三号") and
relative dates in remembered turns spelled out ("yesterday" said on 8 May 2023 is 7 May 2023)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Callable

from companion.memory.lang import MONTH_PATTERN, MONTHS, WEEKDAY_PATTERN, WEEKDAYS, WORD_NUMBERS, ZH_NUMERALS, month_index, zh_number

_MONTHS = MONTHS
_WEEKDAYS = WEEKDAYS
_MON = MONTH_PATTERN
_WD = WEEKDAY_PATTERN
_ZH_NUMBER = f"[0-9{ZH_NUMERALS}]{{1,3}}"
_COUNT = {**WORD_NUMBERS, "a few": 3, "couple of": 2, "a couple of": 2}
_COUNT_WORDS = r"(?P<n>\d{1,3}|an?|one|two|three|four|five|six|seven|eight|nine|ten|a few|(?:a )?couple of)"
# Words for days that both a question (which days it asks about) and a recalled turn (spelled out) use.
_BEFORE_YESTERDAY = r"\b(?:the )?day before yesterday\b|前天"
_YESTERDAY = r"\b(?:yesterday|last night)\b|昨天|昨晚"
_LAST_WEEKEND = r"\blast weekend\b"
_LAST_WEEK = r"\b(?:last|previous) week\b|\ba week ago\b|上(?:个)?(?:周|星期|礼拜)"
_LAST_MONTH = r"\b(?:last|previous) month\b|\ba month ago\b|上(?:个)?月"
_THIS_MONTH = r"\bthis month\b"


@dataclass(frozen=True)
class QueryTime:
    """The days a question is about (first..last) and the words that said so."""

    first: date
    last: date
    words: tuple[str, ...]
    anchor: str = ""  # "the day before my trip": the event ("my trip") whose day `offset` counts from
    offset: int = 0


def spoken(day: date) -> str:
    """'7 May 2023': how dates are written in recalled memories."""
    return f"{day.day} {_MONTHS[day.month - 1].capitalize()} {day.year}"


def month_name(day: date) -> str:
    return f"{_MONTHS[day.month - 1].capitalize()} {day.year}"


_month = month_index


def _month_range(year: int, month: int) -> tuple[date, date]:
    first = date(year, month, 1)
    following = date(year + (month == 12), month % 12 + 1, 1)
    return first, following - timedelta(days=1)


def _past_day(today: date, month: int, day: int, year: int | None) -> date | None:
    """A month and day without a year is the latest one not after today."""
    try:
        if year is not None:
            return date(year, month, day)
        found = date(today.year, month, day)
        return found if found <= today else date(today.year - 1, month, day)
    except ValueError:
        return None


def _week_of(day: date) -> tuple[date, date]:
    monday = day - timedelta(days=day.weekday())
    return monday, monday + timedelta(days=6)


def _count(raw: str) -> int:
    raw = raw.lower()
    return int(raw) if raw.isdigit() else _COUNT.get(raw, 1)


Span = tuple[date, date]
_QUERY_PATTERNS: list[tuple[re.Pattern[str], Callable[[re.Match[str], date], Span | None]]] = []


Resolver = Callable[[re.Match[str], date], Span | None]


def _query(pattern: str, flags: int = re.I) -> Callable[[Resolver], Resolver]:
    def register(resolve: Resolver) -> Resolver:
        _QUERY_PATTERNS.append((re.compile(pattern, flags), resolve))
        return resolve

    return register


def _single(day: date | None) -> Span | None:
    return (day, day) if day is not None else None


@_query(r"\b(?P<y>\d{4})-(?P<m>\d{1,2})-(?P<d>\d{1,2})\b")
def _iso(m: re.Match[str], today: date) -> Span | None:
    return _single(_past_day(today, int(m["m"]), int(m["d"]), int(m["y"])))


@_query(r"\b(?P<d>\d{1,2})(?:st|nd|rd|th)? (?:of )?" + _MON + r"\b,?(?: (?P<y>\d{4})\b)?")
def _day_month(m: re.Match[str], today: date) -> Span | None:
    return _single(_past_day(today, _month(m["mon"]), int(m["d"]), int(m["y"]) if m["y"] else None))


@_query(r"\b" + _MON + r"\.? (?P<d>\d{1,2})(?:st|nd|rd|th)?\b(?!:)(?:,? (?P<y>\d{4})\b)?")
def _month_day(m: re.Match[str], today: date) -> Span | None:
    return _single(_past_day(today, _month(m["mon"]), int(m["d"]), int(m["y"]) if m["y"] else None))


@_query(r"\b(?:in |during |of )?" + _MON + r",? (?P<y>\d{4})\b")
def _month_year(m: re.Match[str], today: date) -> Span | None:
    return _month_range(int(m["y"]), _month(m["mon"]))


@_query(r"\b(?:in|during) " + _MON + r"\b")
def _in_month(m: re.Match[str], today: date) -> Span | None:
    month = _month(m["mon"])
    return _month_range(today.year if month <= today.month else today.year - 1, month)


@_query(r"\b(?:in|during) (?P<y>(?:19|20)\d{2})\b")
def _in_year(m: re.Match[str], today: date) -> Span | None:
    return date(int(m["y"]), 1, 1), date(int(m["y"]), 12, 31)


@_query(_BEFORE_YESTERDAY)
def _before_yesterday(m: re.Match[str], today: date) -> Span | None:
    return _single(today - timedelta(days=2))


@_query(_YESTERDAY)
def _yesterday(m: re.Match[str], today: date) -> Span | None:
    return _single(today - timedelta(days=1))


@_query(r"\b(?:today|tonight|this morning|this afternoon|this evening)\b|今天|今晚|今早")
def _today(m: re.Match[str], today: date) -> Span | None:
    return _single(today)


@_query(_LAST_WEEKEND)
def _last_weekend(m: re.Match[str], today: date) -> Span | None:
    saturday = today - timedelta(days=(today.weekday() - 5) % 7 or 7)
    return saturday, saturday + timedelta(days=1)


@_query(_LAST_WEEK)
def _last_week(m: re.Match[str], today: date) -> Span | None:
    return _week_of(today - timedelta(days=7))


@_query(r"\bthis week\b|(?:这|本)(?:个)?(?:周|星期|礼拜)")
def _this_week(m: re.Match[str], today: date) -> Span | None:
    return _week_of(today)[0], today


@_query(_LAST_MONTH)
def _last_month(m: re.Match[str], today: date) -> Span | None:
    return _month_range(today.year - (today.month == 1), (today.month - 2) % 12 + 1)


@_query(_THIS_MONTH)
def _this_month(m: re.Match[str], today: date) -> Span | None:
    return date(today.year, today.month, 1), today


@_query(r"\blast year\b|\ba year ago\b|去年")
def _last_year(m: re.Match[str], today: date) -> Span | None:
    return date(today.year - 1, 1, 1), date(today.year - 1, 12, 31)


@_query(r"\b(?:last|on) " + _WD + r"\b")
def _weekday(m: re.Match[str], today: date) -> Span | None:
    back = (today.weekday() - _WEEKDAYS.index(m["wd"].lower())) % 7 or 7
    return _single(today - timedelta(days=back))


@_query(r"\b" + _COUNT_WORDS + r" (?P<unit>days?|weeks?|months?) ago\b")
def _ago(m: re.Match[str], today: date) -> Span | None:
    n = _count(m["n"])
    unit = m["unit"].lower()
    days = n * (1 if unit.startswith("day") else 7 if unit.startswith("week") else 30)
    slack = 0 if unit.startswith("day") else 3 if unit.startswith("week") else 10
    return today - timedelta(days=days + slack), today - timedelta(days=max(0, days - slack))


@_query(r"(?:(?P<y>\d{4})年)?(?P<m>" + _ZH_NUMBER + r")月(?P<d>" + _ZH_NUMBER + r")[日号號]", 0)
def _zh_day(m: re.Match[str], today: date) -> Span | None:
    month, day = zh_number(m["m"]), zh_number(m["d"])
    if not month or not day:
        return None
    return _single(_past_day(today, month, day, int(m["y"]) if m["y"] else None))


@_query(r"(?:(?P<y>\d{4})年)?(?P<m>" + _ZH_NUMBER + r")月(?:份)?", 0)
def _zh_month(m: re.Match[str], today: date) -> Span | None:
    month = zh_number(m["m"])
    if not month or month > 12:
        return None
    year = int(m["y"]) if m["y"] else (today.year if month <= today.month else today.year - 1)
    return _month_range(year, month)


_AROUND = re.compile(
    r"\b(?:on |in )?the (?P<which>day|week) (?P<rel>before|after) (?P<event>(?:my|our|the|his|her|their) [\w' -]+?)"
    r"(?=[?.!,]|$)|在?(?P<zh_event>[^，。？！?,.\s]{2,12}?)的?(?P<zh_rel>前一天|后一天|前一周|后一周)",
    re.I,
)


def query_time(text: str, today: date) -> QueryTime | None:
    """The days the question names, resolved against `today` (the day it is asked); None if none.

    Several expressions give the span that covers them all. "the day before my trip" gives an
    anchor: the caller finds the trip's day and moves by `offset`."""
    around = _AROUND.search(text)
    if around:
        if around["event"]:
            offset = (1 if around["which"].lower() == "day" else 7) * (-1 if around["rel"].lower() == "before" else 1)
            event = around["event"]
        else:
            offset = {"前一天": -1, "后一天": 1, "前一周": -7, "后一周": 7}[around["zh_rel"]]
            event = around["zh_event"]
        said = tuple(w for w in around.group(0).replace(event, " ").split() if w)
        return QueryTime(today, today, said, event.strip(), offset)
    spans: list[Span] = []
    words: list[str] = []
    taken: list[tuple[int, int]] = []
    for pattern, resolve in _QUERY_PATTERNS:
        for match in pattern.finditer(text):
            if any(s < match.end() and match.start() < e for s, e in taken):
                continue
            span = resolve(match, today)
            if span is not None:
                spans.append(span)
                words.append(match.group(0))
                taken.append((match.start(), match.end()))
    if not spans:
        return None
    return QueryTime(min(s for s, _ in spans), max(e for _, e in spans), tuple(words))


def around_day(anchor_day: date, offset: int) -> tuple[date, date]:
    """The span `offset` days from an event's day (a week offset covers that week)."""
    target = anchor_day + timedelta(days=offset)
    if abs(offset) >= 7:
        return (target, anchor_day) if offset < 0 else (anchor_day, target)
    return target, target


# -- relative dates in remembered turns ----------------------------------------

_RELATIVE: list[tuple[re.Pattern[str], Renderer]] = []


Renderer = Callable[[re.Match[str], date], str | None]


def _relative(pattern: str, flags: int = re.I) -> Callable[[Renderer], Renderer]:
    def register(render: Renderer) -> Renderer:
        _RELATIVE.append((re.compile(pattern, flags), render))
        return render

    return register


@_relative(_BEFORE_YESTERDAY)
def _r_before_yesterday(m: re.Match[str], day: date) -> str | None:
    return spoken(day - timedelta(days=2))


@_relative(_YESTERDAY)
def _r_yesterday(m: re.Match[str], day: date) -> str | None:
    return spoken(day - timedelta(days=1))


@_relative(r"\btomorrow\b|明天")
def _r_tomorrow(m: re.Match[str], day: date) -> str | None:
    return spoken(day + timedelta(days=1))


@_relative(_LAST_WEEKEND)
def _r_last_weekend(m: re.Match[str], day: date) -> str | None:
    return f"the weekend before {spoken(day)}"


@_relative(_LAST_WEEK)
def _r_last_week(m: re.Match[str], day: date) -> str | None:
    return f"the week before {spoken(day)}"


@_relative(r"\bnext week\b|下(?:个)?(?:周|星期|礼拜)")
def _r_next_week(m: re.Match[str], day: date) -> str | None:
    return f"the week after {spoken(day)}"


@_relative(r"\blast " + _WD + r"\b")
def _r_last_weekday(m: re.Match[str], day: date) -> str | None:
    return f"the {m['wd'].capitalize()} before {spoken(day)}"  # which one is the reader's call, as in talk


@_relative(_LAST_MONTH)
def _r_last_month(m: re.Match[str], day: date) -> str | None:
    return month_name(day.replace(day=1) - timedelta(days=1))


@_relative(r"\bnext month\b|下(?:个)?月")
def _r_next_month(m: re.Match[str], day: date) -> str | None:
    return month_name(day.replace(day=28) + timedelta(days=4))


@_relative(_THIS_MONTH)
def _r_this_month(m: re.Match[str], day: date) -> str | None:
    return month_name(day)


@_relative(r"\blast year\b|去年")
def _r_last_year(m: re.Match[str], day: date) -> str | None:
    return str(day.year - 1)


@_relative(r"\bnext year\b|明年")
def _r_next_year(m: re.Match[str], day: date) -> str | None:
    return str(day.year + 1)


@_relative(r"\b" + _COUNT_WORDS + r" (?P<unit>days?|weeks?|years?) ago\b")
def _r_ago(m: re.Match[str], day: date) -> str | None:
    n, unit = _count(m["n"]), m["unit"].lower()
    if unit.startswith("day"):
        return spoken(day - timedelta(days=n))
    if unit.startswith("week"):
        return f"about {spoken(day - timedelta(days=7 * n))}"
    return str(day.year - n)


_ANY_RELATIVE = re.compile("|".join(f"(?:{p.pattern})" for p, _ in _RELATIVE), re.I)


def spell_out(text: str, day: date) -> str:
    """`text` said on `day`, with its relative dates followed by the date they mean:
    'yesterday' -> 'yesterday [7 May 2023]'."""
    if not _ANY_RELATIVE.search(text):  # most turns: one pass instead of one per expression
        return text
    found: list[tuple[int, int, str]] = []
    for pattern, render in _RELATIVE:
        for match in pattern.finditer(text):
            if any(s < match.end() and match.start() < e for s, e, _ in found):
                continue
            meaning = render(match, day)
            if meaning:
                found.append((match.start(), match.end(), meaning))
    for start, end, meaning in sorted(found, reverse=True):
        text = f"{text[:end]} [{meaning}]{text[end:]}"
    return text
