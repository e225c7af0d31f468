"""Canonical tool calls and the calls a prompt's input already spells out, in any encoding.

A call counts as the model's own only if its canonical form (name and arguments, whitespace and
Unicode width folded, key order ignored, string-encoded arguments decoded) appears nowhere in the
input. The input is read at every level of JSON string escaping (and with HTML entities and
percent-escapes decoded), every JSON object in it is decoded and walked, and an object of arguments
right after a tool's name (`<function=x>{...}`, `call:x{...}`, `x[ARGS]{...}`) counts as a call too.
The scan has a work budget; input too hostile to read within it counts as quoting every call.
"""

from __future__ import annotations

import html
import json
import re
import unicodedata
from dataclasses import dataclass, field
from typing import Any, Iterable
from urllib.parse import unquote

from companion.llm.base import ToolCall

SCAN_BUDGET = 40_000_000  # characters the scan may read (decoding included) before it gives up
MAX_LEVELS = 64  # levels of string escaping unwrapped per input
MAX_FRONTIER = 16  # differently decoded spellings of one input followed at once
_ESCAPE = re.compile(r"\\(?:u([0-9a-fA-F]{4})|([\"\\/bfnrt]))")
_SIMPLE = {"b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", '"': '"', "\\": "\\", "/": "/"}
_NAME_BEFORE = re.compile(r"[A-Za-z_][\w.\-]*")
# Calls written as object literals rather than JSON: Gemma 4's `{file:<|"|>USER.md<|"|>}`, `{file: 'x'}`.
_TEMPLATE_QUOTE = re.compile(r"<\|\"\|>|<\|'\|>")
_BARE_KEY = re.compile(r"(?<=[{,])(\s*)([A-Za-z_][\w-]*)(\s*):")
_NAME_WINDOW = 80  # characters before an arguments object searched for the tool's name
_NAMES_TRIED = 4


def _scalar(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, str):
        return " ".join(unicodedata.normalize("NFKC", value).split())
    return str(value)


def _canonical(value: Any, depth: int = 0) -> Any:
    if depth > 64:
        return "…"
    if isinstance(value, dict):
        return {_scalar(k): _canonical(v, depth + 1) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_canonical(v, depth + 1) for v in value]
    return _scalar(value)


def decoded_arguments(args: Any) -> Any:
    """Arguments as an object: a string holding JSON (escaped any number of times) is decoded."""
    for _ in range(MAX_LEVELS):
        if not isinstance(args, str):
            return args
        try:
            args = json.loads(args)
        except (ValueError, RecursionError):
            return args
    return args


def canonical_name(name: str) -> str:
    name = unicodedata.normalize("NFKC", name).strip()
    return name.removeprefix("functions.")


def fingerprint(call: ToolCall) -> str:
    """Name and arguments in one canonical spelling: the same call however it was written."""
    return fingerprint_of(call.name, call.arguments)


def fingerprint_of(name: str, arguments: Any) -> str:
    canon = _canonical(decoded_arguments(arguments))
    return json.dumps([canonical_name(name), canon], sort_keys=True, ensure_ascii=False)


def call_in(data: Any) -> tuple[str, Any] | None:
    """(name, arguments) when `data` is shaped as a call (`name` with `arguments`/`parameters`, or a `function` object)."""
    if not isinstance(data, dict):
        return None
    name = data.get("name")
    function = data.get("function")
    if name is None and isinstance(function, dict):
        name = function.get("name")
    elif name is None and isinstance(function, str):
        name = function
    if not isinstance(name, str):
        return None
    args = data.get("arguments", data.get("parameters", data.get("args", {})))
    if isinstance(function, dict) and "arguments" not in data and "parameters" not in data:
        args = function.get("arguments", function.get("parameters", {}))
    return name, args


