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
    steps = ["Preheat the oven", "Mix flour and butter", "Add two eggs", "Fold in the apples", "Bake for 40 minutes",
             "Let it cool", "Dust with sugar", "Serve with cream"]
    text = "\n".join(f"{i}. {step}, then check it." for i, step in enumerate(steps, 1))
    guard = feed_all(text)
    assert not guard.looping
    assert guard.trimmed() == text.strip()


def test_lines_that_differ_only_in_numbers_are_a_loop():
    text = "Bio\n" + "".join(f"- My name is [Persona_Name_Age_{i}]\nBio\n" for i in range(20, 30))
    assert feed_all(text).looping


def test_a_numbered_list_is_not_a_loop():
    text = "\n".join(f"{i}. Buy item number {i} at the market" for i in range(1, 6))
    assert not feed_all(text + "\n").looping
