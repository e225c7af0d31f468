"""Loop detection for small models."""

from __future__ import annotations

from companion.agent.repetition import RepetitionGuard


def feed_all(text: str) -> RepetitionGuard:
    guard = RepetitionGuard()
    for word in text.split(" "):
        if guard.feed(word + " "):
            break
    return guard


def test_repeated_lines_are_detected_and_trimmed():
    text = "Hello Ana.\n\n" + "I'm happy you're feeling better.\n\n" * 5
    guard = feed_all(text)
    assert guard.looping
    assert guard.trimmed().count("feeling better") == 1


def test_repeated_phrase_without_newlines():
    guard = feed_all("Sure. " + "the cat sat on the mat, " * 30)
    assert guard.looping


def test_normal_text_is_not_a_loop():
    text = "\n".join(f"- Step {i}: do the thing number {i} carefully." for i in range(30))
    guard = feed_all(text)
    assert not guard.looping
    assert guard.trimmed() == text.strip()
