"""Mask personal data in exported text: emails, phone numbers, card/IBAN numbers, secrets."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable

MASKS = {
    "email": "[email]",
    "phone": "[phone]",
    "card": "[card]",
    "iban": "[iban]",
    "secret": "[secret]",
}

_PRIVATE_KEY = re.compile(
    r"-----BEGIN (?:[A-Z]+ )*PRIVATE KEY-----.*?(?:-----END (?:[A-Z]+ )*PRIVATE KEY-----|\Z)", re.DOTALL
)
_TOKEN = re.compile(
    r"\b(?:sk-(?:proj-|ant-)?[A-Za-z0-9_-]{16,}|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}"
    r"|AKIA[0-9A-Z]{16}|xox[abposr]-[A-Za-z0-9-]{10,}|AIza[0-9A-Za-z_-]{35}|glpat-[A-Za-z0-9_-]{20,}"
    r"|eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,})",
    re.ASCII,
)
# "password: hunter2", "api_key=abc", "密码是 1234": keep the label, mask the value.
_LABELLED = re.compile(
    r"(?i)(\b(?:pass(?:word|wd|phrase|code)?|pwd|pin)\b\s*(?:is\s+|:\s*|=\s*)"
    r"|\b(?:api[_ -]?key|secret(?:[_ -]?key)?|access[_ -]?token|auth[_ -]?token|token|bearer)\b\s*(?::\s*|=\s*|\s(?=\S*\d))"
    r"|(?:密码|口令|密钥|验证码)\s*(?:是|为|:|：)?\s*)"
    r"(?!\[)([^\s\u3000,;，。；、]{4,})",
    re.ASCII,
)
_EMAIL = re.compile(r"(?<![\w.+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b", re.ASCII)
_IBAN = re.compile(r"\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?\b", re.ASCII)
_CARD = re.compile(r"(?<![\w#+-])\d(?:[ -]?\d){12,18}(?![\w#-])", re.ASCII)
_PHONE = re.compile(
    r"(?<![\w#/:.+-])(?:\+\d{1,3}[ .-]?)?(?:\(\d{1,4}\)[ .-]?)?\d{2,4}(?:[ .-]?\d{2,4}){1,4}(?![\w#/:-])",
    re.ASCII,
)
_DATE_LIKE = re.compile(r"\d{4}[-./]\d{1,2}[-./]\d{1,2}|\d{1,2}[./]\d{1,2}[./]\d{2,4}")
_CN_MOBILE = re.compile(r"(?<!\d)1[3-9]\d{9}(?!\d)")


@dataclass
class Redactions:
    """How many values of each kind were masked."""

    counts: dict[str, int] = field(default_factory=dict)

    def add(self, kind: str, count: int = 1) -> None:
        self.counts[kind] = self.counts.get(kind, 0) + count

    def merge(self, other: "Redactions") -> None:
        for kind, count in other.counts.items():
            self.add(kind, count)

    @property
    def total(self) -> int:
        return sum(self.counts.values())


def _luhn_ok(digits: str) -> bool:
    total = 0
    for index, char in enumerate(reversed(digits)):
        value = int(char)
        if index % 2 == 1:
            value = value * 2 - 9 if value > 4 else value * 2
        total += value
    return total % 10 == 0


def _iban_ok(candidate: str) -> bool:
    compact = candidate.replace(" ", "")
    if not 15 <= len(compact) <= 34:
        return False
    rearranged = compact[4:] + compact[:4]
    try:
        number = int("".join(str(int(ch, 36)) for ch in rearranged))
    except ValueError:
        return False
    return number % 97 == 1


def _is_phone(candidate: str) -> bool:
    digits = re.sub(r"\D", "", candidate)
    if not 9 <= len(digits) <= 15:
        return False
    if _DATE_LIKE.search(candidate):
        return False
    # a bare run of digits is a phone number only with a leading + or 0 or as a Chinese mobile number
    if candidate.isdigit():
        return candidate.startswith("0") or bool(_CN_MOBILE.fullmatch(candidate))
    return True


def _sub(pattern: re.Pattern[str], text: str, kind: str, found: Redactions, accept: Callable[[str], bool] | None = None) -> str:
    def replace(match: re.Match[str]) -> str:
        if accept is not None and not accept(match.group(0)):
            return match.group(0)
        found.add(kind)
        return MASKS[kind]

    return pattern.sub(replace, text)


def _sub_labelled(text: str, found: Redactions) -> str:
    def replace(match: re.Match[str]) -> str:
        found.add("secret")
        return match.group(1) + MASKS["secret"]

    return _LABELLED.sub(replace, text)


def redact(text: str, found: Redactions | None = None) -> str:
    """`text` with personal data masked as [email], [phone], [card], [iban], [secret]."""
    found = found if found is not None else Redactions()
    text = _sub(_PRIVATE_KEY, text, "secret", found)
    text = _sub(_TOKEN, text, "secret", found)
    text = _sub_labelled(text, found)
    text = _sub(_EMAIL, text, "email", found)
    text = _sub(_IBAN, text, "iban", found, _iban_ok)
    text = _sub(_CARD, text, "card", found, lambda m: _luhn_ok(re.sub(r"\D", "", m)))
    text = _sub(_CN_MOBILE, text, "phone", found)
    text = _sub(_PHONE, text, "phone", found, _is_phone)
    return text
