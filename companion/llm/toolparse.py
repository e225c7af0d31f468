"""Find tool calls in a model's text output (Hermes/Qwen `<tool_call>` blocks, `<function=...>`, bare JSON).

A call counts only in the model's native position: at the very start of the reply, before any
prose. A block quoted later in a reply (a pasted web page the model repeats) stays text, and so
does a call that also appears anywhere in the prompt's own input, in any spelling (`llm/quoted.py`).
"""

from __future__ import annotations

import json
import logging
import re
from typing import Any, Iterable

from companion.llm.base import ToolCall
from companion.llm.quoted import Quoted, call_in, decoded_arguments, fingerprint, quoted_calls

__all__ = ["ToolTextFilter", "Quoted", "fingerprint", "parse_tool_calls", "prompt_inputs", "quoted_calls"]

log = logging.getLogger(__name__)

_LEADING = re.compile(
    r"\s*(?:<tool_call>\s*(?P<tagged>.*?)\s*</tool_call>"
    r"|<function=(?P<fname>[\w.-]+)>\s*(?P<fargs>\{.*?\})\s*</function>)",
    re.DOTALL,
)
TOOL_PREFIXES = ("<tool_call>", "{", "<function=")


def _as_call(data: Any, known: set[str] | None) -> ToolCall | None:
    shaped = call_in(data)
    if shaped is None:
        return None
    name, args = shaped
    args = decoded_arguments(args)
    if (known is not None and name not in known) or not isinstance(args, dict):
        return None
    return ToolCall(name=name, arguments=args)


def _from_match(tagged: str | None, fname: str | None, fargs: str | None, known: set[str] | None) -> ToolCall | None:
    try:
        if tagged is not None:
            return _as_call(json.loads(tagged), known)
        args = json.loads(fargs or "")
    except (ValueError, RecursionError):
        return None
    if isinstance(args, dict) and fname and (known is None or fname in known):
        return ToolCall(name=fname, arguments=args)
    return None


def parse_tool_calls(text: str, known: set[str], quoted: Quoted | None = None) -> tuple[str, list[ToolCall]]:
    """(text without the calls, calls). Calls count only at the start of the reply, only for names
    in `known`, and only when `quoted` (the calls found in the prompt's input) holds none of them."""
    calls: list[ToolCall] = []
    position = 0
    while (match := _LEADING.match(text, position)) is not None:
        call = _from_match(match.group("tagged"), match.group("fname"), match.group("fargs"), known)
        if call is None:
            break
        calls.append(call)
        position = match.end()
    rest = text[position:] if calls else text
    stripped = text.strip()
    if not calls and stripped.startswith("{") and stripped.endswith("}"):
        try:
            call = _as_call(json.loads(stripped), known)
        except (ValueError, RecursionError):
            call = None
        if call is not None:
            calls, rest = [call], ""
    if quoted is not None and any(quoted.contains(c) for c in calls):
        log.warning("Ignored a tool call the model copied from its input")
        return text.strip(), []
    for index, call in enumerate(calls):
        call.id = f"call_{index}"
    return rest.strip(), calls


def prompt_inputs(messages: Iterable[dict[str, Any]]) -> Quoted:
    """The calls spelled out anywhere in a prompt's input: every message's text, whatever its role (an
    assistant message in the history may be an imported record, or a reply that repeated a page)."""
    return quoted_calls(m.get("content") for m in messages)


class ToolTextFilter:
    """Streams a reply's text, holding back its start while it may still become a tool call."""

    def __init__(self, known: set[str], quoted: Quoted | None = None) -> None:
        self.known = known
        self.quoted = quoted if quoted is not None else Quoted()
        self.held = ""
        self.streaming = not known

    def feed(self, piece: str) -> str:
        """The text that can be shown now."""
        if self.streaming:
            return piece
        self.held += piece
        stripped = self.held.lstrip()
        if stripped and not any(p.startswith(stripped[: len(p)]) for p in TOOL_PREFIXES):
            self.streaming = True
            held, self.held = self.held, ""
            return held
        return ""

    def finish(self) -> tuple[str, list[ToolCall]]:
        """The text still held back and the calls at the start of the reply."""
        held, self.held = self.held, ""
        if not held or not self.known:
            return held, []
        return parse_tool_calls(held, self.known, self.quoted)

    def accepts(self, call: ToolCall) -> bool:
        """False for a structured call to a tool that was not offered (none are, in private mode) or
        that the prompt's input already spelled out."""
        if call.name not in self.known:
            log.warning("Ignored a call to %r, a tool that was not offered", call.name[:80])
            return False
        if self.quoted.contains(call):
            log.warning("Ignored a tool call the model copied from its input")
            return False
        return True
