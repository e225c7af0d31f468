"""Reading a model server's streamed reply without trusting it: line and reply size caps, deadlines.

A server can send an endless line, far more tokens than asked for, or keep-alive comments that
hold a turn forever; each of these ends the reply here with a clear reason.
"""

from __future__ import annotations

import json
import logging
import time
from dataclasses import dataclass
from typing import Any, Iterable, Iterator

from companion.errors import RemoteServerError
from companion.llm.base import Chunk, ToolCall
from companion.llm.toolparse import Quoted, ToolTextFilter

log = logging.getLogger(__name__)
MAX_LINE_BYTES = 1 * 2**20  # one SSE line; a token delta is a few hundred bytes
CHARS_PER_TOKEN_CAP = 16  # a reply longer than max_tokens * this in characters is not one the client asked for
SECONDS_PER_TOKEN = 0.5  # the whole reply may take the first-token wait plus this per token asked for


@dataclass
class Limits:
    """What one reply may cost: tokens (as deltas and as characters) and time."""

    max_tokens: int
    first_token_s: float
    reply_s: float

    @classmethod
    def for_reply(cls, max_tokens: int, timeout_s: float) -> "Limits":
        return cls(max_tokens, timeout_s, timeout_s + max_tokens * SECONDS_PER_TOKEN)


class Deadline:
    """Raises once the first token or the whole reply is later than its limit (checked on every read)."""

    def __init__(self, limits: Limits, where: str) -> None:
        self.limits = limits
        self.where = where
        self.started = time.monotonic()
        self.first_seen = False

    def check(self) -> None:
        waited = time.monotonic() - self.started
        if not self.first_seen and waited > self.limits.first_token_s:
            raise RemoteServerError(
                f"The model server at {self.where} sent no reply in {self.limits.first_token_s:.0f} s. "
                "It may be overloaded; try again or raise the timeout in Settings > Model."
            )
        if waited > self.limits.reply_s:
            raise RemoteServerError(
                f"The model server at {self.where} took over {self.limits.reply_s:.0f} s for one reply; stopped waiting."
            )


def sse_events(chunks: Iterable[bytes], deadline: Deadline) -> Iterator[dict[str, Any]]:
    """`data:` payloads of a server-sent event stream, until `[DONE]`. A line, or one event's `data:`
    lines together, over MAX_LINE_BYTES are refused, and so is a payload that is not a JSON object."""
    buffer = b""
    data: list[str] = []
    held = 0  # bytes of the event being gathered
    for chunk in chunks:
        deadline.check()
        buffer += chunk
        while (end := buffer.find(b"\n")) != -1:
            raw, buffer = buffer[:end], buffer[end + 1 :]
            if len(raw) > MAX_LINE_BYTES:
                raise RemoteServerError(f"The model server sent a line over {MAX_LINE_BYTES // 2**20} MB; stopped reading.")
            line = raw.decode("utf-8", "replace").rstrip("\r")
            if line.startswith("data:"):
                held += len(raw)
                if held > MAX_LINE_BYTES:
                    raise RemoteServerError(
                        f"The model server sent one event over {MAX_LINE_BYTES // 2**20} MB; stopped reading."
                    )
                data.append(line[5:].lstrip())
                continue
            if line or not data:
                continue
            payload, data, held = "\n".join(data), [], 0
            if payload == "[DONE]":
                return
            yield _event(payload)
        if len(buffer) > MAX_LINE_BYTES:
            raise RemoteServerError(f"The model server sent a line over {MAX_LINE_BYTES // 2**20} MB; stopped reading.")
    if buffer.startswith(b"data:"):
        data.append(buffer[5:].decode("utf-8", "replace").strip())
    if data and data[0] != "[DONE]":
        yield _event("\n".join(data))


