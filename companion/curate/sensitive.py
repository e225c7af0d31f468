"""Refuse secrets in long-term memory: passwords, API keys, card and IBAN numbers."""

from __future__ import annotations

import re

_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    ("a password", re.compile(r"(?i)\b(pass(word|wd|code)?|pwd|pin)\b\s*(is|:|=)\s*\S+|密码")),
    ("an API key or token", re.compile(r"(?i)\b(sk-[A-Za-z0-9]{16,}|ghp_[A-Za-z0-9]{20,}|AKIA[0-9A-Z]{16}|xox[bap]-[A-Za-z0-9-]{10,})\b")),
    ("a secret", re.compile(r"(?i)\b(api[_ -]?key|secret|token)\b\s*(is|:|=)\s*\S{6,}")),
    ("an IBAN", re.compile(r"\b[A-Z]{2}\d{2}(?:\s?[A-Z0-9]{4}){2,7}\s?[A-Z0-9]{1,4}\b")),
]
# Card numbers: 13-19 digits in one run or in groups of four; not phone numbers ("+86 138 1234 5678").
_CARD = re.compile(r"(?<![+\d])(?:\d{13,19}|\d{4}[ -]\d{6}[ -]\d{5}|(?:\d{4}[ -]){2,3}\d{4}(?:[ -]?\d{1,3})?)(?!\d)")


def _luhn_ok(digits: str) -> bool:
    total = 0
    for index, char in enumerate(reversed(digits)):
        value = int(char)
        if index % 2 == 1:
            value *= 2
            if value > 9:
                value -= 9
        total += value
    return total % 10 == 0


def find_sensitive(text: str) -> str | None:
    """What kind of secret `text` seems to hold, or None."""
    for label, pattern in _PATTERNS:
        if pattern.search(text):
            return label
    for match in _CARD.finditer(text):
        digits = re.sub(r"\D", "", match.group())
        if 13 <= len(digits) <= 19 and _luhn_ok(digits):
            return "a card number"
    return None
