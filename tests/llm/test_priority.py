"""Chat first: a background generation yields to a chat request and is re-run whole afterwards."""

from __future__ import annotations

import pytest

import threading
import time

from companion.llm.base import GenerationOptions, collect
from companion.llm.priority import SharedBackend
from companion.llm.scripted import ScriptedBackend

LONG = " ".join(f"word{i}" for i in range(60))


def test_chat_preempts_background_which_retries_whole() -> None:
    inner = ScriptedBackend([LONG, "chat reply", LONG], delay=0.01)
    shared = SharedBackend(inner, quiet_s=0.05)
    bg, fg = shared.background(), shared.foreground()
    result: dict[str, object] = {}

    def background() -> None:
        result["bg"] = collect(bg.stream_chat([{"role": "user", "content": "x"}], GenerationOptions(max_tokens=500)))
        result["bg_done"] = time.monotonic()

    thread = threading.Thread(target=background)
    thread.start()
    time.sleep(0.1)  # the background generation is under way
    text, _, reason = collect(fg.stream_chat([{"role": "user", "content": "hi"}], GenerationOptions()))
    chat_done = time.monotonic()
    thread.join(timeout=10)
    assert text == "chat reply" and reason == "stop"
    bg_text, _, bg_reason = result["bg"]  # type: ignore[misc]
    assert bg_text == LONG and bg_reason == "stop"  # never half an answer
    assert shared.preemptions == 1
    assert result["bg_done"] > chat_done  # type: ignore[operator]
    assert len(inner.prompts) == 3


def test_background_waits_while_chat_is_busy() -> None:
    inner = ScriptedBackend(["first chat", "bg"], delay=0.02)
    shared = SharedBackend(inner, quiet_s=0.2)
    fg, bg = shared.foreground(), shared.background()
    order: list[str] = []
    collect(fg.stream_chat([], GenerationOptions()))
    order.append("chat")
    started = time.monotonic()
    text, _, _ = collect(bg.stream_chat([], GenerationOptions()))
    order.append("bg")
    assert text == "bg" and order == ["chat", "bg"]
    assert time.monotonic() - started >= 0.15  # waited for chat to be quiet


def test_cancelled_background_stops_and_stays_cancelled() -> None:
    inner = ScriptedBackend([LONG, LONG], delay=0.01)
    shared = SharedBackend(inner, quiet_s=0.0)
    bg = shared.background()
    out: dict[str, object] = {}
    thread = threading.Thread(target=lambda: out.update(r=collect(bg.stream_chat([], GenerationOptions(max_tokens=500)))))
    thread.start()
    time.sleep(0.05)
    bg.cancel()
    thread.join(timeout=5)
    assert out["r"][2] == "cancelled"  # type: ignore[index]
    assert collect(bg.stream_chat([], GenerationOptions()))[2] == "cancelled"
    # chat still works after a background cancel
    assert collect(shared.foreground().stream_chat([], GenerationOptions()))[0] == LONG


def test_foreground_cancel_does_not_touch_background() -> None:
    inner = ScriptedBackend(["a b c"])
    shared = SharedBackend(inner, quiet_s=0.0)
    shared.foreground().cancel()  # nothing running: must not poison the next background call
    assert collect(shared.background().stream_chat([], GenerationOptions()))[0] == "a b c"
    assert shared.info.name == "scripted"


def test_owner_view_closes_the_model_and_stops_background() -> None:
    inner = ScriptedBackend([LONG], delay=0.01)
    shared = SharedBackend(inner, quiet_s=0.0)
    bg = shared.background()
    out: dict[str, object] = {}
    thread = threading.Thread(target=lambda: out.update(r=collect(bg.stream_chat([], GenerationOptions(max_tokens=500)))))
    thread.start()
    time.sleep(0.05)
    shared.foreground().close()  # a plain view does not own the model
    assert not inner.closed
    shared.foreground(owner=True).close()
    thread.join(timeout=5)
    assert inner.closed and not thread.is_alive()


def test_background_generations_are_marked_background_and_chat_is_not() -> None:
    inner = ScriptedBackend(["bg", "chat"])
    shared = SharedBackend(inner, quiet_s=0.0)
    collect(shared.background().stream_chat([], GenerationOptions()))
    collect(shared.foreground().stream_chat([], GenerationOptions()))
    assert [o.background for o in inner.options] == [True, False]


@pytest.mark.slow
def test_background_holds_still_while_the_user_types_then_finishes_whole() -> None:
    inner = ScriptedBackend([LONG], delay=0.005)
    shared = SharedBackend(inner, quiet_s=0.3)
    bg = shared.background()
    out: dict[str, object] = {}
    thread = threading.Thread(target=lambda: out.update(r=collect(bg.stream_chat([], GenerationOptions(max_tokens=500)))))
    thread.start()
    time.sleep(0.05)
    shared.foreground().user_active()  # a key press
    typed_at = time.monotonic()
    thread.join(timeout=10)
    finished = time.monotonic()
    assert out["r"][:2] == (LONG, [])  # type: ignore[index]
    assert shared.pauses == 1 and shared.preemptions == 0  # paused, not restarted
    assert len(inner.prompts) == 1
    assert finished - typed_at >= 0.25  # it waited for the typing to stop


def test_chat_takes_the_model_from_a_paused_background_generation() -> None:
    inner = ScriptedBackend([LONG, "chat reply", LONG], delay=0.005)
    shared = SharedBackend(inner, quiet_s=0.2)
    bg, fg = shared.background(), shared.foreground()
    out: dict[str, object] = {}
    thread = threading.Thread(target=lambda: out.update(r=collect(bg.stream_chat([], GenerationOptions(max_tokens=500)))))
    thread.start()
    time.sleep(0.03)
    fg.user_active()
    time.sleep(0.05)  # paused now
    assert collect(fg.stream_chat([], GenerationOptions()))[0] == "chat reply"
    thread.join(timeout=10)
    assert out["r"][0] == LONG and shared.preemptions == 1  # type: ignore[index]


def test_a_closed_model_is_never_asked_to_count() -> None:
    """Background work (the sleep job) may still count tokens while the app quits: a closed model's
    tokenizer is freed memory, so the views answer with the estimate instead."""
    from companion.llm.base import estimate_tokens

    calls: list[str] = []

    class Counting(ScriptedBackend):
        def count_tokens(self, text: str) -> int:
            calls.append(text)
            return super().count_tokens(text)

    inner = Counting()
    shared = SharedBackend(inner, quiet_s=0.0)
    background, foreground = shared.background(), shared.foreground()
    assert background.count_tokens("hello there") == inner.count_tokens("hello there")
    calls.clear()
    shared.close()
    assert inner.closed
    assert background.count_tokens("hello there") == estimate_tokens("hello there")
    assert foreground.count_tokens("你好") == 2 and calls == []


def test_a_borrowed_model_stays_open() -> None:
    inner = ScriptedBackend()
    SharedBackend(inner, owns_inner=False).close()
    assert not inner.closed