def _event(payload: str) -> dict[str, Any]:
    try:
        value = json.loads(payload)
    except (ValueError, RecursionError) as exc:
        raise RemoteServerError(
            "The model server sent a reply that is not valid JSON; stopped reading. "
            "Check that the address points to an OpenAI-compatible server."
        ) from exc
    if not isinstance(value, dict):
        raise RemoteServerError("The model server sent an event that is not a JSON object; stopped reading.")
    return value


class StreamState:
    """Turns OpenAI streaming deltas into Chunks; holds back text that may be a tool call written as
    text, and ends the reply once it is longer than was asked for."""

    def __init__(self, known: set[str], quoted: Quoted | None, limits: Limits, deadline: Deadline) -> None:
        self.filter = ToolTextFilter(known, quoted)
        self.calls: dict[int, dict[str, str]] = {}
        self.reason: str | None = None
        self.limits = limits
        self.deadline = deadline
        self.deltas = 0
        self.chars = 0

    @property
    def over_limit(self) -> bool:
        cap = self.limits.max_tokens
        return self.deltas > cap + 8 or self.chars > cap * CHARS_PER_TOKEN_CAP + 256

    def feed(self, event: dict[str, Any]) -> Iterator[Chunk]:
        if "error" in event:
            raise RemoteServerError(f"The model server failed while answering: {error_detail(event)}")
        choices = event.get("choices") or []
        if not choices:
            return
        choice = choices[0]
        delta = choice.get("delta") or {}
        for call in delta.get("tool_calls") or []:
            slot = self.calls.setdefault(int(call.get("index", len(self.calls))), {"id": "", "name": "", "arguments": ""})
            function = call.get("function") or {}
            slot["id"] = call.get("id") or slot["id"]
            slot["name"] += function.get("name") or ""
            slot["arguments"] += function.get("arguments") or ""
            self.deltas += 1
            self.chars += len(function.get("arguments") or "")
            self.deadline.first_seen = True
        content = delta.get("content") or ""
        if content:
            self.deltas += 1
            self.chars += len(content)
            self.deadline.first_seen = True
        piece = self.filter.feed(content)
        if piece:
            yield Chunk(text=piece)
        self.reason = choice.get("finish_reason") or self.reason
        if self.over_limit:
            log.warning("The model server sent more than the %d tokens asked for; the reply was cut", self.limits.max_tokens)
            self.reason = "length"

    def finish(self) -> Iterator[Chunk]:
        if self.reason == "length" and self.over_limit:
            self.calls.clear()  # a cut-off call is not one to run
        parsed = [self._structured(i, slot) for i, slot in sorted(self.calls.items())]
        calls = [c for c in parsed if c is not None and self.filter.accepts(c)]
        rest, text_calls = self.filter.finish()
        calls = calls or text_calls
        if rest:
            yield Chunk(text=rest)
        if calls:
            yield Chunk(tool_calls=calls, finish_reason="tool_calls")
            return
        reason = self.reason if self.reason != "tool_calls" else "stop"
        yield Chunk(finish_reason=reason or "stop")

    def _structured(self, index: int, slot: dict[str, str]) -> ToolCall | None:
        if not slot["name"]:
            return None
        try:
            arguments = json.loads(slot["arguments"] or "{}")
        except ValueError:
            arguments = None
        if not isinstance(arguments, dict):
            log.warning("Dropping a tool call with unreadable arguments: %r", slot["arguments"][:200])
            return None
        return ToolCall(name=slot["name"], arguments=arguments, id=slot["id"] or f"call_{index}")


def error_detail(body: bytes | dict[str, Any]) -> str:
    data: Any = body
    if isinstance(body, bytes):
        try:
            data = json.loads(body)
        except ValueError:
            return body.decode("utf-8", "replace").strip()[:300] or "no details"
    if isinstance(data, dict):
        error = data.get("error", data.get("detail", data))
        if isinstance(error, dict):
            return str(error.get("message") or error)[:300]
        return str(error)[:300]
    return str(data)[:300]
