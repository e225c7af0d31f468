"""Memory tools the model may call, as JSON-schema definitions and one executor."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Callable

from companion.errors import CompanionError, ToolError
from companion.llm.base import ToolCall
from companion.memory.longterm import LongTermStore, check_name
from companion.curate.sensitive import find_sensitive

_FILE = {"type": "string", "enum": ["SOUL.md", "USER.md", "MEMORY.md"], "description": "Which memory file."}

TOOL_DEFINITIONS: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": "read_memory",
            "description": "Read one of your memory files (SOUL.md persona, USER.md user profile, MEMORY.md facts).",
            "parameters": {"type": "object", "properties": {"file": _FILE}, "required": ["file"]},
        },
    },
    {
        "type": "function",
        "function": {
            "name": "edit_memory",
            "description": "Replace one exact, unique piece of text in a memory file. To add a line, quote a line as "
            "old_string and repeat it plus the new line as new_string.",
            "parameters": {
                "type": "object",
                "properties": {
                    "file": _FILE,
                    "old_string": {"type": "string"},
                    "new_string": {"type": "string"},
                },
                "required": ["file", "old_string", "new_string"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "context_update",
            "description": "Append to a memory file or one of its '## Section's, or replace a section or the whole body.",
            "parameters": {
                "type": "object",
                "properties": {
                    "file": _FILE,
                    "action": {"type": "string", "enum": ["append", "replace_section", "replace_all"]},
                    "content": {"type": "string"},
                    "section": {"type": "string", "description": "A heading such as '## Facts'."},
                },
                "required": ["file", "action", "content"],
            },
        },
    },
]


@dataclass
class ToolResult:
    name: str
    arguments: dict[str, Any]
    ok: bool
    output: str
    changed: str | None = None  # the file that changed, if any

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "arguments": self.arguments, "ok": self.ok, "result": self.output}


def _text_arg(args: dict[str, Any], key: str, required: bool = True) -> str:
    value = args.get(key)
    if value is None and not required:
        return ""
    if not isinstance(value, str):
        raise ToolError(f"'{key}' must be a string.")
    return value


class ToolExecutor:
    """Runs tool calls against the long-term store; every failure becomes a message for the model."""

    def __init__(self, store: LongTermStore) -> None:
        self.store = store
        self.extra: dict[str, Callable[[dict[str, Any]], str]] = {}
        self._extra_definitions: list[dict[str, Any]] = []

    def register(self, definition: dict[str, Any], handler: Callable[[dict[str, Any]], str]) -> None:
        """Add a read-only tool (e.g. memory_search) with its JSON-schema definition."""
        self.extra[definition["function"]["name"]] = handler
        self._extra_definitions.append(definition)

    @property
    def definitions(self) -> list[dict[str, Any]]:
        return TOOL_DEFINITIONS + self._extra_definitions

    def run(self, call: ToolCall) -> ToolResult:
        try:
            output, changed = self._dispatch(call.name, call.arguments)
            return ToolResult(call.name, call.arguments, True, output, changed)
        except CompanionError as exc:
            return ToolResult(call.name, call.arguments, False, f"Error: {exc}")

    def _dispatch(self, name: str, args: dict[str, Any]) -> tuple[str, str | None]:
        if name in self.extra:
            return self.extra[name](args), None
        if name == "read_memory":
            doc = self.store.read(check_name(args.get("file")))
            return doc.body, None
        if name == "edit_memory":
            file = check_name(args.get("file"))
            new = _text_arg(args, "new_string")
            self._refuse_secrets(new)
            self.store.edit(file, _text_arg(args, "old_string"), new, actor="tool")
            return f"Edited {file}.", file
        if name == "context_update":
            return self._context_update(args)
        raise ToolError(f"Unknown tool {name!r}. Available: {', '.join(self.names())}.")

    def _context_update(self, args: dict[str, Any]) -> tuple[str, str | None]:
        file = check_name(args.get("file"))
        action = args.get("action")
        content = _text_arg(args, "content")
        self._refuse_secrets(content)
        section = _text_arg(args, "section", required=False) or None
        if action == "append":
            self.store.append(file, content, section, actor="tool")
        elif action == "replace_section":
            if not section:
                raise ToolError("replace_section needs 'section', e.g. '## Facts'.")
            self.store.replace_section(file, section, content, actor="tool")
        elif action == "replace_all":
            self.store.replace_all(file, content, actor="tool")
        else:
            raise ToolError("action must be 'append', 'replace_section' or 'replace_all'.")
        return f"Updated {file} ({action}).", file

    @staticmethod
    def _refuse_secrets(text: str) -> None:
        kind = find_sensitive(text)
        if kind:
            raise ToolError(f"Refused: the text looks like {kind}, which is never stored in memory.")

    def names(self) -> list[str]:
        return [t["function"]["name"] for t in self.definitions]


def tool_message_content(result: ToolResult) -> str:
    return json.dumps({"ok": result.ok, "result": result.output}, ensure_ascii=False)