def json_unescape(text: str) -> str:
    """One level of JSON string escaping removed; backslashes that escape nothing stay as they are."""
    if "\\" not in text:
        return text

    def one(match: re.Match[str]) -> str:
        if match.group(1) is not None:
            return chr(int(match.group(1), 16))
        return _SIMPLE[match.group(2)]

    out = _ESCAPE.sub(one, text)
    try:  # \ud83d\ude00 pairs decoded one by one leave surrogates: join them
        return out.encode("utf-16", "surrogatepass").decode("utf-16")
    except UnicodeError:
        return out


def relaxed(text: str) -> str:
    """Object literals read as JSON: a template's quote tokens become quotes, bare keys get quoted."""
    if "{" not in text:
        return text
    return _BARE_KEY.sub(r'\1"\2"\3:', _TEMPLATE_QUOTE.sub('"', text))


@dataclass
class Quoted:
    """The fingerprints of every call written in a prompt's input; `complete` is False when the scan ran out of budget."""

    fingerprints: set[str] = field(default_factory=set)
    complete: bool = True

    def contains(self, call: ToolCall) -> bool:
        return not self.complete or fingerprint(call) in self.fingerprints

    def __bool__(self) -> bool:
        return bool(self.fingerprints) or not self.complete


class _Scanner:
    def __init__(self, budget: int) -> None:
        self.budget = budget
        self.found: set[str] = set()
        self.decoder = json.JSONDecoder()
        self.seen: set[int] = set()

    def spend(self, amount: int) -> bool:
        self.budget -= amount
        return self.budget >= 0

    def text(self, text: str) -> bool:
        """Scan one input at every escaping level; False when the budget ran out."""
        frontier = {text}
        for _ in range(MAX_LEVELS):
            deeper: set[str] = set()
            for view in frontier:
                for variant in (view, unicodedata.normalize("NFKC", view), html.unescape(view), unquote(view), relaxed(view)):
                    key = hash(variant)
                    if key in self.seen:
                        continue
                    self.seen.add(key)
                    if not self.spend(len(variant)) or not self.view(variant):
                        return False
                    unwrapped = json_unescape(variant)
                    if unwrapped != variant:
                        deeper.add(unwrapped)
            if not deeper:
                return True
            if len(deeper) > MAX_FRONTIER:
                return False
            frontier = deeper
        return False  # escaped deeper than anyone writes by hand: treat as hostile

    def view(self, text: str) -> bool:
        position = text.find("{")
        while position != -1:
            try:
                value, end = self.decoder.raw_decode(text, position)
            except ValueError as exc:
                cost = getattr(exc, "pos", position + 1) - position
                if not self.spend(max(1, cost)):
                    return False
                position = text.find("{", position + 1)
                continue
            except RecursionError:
                if not self.spend(len(text) - position):
                    return False
                position = text.find("{", position + 1)
                continue
            if not self.spend(end - position):
                return False
            self.walk(value, 0)
            if isinstance(value, dict):
                self.named_arguments(text[max(0, position - _NAME_WINDOW) : position], value)
            position = text.find("{", end)
        return True

    def walk(self, value: Any, depth: int) -> None:
        if depth > 200:
            return
        if isinstance(value, dict):
            shaped = call_in(value)
            if shaped is not None:
                self.found.add(fingerprint_of(*shaped))
            for item in value.values():
                self.walk(item, depth + 1)
        elif isinstance(value, list):
            for item in value:
                self.walk(item, depth + 1)

    def named_arguments(self, before: str, arguments: dict[str, Any]) -> None:
        """An object of arguments written right after a name: `<function=x>{`, `call:x{`, `x[ARGS]{`."""
        for name in _NAME_BEFORE.findall(before)[-_NAMES_TRIED:]:
            self.found.add(fingerprint_of(name, arguments))


def quoted_calls(texts: Iterable[Any], budget: int = SCAN_BUDGET) -> Quoted:
    """Every call written anywhere in `texts`, at any level of escaping."""
    scanner = _Scanner(budget)
    for text in texts:
        if isinstance(text, str) and text and not scanner.text(text):
            return Quoted(scanner.found, complete=False)
    return Quoted(scanner.found)
