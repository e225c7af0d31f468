"""Find tool calls in a model's text output (Hermes/Qwen `<tool_call>` blocks, bare JSON)."""

from __future__ import annotations

import json
import re
from typing import Any

from companion.llm.base import ToolCall

_TAGGED = re.compile(r"<tool_call>\s*(.*?)\s*</tool_call>", re.DOTALL)
_FUNCTION_TAG = re.compile(r"<function=([\w.-]+)>\s*(\{.*?\})\s*</function>", re.DOTALL)


def _as_call(data: Any, known: set[str]) -> ToolCall | None:
    if not isinstance(data, dict):
        return None
    name = data.get("name") or (data.get("function") or {}).get("name") if isinstance(data.get("function", {}), dict) else data.get("name")
    args = data.get("arguments", data.get("parameters", {}))
    if isinstance(args, str):
        try:
            args = json.loads(args)
        except ValueError:
            return None
    if not isinstance(name, str) or name not in known or not isinstance(args, dict):
        return None
    return ToolCall(name=name, arguments=args)


def parse_tool_calls(text: str, known: set[str]) -> tuple[str, list[ToolCall]]:
    """(text with the calls removed, calls). Only names in `known` count as calls."""
    calls: list[ToolCall] = []

    def take(match: re.Match[str]) -> str:
        try:
            call = _as_call(json.loads(match.group(1)), known)
        except ValueError:
            return match.group(0)
        if call is None:
            return match.group(0)
        calls.append(call)
        return ""

    remaining = _TAGGED.sub(take, text)

    def take_function(match: re.Match[str]) -> str:
        try:
            args = json.loads(match.group(2))
        except ValueError:
            return match.group(0)
        if match.group(1) in known and isinstance(args, dict):
            calls.append(ToolCall(name=match.group(1), arguments=args))
            return ""
        return match.group(0)

    remaining = _FUNCTION_TAG.sub(take_function, remaining)
    stripped = remaining.strip()
    if not calls and stripped.startswith("{") and stripped.endswith("}"):
        try:
            call = _as_call(json.loads(stripped), known)
        except ValueError:
            call = None
        if call is not None:
            return "", [call]
    for index, call in enumerate(calls):
        call.id = f"call_{index}"
    return remaining.strip(), calls
