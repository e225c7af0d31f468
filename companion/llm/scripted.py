"""A scripted backend: replies from a queue, records every prompt. For tests and demos."""

from __future__ import annotations

import json
import time
from collections import deque
from typing import Iterable, Iterator

from companion.llm.base import CancelFlag, Chunk, GenerationOptions, Message, ModelInfo, ToolCall


class ScriptedBackend:
    """Each reply is a string (streamed word by word), a ToolCall list, or an Exception to raise.

    With a JSON schema and a dict queued, the dict is returned as JSON text.
    An empty queue answers with `default`.
    """

    def __init__(
        self,
        replies: Iterable[object] = (),
        *,
        default: str = "OK.",
        supports_tools: bool = False,
        delay: float = 0.0,
        n_ctx: int = 4096,
    ) -> None:
        self.replies: deque[object] = deque(replies)
        self.default = default
        self.delay = delay
        self.prompts: list[list[Message]] = []
        self.options: list[GenerationOptions] = []
        self.prefills: list[list[Message]] = []
        self.closed = False
        self.speed: float | None = None  # what prompt_speed() reports (tokens a second)
        self._cancel = CancelFlag()
        self.info = ModelInfo(name="scripted", n_ctx=n_ctx, chat_format="scripted", supports_tools=supports_tools)

    def queue(self, *replies: object) -> None:
        self.replies.extend(replies)

    def stream_chat(self, messages: list[Message], options: GenerationOptions) -> Iterator[Chunk]:
        cancelled = self._cancel.reset()
        self.prompts.append([dict(m) for m in messages])
        self.options.append(options)
        reply = self.replies.popleft() if self.replies else self.default
        if isinstance(reply, BaseException):
            raise reply
        if isinstance(reply, list) and all(isinstance(c, ToolCall) for c in reply):
            yield Chunk(tool_calls=list(reply), finish_reason="tool_calls")
            return
        text = json.dumps(reply, ensure_ascii=False) if isinstance(reply, (dict, list)) else str(reply)
        produced = 0
        for piece in _pieces(text):
            if cancelled.is_set():
                yield Chunk(finish_reason="cancelled")
                return
            if produced >= options.max_tokens:
                yield Chunk(finish_reason="length")
                return
            if self.delay:
                time.sleep(self.delay)
            produced += 1
            yield Chunk(text=piece)
        yield Chunk(finish_reason="stop")

    def count_tokens(self, text: str) -> int:
        return max(1, len(text) // 4) if text else 0

    def cancel(self) -> None:
        self._cancel.set()

    def prefill(self, messages: list[Message]) -> None:
        self.prefills.append([dict(m) for m in messages])

    def prompt_speed(self) -> float | None:
        return self.speed

    def close(self) -> None:
        self.closed = True


def _pieces(text: str) -> Iterator[str]:
    start = 0
    for index, char in enumerate(text):
        if char == " " and index > start:
            yield text[start:index]
            start = index
    if start < len(text):
        yield text[start:]
