"""The dedupe rule and the secret filter."""

from __future__ import annotations

import pytest

from companion.memory.dedupe import find_duplicate, is_duplicate, normalize
from companion.curate.sensitive import find_sensitive


def test_normalize_drops_bullets_citations_and_case():
    assert normalize("-  Likes   TEA (2026-11-29#3)") == "likes tea"


@pytest.mark.parametrize("a,b,expected", [
    ("Likes tea", "likes  tea", True),
    ("Likes green tea", "Likes green tea a lot", True),  # 15/21 > 0.6
    ("tea", "Likes green tea every morning", False),  # substring but too short
    ("Likes coffee", "Likes tea", False),
    ("喜欢咖啡", "用户喜欢咖啡", True),
    ("", "", False),
])
def test_is_duplicate(a, b, expected):
    assert is_duplicate(a, b) is expected
    assert is_duplicate(b, a) is expected


def test_find_duplicate_returns_the_existing_line():
    assert find_duplicate("likes tea", ["- Lives in Graz", "- Likes tea (2026-11-29#1)"]) == "- Likes tea (2026-11-29#1)"


@pytest.mark.parametrize("text", [
    "my password is hunter22", "密码是123456", "api_key=abcdef123456", "card 4111 1111 1111 1111",
    "sk-abcdefghijklmnopqrstuvwx", "IBAN DE89 3704 0044 0532 0130 00",
])
def test_secrets_are_found(text):
    assert find_sensitive(text)


@pytest.mark.parametrize("text", ["I like passionfruit", "Call me at lunch", "Order 1234 arrived", "我喜欢咖啡"])
def test_ordinary_text_passes(text):
    assert find_sensitive(text) is None
