"""One model, two queues: chat (foreground) goes first, background work (sleep, learning) yields to it."""

from __future__ import annotations

import threading
import time
from dataclasses import replace
from typing import Iterator

from companion.llm.base import Backend, Chunk, GenerationOptions, Message, ModelInfo, estimate_tokens

DEFAULT_QUIET_S = 1.0


class SharedBackend:
    """Serializes access to one Backend; chat requests preempt background generations.

    A background generation is collected whole before it is handed back; when a chat
    request arrives it is stopped and re-run from the start once chat has been idle for
    `quiet_s` seconds, so the caller never sees a half answer. While the user is typing
    (`user_active()`) a background generation holds still between tokens, and none starts.
    Background generations run with `GenerationOptions.background` set: one thread, low priority.
    """

    def __init__(self, inner: Backend, *, quiet_s: float = DEFAULT_QUIET_S, owns_inner: bool = True) -> None:
        self.inner = inner
        self.owns_inner = owns_inner  # False: close() stops using `inner` but leaves it open (a borrowed model)
        self.quiet_s = quiet_s
        self._cond = threading.Condition()
        self._busy = False  # someone is using `inner`
        self._busy_is_background = False
        self._foreground_waiting = 0
        self._last_foreground = float("-inf")
        self._closed = False
        self.preemptions = 0
        self.pauses = 0

    @property
    def info(self) -> ModelInfo:
        return self.inner.info

    def foreground(self, *, owner: bool = False) -> "ForegroundView":
        """Chat's view. With owner=True, closing the view closes the model (for code that closes what it holds)."""
        return ForegroundView(self, owner=owner)

    def background(self) -> "BackgroundView":
        return BackgroundView(self)

    # -- scheduling ----------------------------------------------------------

    def user_active(self) -> None:
        """The user is typing or about to send: background work pauses until `quiet_s` after the last call."""
        with self._cond:
            self._last_foreground = max(self._last_foreground, time.monotonic())
            self._cond.notify_all()

    def _enter_foreground(self) -> None:
        with self._cond:
            self._foreground_waiting += 1
            self._cond.notify_all()  # a paused background generation gives the model up at once
            if self._busy and self._busy_is_background:
                self.inner.cancel()  # stop the background generation within a token
            try:
                while self._busy:
                    self._cond.wait()
            finally:
                self._foreground_waiting -= 1
            self._busy = True
            self._busy_is_background = False

    def _leave(self, foreground: bool) -> None:
        with self._cond:
            self._busy = False
            self._busy_is_background = False
            if foreground:
                self._last_foreground = time.monotonic()
            self._cond.notify_all()

    def _enter_background(self, cancelled: threading.Event) -> bool:
        """Wait until chat is idle (and has been for quiet_s); False if cancelled meanwhile."""
        with self._cond:
            while True:
                if cancelled.is_set() or self._closed:
                    return False
                quiet_left = self._last_foreground + self.quiet_s - time.monotonic()
                if not self._busy and not self._foreground_waiting and quiet_left <= 0:
                    self._busy = True
                    self._busy_is_background = True
                    return True
                self._cond.wait(timeout=max(0.02, min(quiet_left, 0.5)) if quiet_left > 0 else 0.5)

    def _hold_while_user_active(self, cancelled: threading.Event) -> bool:
        """Between two tokens of a background generation: wait while the user is active. False: stop it now."""
        paused = False
        with self._cond:
            while True:
                if cancelled.is_set() or self._closed or self._foreground_waiting:
                    return False
                quiet_left = self._last_foreground + self.quiet_s - time.monotonic()
                if quiet_left <= 0:
                    return True
                if not paused:
                    self.pauses += 1
                    paused = True
                self._cond.wait(timeout=min(quiet_left, 0.5))

    def foreground_pending(self) -> bool:
        with self._cond:
            return self._foreground_waiting > 0

    def close(self) -> None:
        """Stop background work, then close the model once it is free."""
        with self._cond:
            if self._closed:
                return
            self._closed = True
            if self._busy and self._busy_is_background:
                self.inner.cancel()
            self._foreground_waiting += 1
            try:
                while self._busy:
                    self._cond.wait(timeout=0.5)
            finally:
                self._foreground_waiting -= 1
            self._busy = True  # nobody uses it again
            self._cond.notify_all()
        if self.owns_inner:
            self.inner.close()

    @property
    def closed(self) -> bool:
        return self._closed

    def count_tokens(self, text: str) -> int:
        """The model's count while it is open; the estimate after (a closed model's tokenizer is freed memory)."""
        with self._cond:
            closed = self._closed
        return estimate_tokens(text) if closed else self.inner.count_tokens(text)


