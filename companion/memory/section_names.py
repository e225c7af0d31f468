"""Section names of the long-term files in every language the templates come in: one mapping for every lookup.

Code names a section by its English key ("Upcoming"); a file may carry it under that key or under
its translation ("即将到来"). Matching, localising and the one-line hints of empty sections all go
through here, so an English home and a Chinese home read and write the same way."""

from __future__ import annotations

import os
from typing import Iterable, Mapping

LANGUAGES = ("en", "zh")

# key -> {language: title}; the key is the English title.
TITLES: dict[str, dict[str, str]] = {
    "Facts": {"zh": "事实"},
    "Decisions": {"zh": "决定"},
    "Corrections": {"zh": "更正"},
    "Topics & Interests": {"zh": "话题与兴趣"},
    "Timeline": {"zh": "时间线"},
    "Upcoming": {"zh": "即将到来"},
    "Profile": {"zh": "个人资料"},
    "Instructions": {"zh": "指示"},
    "Preferences": {"zh": "偏好"},
    "Identity": {"zh": "身份"},
    "Style": {"zh": "风格"},
    "Boundaries": {"zh": "边界"},
}

# What will appear in a section while it is still empty (shown by the editor, never written).
HINTS: dict[str, dict[str, str]] = {
    "Facts": {"en": "Lasting facts about you and your life will appear here.",
              "zh": "关于你和你生活的长期事实会出现在这里。"},
    "Decisions": {"en": "Decisions you mention (“I decided to…”) will appear here.",
                  "zh": "你提到的决定（“我决定……”）会出现在这里。"},
    "Corrections": {"en": "When you correct something, the correction is kept here.",
                    "zh": "你纠正过的内容会记在这里。"},
    "Topics & Interests": {"en": "Subjects you are learning or care about will appear here.",
                           "zh": "你在学习或关心的话题会出现在这里。"},
    "Timeline": {"en": "Past events, with their dates, will appear here.",
                 "zh": "过去的事件及其日期会出现在这里。"},
    "Upcoming": {"en": "Plans and reminders with a date (“remind me tomorrow at 8…”) will appear here.",
                 "zh": "带日期的计划和提醒（“提醒我明天八点……”）会出现在这里。"},
    "Profile": {"en": "Your name, work, home and the people close to you will appear here.",
                "zh": "你的名字、工作、住处和身边的人会出现在这里。"},
    "Instructions": {"en": "Standing instructions (“always…”, “from now on…”) will appear here.",
                     "zh": "长期有效的要求（“以后……”、“总是……”）会出现在这里。"},
    "Preferences": {"en": "What you like and dislike will appear here.",
                    "zh": "你的喜好和厌恶会出现在这里。"},
    "Identity": {"en": "The companion's name and personality, once you choose them.",
                 "zh": "你给伙伴取的名字和设定的性格会出现在这里。"},
    "Style": {"en": "How the companion should talk to you (short, chatty, formal…).",
              "zh": "伙伴和你说话的方式（简短、轻松、正式……）会出现在这里。"},
    "Boundaries": {"en": "Things the companion should not do or talk about.",
                   "zh": "伙伴不该做或不该谈的事情会出现在这里。"},
}

_BY_TITLE: dict[str, str] = {}
for _key, _titles in TITLES.items():
    _BY_TITLE[_key.casefold()] = _key
    for _title in _titles.values():
        _BY_TITLE[_title.casefold()] = _key


def canonical(title: str) -> str:
    """The section's key for any of its titles ('即将到来' -> 'Upcoming'); other titles come back stripped."""
    title = title.strip()
    return _BY_TITLE.get(title.casefold(), title)


def same_section(a: str, b: str) -> bool:
    """True when two titles name the same section, in any language ('Facts' and '事实')."""
    return canonical(a).casefold() == canonical(b).casefold()


def localized(key: str, language: str) -> str:
    """The title of section `key` in `language` (the key itself for English or an unknown section)."""
    key = canonical(key)
    return TITLES.get(key, {}).get(language, key)


def hint(title: str, language: str) -> str:
    """The one-line hint shown under an empty section, or '' for a section of the user's own."""
    hints = HINTS.get(canonical(title))
    if not hints:
        return ""
    return hints.get(language) or hints["en"]


def language_of(title: str) -> str:
    """The language a known section title is written in ('en' for anything unknown)."""
    for language in LANGUAGES[1:]:
        if any(titles.get(language) == title.strip() for titles in TITLES.values()):
            return language
    return "en"


def file_language(titles: Iterable[str]) -> str:
    """The language of a file, from the section titles it already has ('en' when none is translated)."""
    for title in titles:
        language = language_of(title)
        if language != "en":
            return language
    return "en"


def normalize_language(tag: str | None) -> str:
    """'zh_CN.UTF-8', 'zh-Hans', 'zh' -> 'zh'; anything else -> 'en'."""
    tag = (tag or "").strip().lower()
    return "zh" if tag.startswith("zh") else "en"


def system_language(environ: Mapping[str, str] | None = None) -> str:
    """The user's language from the POSIX locale variables (the GUI passes Qt's system locale instead)."""
    env = os.environ if environ is None else environ
    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = env.get(name)
        if value:
            return normalize_language(value)
    first = (env.get("LANGUAGE") or "").split(":")[0]
    return normalize_language(first)


def body_language(body: str) -> str:
    """The language a long-term file speaks, from its `## ` headings ('en' when none is translated)."""
    return file_language(line[3:].strip() for line in body.splitlines() if line.startswith("## "))
