"""Memory tools the model may call, as JSON-schema definitions and one executor."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Callable

from companion.errors import CompanionError, ConflictError, ToolError
from companion.llm.base import ToolCall
from companion.curate.gate import MemoryWriter, NeedsApproval, Refused
from companion.curate.policy import Actor
from companion.memory.document import Document
from companion.memory.longterm import LongTermStore, all_replaced, appended, check_name, edited, section_replaced

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
class Undo:
    """How to take a tool's change back: the file as it was, and the hash it has right after."""

    file: str
    before: str
    after_sha: str


@dataclass
class ToolResult:
    name: str
    arguments: dict[str, Any]
    ok: bool
    output: str
    changed: str | None = None  # the file that changed, if any
    proposed: str = ""  # why the change waits for the user's approval (nothing was written)
    undo: Undo | None = None

    def to_dict(self) -> dict[str, Any]:
        data = {"name": self.name, "arguments": self.arguments, "ok": self.ok, "result": self.output}
        if self.proposed:
            data["proposed"] = self.proposed
        return data


def _text_arg(args: dict[str, Any], key: str, required: bool = True) -> str:
    value = args.get(key)
    if value is None and not required:
        return ""
    if not isinstance(value, str):
        raise ToolError(f"'{key}' must be a string.")
    return value


_SECTION = re.compile(r"^(#{1,6} )?[^\n\r#]{1,80}$")


def _section_arg(args: dict[str, Any]) -> str | None:
    section = _text_arg(args, "section", required=False).strip()
    if not section:
        return None
    if not _SECTION.match(section):
        raise ToolError("'section' must be one heading on one line, such as '## Facts'.")
    return section


class ToolExecutor:
    """Runs tool calls against the long-term store; every failure becomes a message for the model.

    Writes go through the one writer as `actor` (the model's own calls: TOOL; an outside agent's:
    AGENT): the curation checks (no secrets, no duplicates, the drop-share guard), and the costly
    changes wait for the user's approval unless the user's message of this turn asked for them."""

    def __init__(self, store: LongTermStore, actor: Actor) -> None:
        self.store = store
        self.writer = MemoryWriter(store)
        self.actor = actor
        self.extra: dict[str, Callable[[dict[str, Any]], str]] = {}
        self._extra_definitions: list[dict[str, Any]] = []
        self.user_text = ""

    def begin_turn(self, user_text: str) -> None:
        """The user's message of the turn now running: what the user asked for."""
        self.user_text = user_text

    def register(self, definition: dict[str, Any], handler: Callable[[dict[str, Any]], str]) -> None:
        """Add a read-only tool (e.g. memory_search) with its JSON-schema definition."""
        self.extra[definition["function"]["name"]] = handler
        self._extra_definitions.append(definition)

    @property
    def definitions(self) -> list[dict[str, Any]]:
        return TOOL_DEFINITIONS + self._extra_definitions

    def run(self, call: ToolCall) -> ToolResult:
        return self._run(call.name, call.arguments, approved=False)

    def apply(self, proposal: ToolResult) -> ToolResult:
        """Carry out a proposed change the user approved."""
        return self._run(proposal.name, proposal.arguments, approved=True)

    def undo(self, result: ToolResult) -> str:
        """Put the file back as it was before `result`'s change; refused if it changed since."""
        if result.undo is None:
            raise ToolError("This change cannot be undone here; use the file's history.")
        try:
            self.writer.write(result.undo.file, result.undo.before, actor=Actor.RESTORE, expected_sha=result.undo.after_sha)
        except ConflictError as exc:
            raise ToolError(f"{result.undo.file} changed again since; take it back from the file's history instead.") from exc
        return f"Undid the change to {result.undo.file}."

    def _run(self, name: str, args: dict[str, Any], approved: bool) -> ToolResult:
        try:
            if name in self.extra:
                return ToolResult(name, args, True, self.extra[name](args))
            if name == "read_memory":
                return ToolResult(name, args, True, self.store.read(check_name(args.get("file"))).body)
            if name in WRITE_TOOLS:
                return self._write(name, args, approved)
            raise ToolError(f"Unknown tool {name!r}. Available: {', '.join(self.names())}.")
        except CompanionError as exc:
            return ToolResult(name, args, False, f"Error: {exc}")

    def _write(self, name: str, args: dict[str, Any], approved: bool) -> ToolResult:
        file = check_name(args.get("file"))
        action, change = _change(name, args)
        try:
            written = self.writer.change(file, change, actor=Actor.APPROVED if approved else self.actor,
                                         request=self.user_text, action=action)
        except Refused as exc:
            raise ToolError(str(exc)) from exc
        except NeedsApproval as exc:
            return ToolResult(name, args, True, f"Not applied yet: {exc.reason}. The change is shown to the user, who "
                              "can apply it; tell them briefly what you propose.", proposed=exc.reason)
        verb = "Edited" if action == "edit" else "Updated"
        done = f"{verb} {file}." if action == "edit" else f"{verb} {file} ({action})."
        return ToolResult(name, args, True, done, file, undo=Undo(file, written.before, written.doc.sha))

    def names(self) -> list[str]:
        return [t["function"]["name"] for t in self.definitions]


WRITE_TOOLS = ("edit_memory", "context_update")


def _change(name: str, args: dict[str, Any]) -> tuple[str, Callable[[Document], str]]:
    """(action, the change to the file's document) a write tool's arguments ask for."""
    if name == "edit_memory":
        old, new = _text_arg(args, "old_string"), _text_arg(args, "new_string")
        return "edit", lambda doc: edited(doc, old, new)
    action, added = str(args.get("action")), _text_arg(args, "content")
    section = _section_arg(args)
    if action == "append":
        return action, lambda doc: appended(doc, added, section)
    if action == "replace_section":
        if not section:
            raise ToolError("replace_section needs 'section', e.g. '## Facts'.")
        return action, lambda doc: section_replaced(doc, section, added)
    if action == "replace_all":
        return action, lambda doc: all_replaced(doc, added)
    raise ToolError("action must be 'append', 'replace_section' or 'replace_all'.")


def describe_change(result: ToolResult) -> str:
    """One line for the chat: what a tool changed or proposes to change."""
    args = result.arguments
    file = args.get("file", "")
    text = args.get("new_string") if result.name == "edit_memory" else args.get("content")
    action = "edit" if result.name == "edit_memory" else args.get("action", "")
    preview = " ".join(str(text or "").split())
    preview = preview[:160] + "…" if len(preview) > 160 else preview
    return f"{file} ({action}): {preview}" if preview else f"{file} ({action}, empty)"


def tool_message_content(result: ToolResult) -> str:
    return json.dumps({"ok": result.ok, "result": result.output}, ensure_ascii=False)
