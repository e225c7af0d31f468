"""Find tool calls in a model's text output (Hermes/Qwen `<tool_call>` blocks, `<function=...>`, bare JSON).

A call counts only in the model's native position: at the very start of the reply, before any
prose. A block quoted later in a reply (a pasted web page the model repeats) stays text, and so
does a call that also appears in the prompt's own input (the user's message, a tool result).
"""

from __future__ import annotations

import json
import logging
import re
from typing import Any, Iterable

from companion.llm.base import ToolCall

log = logging.getLogger(__name__)

_LEADING = re.compile(
    r"\s*(?:<tool_call>\s*(?P<tagged>.*?)\s*</tool_call>"
    r"|<function=(?P<fname>[\w.-]+)>\s*(?P<fargs>\{.*?\})\s*</function>)",
    re.DOTALL,
)
_TAGGED = re.compile(r"<tool_call>\s*(.*?)\s*</tool_call>", re.DOTALL)
_FUNCTION_TAG = re.compile(r"<function=([\w.-]+)>\s*(\{.*?\})\s*</function>", re.DOTALL)
_BARE_START = re.compile(r"\{\s*\"(?:name|function)\"")
TOOL_PREFIXES = ("<tool_call>", "{", "<function=")
_MAX_SCAN = 2_000_000  # input characters searched for quoted calls


def _as_call(data: Any, known: set[str] | None) -> ToolCall | None:
    if not isinstance(data, dict):
        return None
    function = data.get("function")
    name = data.get("name")
    if name is None and isinstance(function, dict):
        name = function.get("name")
    args = data.get("arguments", data.get("parameters", {}))
    if isinstance(args, str):
        try:
            args = json.loads(args)
        except ValueError:
            return None
    if not isinstance(name, str) or (known is not None and name not in known) or not isinstance(args, dict):
        return None
    return ToolCall(name=name, arguments=args)


def _from_match(tagged: str | None, fname: str | None, fargs: str | None, known: set[str] | None) -> ToolCall | None:
    try:
        if tagged is not None:
            return _as_call(json.loads(tagged), known)
        args = json.loads(fargs or "")
    except ValueError:
        return None
    if isinstance(args, dict) and fname and (known is None or fname in known):
        return ToolCall(name=fname, arguments=args)
    return None


def _normal(value: Any) -> Any:
    if isinstance(value, str):
        return " ".join(value.split())
    if isinstance(value, dict):
        return {str(k): _normal(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_normal(v) for v in value]
    return value


def fingerprint(call: ToolCall) -> str:
    """Name and arguments with whitespace folded: the same call however it was laid out."""
    return json.dumps([call.name, _normal(call.arguments)], sort_keys=True, ensure_ascii=False)


def quoted_calls(texts: Iterable[str]) -> set[str]:
    """Fingerprints of every call written anywhere in `texts` (any tool name)."""
    found: set[str] = set()
    decoder = json.JSONDecoder()
    budget = _MAX_SCAN
    for text in texts:
        if not isinstance(text, str) or budget <= 0:
            continue
        text = text[:budget]
        budget -= len(text)
        if "<tool_call>" in text:
            for match in _TAGGED.finditer(text):
                call = _from_match(match.group(1), None, None, None)
                if call is not None:
                    found.add(fingerprint(call))
        if "<function=" in text:
            for match in _FUNCTION_TAG.finditer(text):
                call = _from_match(None, match.group(1), match.group(2), None)
                if call is not None:
                    found.add(fingerprint(call))
        for match in _BARE_START.finditer(text):
            try:
                data, _end = decoder.raw_decode(text, match.start())
            except ValueError:
                continue
            call = _as_call(data, None)
            if call is not None:
                found.add(fingerprint(call))
    return found


def parse_tool_calls(text: str, known: set[str], quoted: set[str] | None = None) -> tuple[str, list[ToolCall]]:
    """(text without the calls, calls). Calls count only at the start of the reply, only for names
    in `known`, and only when not in `quoted` (fingerprints of calls found in the prompt's input)."""
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
        except ValueError:
            call = None
        if call is not None:
            calls, rest = [call], ""
    if quoted and any(fingerprint(c) in quoted for c in calls):
        log.warning("Ignored a tool call the model copied from its input")
        return text.strip(), []
    for index, call in enumerate(calls):
        call.id = f"call_{index}"
    return rest.strip(), calls


def prompt_inputs(messages: Iterable[dict[str, Any]]) -> set[str]:
    """Fingerprints of the calls quoted in a prompt's input (every message but the model's own)."""
    return quoted_calls(m["content"] for m in messages if m.get("role") != "assistant" and isinstance(m.get("content"), str))


class ToolTextFilter:
    """Streams a reply's text, holding back its start while it may still become a tool call."""

    def __init__(self, known: set[str], quoted: set[str] | None = None) -> None:
        self.known = known
        self.quoted = quoted or set()
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
        """False for a structured call that the prompt's input already spelled out."""
        if fingerprint(call) in self.quoted:
            log.warning("Ignored a tool call the model copied from its input")
            return False
        return True
