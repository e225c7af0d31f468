"""One slot per kind of fact, whatever the language: the entry forms, English and Chinese, that fill it.

A slot is written as its forms joined by "|": a prefix ("Lives in") or a form with a hole ("在*工作").
An update in a slot replaces the active entry of that slot in either language, so a move said in
Chinese supersedes "Lives in Leeds" and "I live in York" supersedes "住在上海".
"""

from __future__ import annotations

import re

from companion.memory import entries as E

NAME = E.NAME_SLOT
HOME = "Lives in|住在"
# What the user does for a living; the hole forms keep "是O型血" or "是上海人" out of it.
_ZH_JOB_ENDS = ("师", "员", "生", "者", "家", "工", "手", "长", "警", "医", "官", "职业", "士", "理", "计", "察", "机", "售", "译", "导", "匠")
JOB = "|".join(
    ["@job", "在*工作", "在*上班", "在*做*", "在*当*", "做*工作"]
    + [f"是*{end}" for end in _ZH_JOB_ENDS] + [f"做*{end}" for end in _ZH_JOB_ENDS]
)
# named forms: an occupation, not any "Is a ..." ("Is a morning person") or "Works ..." ("Works out")
OCCUPATION = (r"(?:\w+(?:er|or|ist|ian|ant|ent|ic|man|woman|wife)|nurse|chef|cook|barista|vet|pilot|surgeon|student|dad|mum|mom|"
              r"medic|clerk|intern|tutor|coach|freelancer|apprentice|trainee|assistant|technician)s?")
_NAMED = {
    "@job": re.compile(r"^(?:Works (?:as|at|for|in) |Is an? (?:[\w'-]+ ){0,3}?" + OCCUPATION + r"\b|[A-Z]\w+s for a living\b|Does freelance)", re.I),
}
DIET = "Is a vegetarian|Is a vegan|Is a pescatarian|Eats meat|是素食者|是素食主义者|吃素"
MARITAL = "Is married|Is engaged|Is divorced|Is single|Is widowed|已婚|单身|离婚"
BIRTHDAY = "Birthday:|生日："
AGE = "Is * years old|*岁"

# single forms named as a slot (older proposals, tests and tools): the slot they belong to
_ALIASES = {"Is a": JOB, "Works ": JOB, "Is a ": JOB, "是": JOB, "在*工作": JOB, "Lives in": HOME, "住在": HOME, "Birthday:": BIRTHDAY, "生日：": BIRTHDAY,
            "Is married|Is engaged|Is divorced|Is single|Is widowed": MARITAL, "Is a vegetarian|Is a vegan|Is a pescatarian": DIET,
            "是素食者|是素食主义者|吃素": DIET}


def canonical(old: str) -> str:
    """The slot an update names, also when it names a single form of it ("Lives in")."""
    return _ALIASES.get(old, old)


USER_SLOTS = (NAME, HOME, JOB, DIET, MARITAL, BIRTHDAY, AGE)
BY_FILE: dict[str, tuple[str, ...]] = {"USER.md": USER_SLOTS, "SOUL.md": (NAME,)}
ALL = frozenset(slot for slots in BY_FILE.values() for slot in slots)


def matches(part: str, text: str) -> bool:
    """Whether entry text fills one slot form: a prefix ("Lives in") or a form with a hole ("在*工作")."""
    if part in _NAMED:
        return _NAMED[part].match(text.strip()) is not None
    if "*" in part:
        return re.fullmatch(".+?".join(re.escape(p) for p in part.split("*")), text.strip(), re.I) is not None
    return text.casefold().startswith(part.casefold())


def slot_of(file: str, text: str) -> str | None:
    """The most specific slot of `file` that an entry fills ("Lives in Leeds" -> HOME), or None:
    two active entries in one slot contradict each other."""
    best: tuple[int, str] | None = None
    for slot in BY_FILE.get(file, ()):
        for part in slot.split("|"):
            size = 5 if part in _NAMED else len(part.replace("*", ""))
            if matches(part, text) and (best is None or size > best[0]):
                best = (size, slot)
    return best[1] if best else None