class ForegroundView:
    """The Backend that chat uses: waits only for a background call to stop, never queues behind it."""

    def __init__(self, shared: SharedBackend, *, owner: bool = False) -> None:
        self._shared = shared
        self._owner = owner

    @property
    def shared(self) -> SharedBackend:
        return self._shared

    @property
    def info(self) -> ModelInfo:
        return self._shared.info

    def stream_chat(self, messages: list[Message], options: GenerationOptions) -> Iterator[Chunk]:
        self._shared._enter_foreground()
        try:
            yield from self._shared.inner.stream_chat(messages, options)
        finally:
            self._shared._leave(foreground=True)

    def count_tokens(self, text: str) -> int:
        return self._shared.count_tokens(text)

    def user_active(self) -> None:
        """The user is typing: background work on this model holds still (see SharedBackend.user_active)."""
        self._shared.user_active()

    def cancel(self) -> None:
        shared = self._shared
        with shared._cond:
            if shared._busy and not shared._busy_is_background:
                shared.inner.cancel()

    def prefill(self, messages: list[Message]) -> None:
        self._shared._enter_foreground()
        try:
            self._shared.inner.prefill(messages)
        finally:
            self._shared._leave(foreground=True)

    def prompt_speed(self) -> float | None:
        return self._shared.inner.prompt_speed()

    def close(self) -> None:
        if self._owner:
            self._shared.close()


class BackgroundView:
    """The Backend that background jobs use: yields to chat, retries after preemption, cancellable."""

    def __init__(self, shared: SharedBackend) -> None:
        self._shared = shared
        self._cancelled = threading.Event()

    @property
    def info(self) -> ModelInfo:
        return self._shared.info

    @property
    def cancelled(self) -> bool:
        return self._cancelled.is_set()

    def stream_chat(self, messages: list[Message], options: GenerationOptions) -> Iterator[Chunk]:
        while True:
            if not self._shared._enter_background(self._cancelled):
                yield Chunk(finish_reason="cancelled")
                return
            try:
                chunks = self._run_once(messages, options)
            finally:
                self._shared._leave(foreground=False)
            if chunks is not None:
                yield from chunks
                return
            if self._cancelled.is_set() or self._shared._closed:
                yield Chunk(finish_reason="cancelled")
                return
            self._shared.preemptions += 1  # chat interrupted us: wait for quiet, then start over

    def _run_once(self, messages: list[Message], options: GenerationOptions) -> list[Chunk] | None:
        collected: list[Chunk] = []
        stream = self._shared.inner.stream_chat(messages, replace(options, background=True))
        try:
            for chunk in stream:
                if not self._shared._hold_while_user_active(self._cancelled):
                    return None
                if chunk.finish_reason == "cancelled":
                    return None
                collected.append(chunk)
        finally:
            stream.close()  # type: ignore[attr-defined]
        return collected

    def count_tokens(self, text: str) -> int:
        return self._shared.count_tokens(text)

    def cancel(self) -> None:
        """Stop this view for good: a running generation stops, later ones return 'cancelled'."""
        self._cancelled.set()
        shared = self._shared
        with shared._cond:
            if shared._busy and shared._busy_is_background:
                shared.inner.cancel()
            shared._cond.notify_all()

    def prefill(self, messages: list[Message]) -> None:
        """Background work never warms the cache: that would evict chat's prefix."""

    def prompt_speed(self) -> float | None:
        return self._shared.inner.prompt_speed()

    def close(self) -> None:
        """Views do not own the model."""
