"""The backend interface: stream chat chunks, count tokens, cancel, describe the model."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any, Iterator, Protocol, runtime_checkable

Message = dict[str, Any]  # {"role": "system"|"user"|"assistant"|"tool", "content": str, ...}


@dataclass
class ToolCall:
    name: str
    arguments: dict[str, Any]
    id: str = ""


@dataclass
class Chunk:
    """A piece of a streamed reply: text, or (at the end) parsed tool calls and the stop reason."""

    text: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    finish_reason: str | None = None


@dataclass
class GenerationOptions:
    max_tokens: int = 512
    temperature: float = 0.7
    top_p: float = 0.95
    stop: list[str] = field(default_factory=list)
    tools: list[dict[str, Any]] | None = None
    json_schema: dict[str, Any] | None = None  # constrain output to this JSON schema
    seed: int | None = None
    background: bool = False  # work nobody waits for (learning, sleep): one thread, below normal priority


@dataclass
class ModelInfo:
    name: str
    path: str = ""
    n_ctx: int = 4096
    n_gpu_layers: int = 0  # layers on the GPU (0: all on the CPU)
    gpu_offload_supported: bool = False
    device: str = "CPU"  # for people: "CPU", or "GPU name · 31/31 layers"
    gpu_name: str = ""  # the device the layers are on
    total_layers: int = 0  # the model's layers, counting the output layer as llama.cpp does
    device_note: str = ""  # why no GPU is used, when the machine or the build has none
    chat_format: str = ""
    has_chat_template: bool = True
    supports_tools: bool = False
    warnings: list[str] = field(default_factory=list)


@runtime_checkable
class Backend(Protocol):
    """What the agent and the sleep job need from a model."""

    @property
    def info(self) -> ModelInfo:
        """What the model is (read-only: views of a shared model pass on their model's)."""
        ...

    def stream_chat(self, messages: list[Message], options: GenerationOptions) -> Iterator[Chunk]:
        """Yield the reply as it is generated; stops early (finish_reason 'cancelled') after cancel()."""
        ...

    def count_tokens(self, text: str) -> int: ...

    def cancel(self) -> None:
        """Stop the generation in progress within one token (callable from any thread)."""
        ...

    def prefill(self, messages: list[Message]) -> None:
        """Evaluate the prompt for `messages` now so a later call reuses it (may be a no-op)."""
        ...

    def prompt_speed(self) -> float | None:
        """Prompt tokens read per second on this machine, as measured (None: not known yet, or a server's)."""
        ...

    def close(self) -> None: ...


class CancelFlag:
    """Per-generation cancellation shared by the backends."""

    def __init__(self) -> None:
        self._event = threading.Event()
        self._lock = threading.Lock()

    def reset(self) -> threading.Event:
        with self._lock:
            self._event = threading.Event()
            return self._event

    def set(self) -> None:
        with self._lock:
            self._event.set()


def estimate_tokens(text: str) -> int:
    """The token count without a tokenizer, erring high: about four ASCII characters per token,
    one per other character (CJK, accents, emoji)."""
    if not text:
        return 0
    ascii_chars = sum(1 for c in text if c < "\x80")
    return max(1, -(-ascii_chars // 4) + (len(text) - ascii_chars))


def collect(chunks: Iterator[Chunk]) -> tuple[str, list[ToolCall], str | None]:
    """Drain a stream into (text, tool calls, finish reason)."""
    parts: list[str] = []
    calls: list[ToolCall] = []
    reason: str | None = None
    for chunk in chunks:
        parts.append(chunk.text)
        calls.extend(chunk.tool_calls)
        reason = chunk.finish_reason or reason
    return "".join(parts), calls, reason
