"""The one sensitive-data detector: every listed format is found, ordinary text is not, and the
write guard and the export redactor agree on the same corpus."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from companion.curate.sensitive import entropy, find_contact, find_sensitive, luhn_ok, scan
from companion.portability.redact import redact

CORPUS = json.loads((Path(__file__).parents[1] / "data" / "sensitive_corpus.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("text", CORPUS["secret"])
def test_secrets_are_never_storable(text: str) -> None:
    assert find_sensitive(text) is not None, text


@pytest.mark.parametrize("text", CORPUS["contact"])
def test_contact_data_is_found_but_is_not_a_secret(text: str) -> None:
    assert find_contact(text) is not None, text
    assert find_sensitive(text) is None, text


@pytest.mark.parametrize("text", CORPUS["harmless"])
def test_ordinary_text_is_left_alone(text: str) -> None:
    assert scan(text) == []


@pytest.mark.parametrize("text", [t for kind in ("secret", "contact", "harmless") for t in CORPUS[kind]])
def test_write_guard_and_redactor_agree(text: str) -> None:
    guarded = find_sensitive(text) is not None or find_contact(text) is not None
    masked = redact(text)
    assert guarded == (masked != text), (text, masked)
    for finding in scan(text):
        assert text[finding.start : finding.end] not in masked


def test_private_key_block_is_masked_whole() -> None:
    block = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\nAAAABG5vbmUAAAAEbm9uZQ\n-----END OPENSSH PRIVATE KEY-----"
    assert redact(f"key:\n{block}\nthanks") == "key:\n[secret]\nthanks"


def test_entropy_check_flags_random_tokens_not_long_words() -> None:
    assert find_sensitive("use Zq8Lm2Xv9Rt4Yp7Wn3Bk6Hj1Gd5Fs0Ce") is not None
    assert find_sensitive("Antidisestablishmentarianism_is_a_long_word") is None
    assert entropy("aaaa") == 0.0


def test_one_luhn_check() -> None:
    assert luhn_ok("4111111111111111")
    assert not luhn_ok("4111111111111112")
    assert find_sensitive("ref 4111 1111 1111 1112") is None

