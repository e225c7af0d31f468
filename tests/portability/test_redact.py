"""Redaction masks a corpus of personal data and leaves ordinary memory text alone."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion.portability.redact import Redactions, redact

SECRETS = [
    ("Write to anna.berg@example.org about it", "email", "anna.berg@example.org"),
    ("邮箱是zhang.wei@qq.com，记得回复", "email", "zhang.wei@qq.com"),
    ("Call me at +1 (415) 555-0132 tomorrow", "phone", "555-0132"),
    ("My number is +44 20 7946 0958.", "phone", "7946 0958"),
    ("Office: 030 12345678", "phone", "12345678"),
    ("我的手机号是13812345678", "phone", "13812345678"),
    ("电话 +86 138 1234 5678", "phone", "1234 5678"),
    ("Card 4111 1111 1111 1111 expires soon", "card", "4111 1111 1111 1111"),
    ("paid with 5500-0000-0000-0004", "card", "5500-0000-0000-0004"),
    ("IBAN DE89 3704 0044 0532 0130 00 for rent", "iban", "DE89 3704 0044 0532 0130 00"),
    ("send it to GB82WEST12345698765432", "iban", "GB82WEST12345698765432"),
    ("my password is hunter2!", "secret", "hunter2!"),
    ("wifi password: CorrectHorse9", "secret", "CorrectHorse9"),
    ("密码是 abc12345", "secret", "abc12345"),
    ("api_key=9f8e7d6c5b4a39281706", "secret", "9f8e7d6c5b4a39281706"),
    ("the key sk-proj-abcdefghijklmnop1234 leaked", "secret", "sk-proj-abcdefghijklmnop1234"),
    ("token ghp_abcdefghijklmnopqrstuvwxyz012345", "secret", "ghp_abcdefghijklmnopqrstuvwxyz012345"),
    ("aws AKIAIOSFODNN7EXAMPLE here", "secret", "AKIAIOSFODNN7EXAMPLE"),
    ("-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----", "secret", "MIIEow"),
]

HARMLESS = [
    "- Prefers metric units (2026-11-29#17)",
    '{"id": "2026-11-29#17", "ts": "2026-11-29T14:03:22.123+01:00"}',
    "Meeting on 2026-11-29 14:00 about version 3.11.4",
    "She ran 10 km in 52 minutes on 29.11.2026",
    "我喜欢在周末喝茶，每天走一万步。",
    "The secret is to let the dough rest.",
    "Token count was high today.",
    "The PIN pad was broken.",
    "Population of the city: 8 804 190",
    "Order #123456789 arrived",
    "Budget 1500 EUR, 3 days, 2 people",
    "<!-- src: 2026-11-29#17 --> moved to room 204",
]


@pytest.mark.parametrize(("text", "kind", "value"), SECRETS)
def test_masks_each_kind(text: str, kind: str, value: str) -> None:
    found = Redactions()
    masked = redact(text, found)
    assert value not in masked
    assert f"[{kind}]" in masked
    assert found.counts.get(kind, 0) >= 1


@pytest.mark.parametrize("text", HARMLESS)
def test_leaves_ordinary_text_alone(text: str) -> None:
    found = Redactions()
    assert redact(text, found) == text
    assert found.total == 0


def test_labelled_secret_keeps_label() -> None:
    assert redact("password: hunter22") == "password: [secret]"


def test_invalid_card_and_iban_checksums_are_not_masked() -> None:
    assert redact("ref 4111 1111 1111 1112") == "ref 4111 1111 1111 1112"
    assert "DE00" in redact("code DE00 3704 0044 0532 0130 00")


def test_redaction_is_idempotent() -> None:
    once = redact(" ".join(text for text, _, _ in SECRETS))
    assert redact(once) == once


@given(st.text(max_size=300))
def test_never_crashes_and_is_stable(text: str) -> None:
    once = redact(text)
    assert redact(once) == once
