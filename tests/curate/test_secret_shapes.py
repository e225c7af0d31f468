"""Passphrases, wallet recovery phrases and door, alarm and safe codes, in English and Chinese: the one
detector finds them, "remember" refuses them and `export --redact` masks them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from mnemonic import Mnemonic

from companion.agent.turn import Agent
from companion.cli import main
from companion.curate.recovery import MIN_WORDS, recovery_phrases
from companion.curate.sensitive import find_sensitive, scan
from companion.memory.daylog import DayLog
from companion.portability.redact import Redactions, redact

SHAPES = json.loads((Path(__file__).parents[1] / "data" / "secret_shapes.json").read_text(encoding="utf-8"))
SECRETS = [(shape, lang, text) for shape in ("passphrase", "recovery", "access_code")
           for lang in ("en", "zh") for text in SHAPES[shape][lang]]
HARMLESS = [(lang, text) for lang in ("en", "zh") for text in SHAPES["harmless"][lang]]


@pytest.mark.parametrize(("shape", "lang", "text"), SECRETS)
def test_finding_each_secret_shape_is_found_and_masked(shape: str, lang: str, text: str) -> None:
    assert find_sensitive(text) is not None, text
    found = Redactions()
    masked = redact(text, found)
    assert "[secret]" in masked and found.counts.get("secret"), masked
    for finding in scan(text):
        assert text[finding.start : finding.end] not in masked


@pytest.mark.parametrize(("lang", "text"), HARMLESS)
def test_remarks_about_passwords_and_ordinary_sentences_stay(lang: str, text: str) -> None:
    assert scan(text) == [], text


@pytest.mark.parametrize("language", ["english", "chinese_simplified", "chinese_traditional", "spanish", "french", "italian", "czech"])
@pytest.mark.parametrize("strength", [128, 256])
def test_generated_recovery_phrases_of_every_list_are_found_whole(language: str, strength: int) -> None:
    phrase = Mnemonic(language).generate(strength)
    text = f"backup: {phrase} (keep safe)"
    assert find_sensitive(text) == "a wallet recovery phrase"
    masked = redact(text)
    assert masked == "backup: [secret] (keep safe)", masked


def test_eleven_list_words_are_not_a_phrase() -> None:
    words = Mnemonic("english").wordlist
    assert recovery_phrases(" ".join(words[100:100 + MIN_WORDS - 1])) == []
    assert recovery_phrases(" ".join(words[100:100 + MIN_WORDS])) != []


@pytest.mark.parametrize("text", [
    "remember that my password is correct-horse-battery-staple",
    "remember pw is Tr0ub4dor&3",
    "remember the code for the front door is 4821",
    "记住 我的密码是 correct horse battery staple",
    "remember my seed: abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about",
])
def test_finding_remember_refuses_each_shape(home, clock, scripted, text: str) -> None:
    agent = Agent(home, scripted, clock=clock)
    before = {name: agent.store.read_raw(name) for name in ("USER.md", "MEMORY.md")}
    events = list(agent.run_turn(text))
    assert {name: agent.store.read_raw(name) for name in before} == before
    notes = [e.text for e in events if e.kind == "memory"]
    assert notes and not any(e.changed for e in events if e.kind == "memory"), notes


def test_finding_export_redact_masks_them_in_day_logs(home, clock, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = DayLog(home.days, clock)
    for _shape, _lang, text in SECRETS:
        log.append("user", text)
    assert main(["--home", str(home.root), "export", str(tmp_path / "out"), "--redact"]) == 0
    out = capsys.readouterr().out
    assert "secret" in out and "nothing" not in out.lower()
    exported = "\n".join(p.read_text(encoding="utf-8") for p in (tmp_path / "out").rglob("*.jsonl"))
    for value in ("correct-horse-battery-staple", "4821", "abandon abandon", "Tr0ub4dor", "battery staple", "红色 苹果"):
        assert value not in exported, value


def test_a_label_word_ending_a_recovery_phrase_labels_nothing() -> None:
    text = "backup: gate insane find primary real bus wave ability erupt display obscure pass (keep safe)"
    assert redact(text) == "backup: [secret] (keep safe)"
    assert redact("wifi pass: hunter2x9 (keep safe)") == "wifi pass: [secret] (keep safe)"
