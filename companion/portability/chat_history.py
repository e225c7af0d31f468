"""Read chat history exported by other tools (message lists, ChatGPT conversations.json) as day-log records."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from companion.memory.records import Record

_ROLES = {
    "user": "user",
    "human": "user",
    "assistant": "assistant",
    "bot": "assistant",
    "ai": "assistant",
    "model": "assistant",
    "gpt": "assistant",
    "tool": "tool",
    "function": "tool",
}


@dataclass(frozen=True)
class ImportedMessage:
    """One message from elsewhere, with where it came from (kept in the record's `ref`)."""

    when: datetime
    role: str
    text: str
    ref: str

    def to_record(self) -> Record:
        ts = self.when.isoformat(timespec="milliseconds")
        return Record(id=f"{self.when.date().isoformat()}#0", ts=ts, role=self.role, text=self.text)


def parse_time(value: Any) -> datetime | None:
    """ISO 8601 text or Unix seconds/milliseconds, as local time; None when absent or unreadable."""
    if isinstance(value, bool) or value is None:
        return None
    try:
        if isinstance(value, (int, float)):
            seconds = value / 1000 if value > 1e11 else value
            return datetime.fromtimestamp(seconds).astimezone()
        if isinstance(value, str) and value.strip():
            text = value.strip().replace("Z", "+00:00")
            stamp = datetime.fromisoformat(text)
            return stamp.astimezone() if stamp.tzinfo is None else stamp.astimezone()
    except (ValueError, OverflowError, OSError):
        return None
    return None


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content.strip()
    if isinstance(content, list):
        parts = [_text_of(part) for part in content]
        return "\n".join(p for p in parts if p).strip()
    if isinstance(content, dict):
        for key in ("text", "content", "parts"):
            if key in content:
                return _text_of(content[key])
    return ""


def looks_like_messages(data: Any) -> bool:
    messages = data.get("messages") if isinstance(data, dict) else data
    return (
        isinstance(messages, list)
        and bool(messages)
        and all(isinstance(m, dict) for m in messages[:20])
        and any("role" in m and "content" in m for m in messages[:20])
    )


def looks_like_chatgpt(data: Any) -> bool:
    return isinstance(data, list) and bool(data) and isinstance(data[0], dict) and isinstance(data[0].get("mapping"), dict)


def messages_from_list(data: Any, label: str, fallback: datetime) -> list[ImportedMessage]:
    """A list of {role, content, timestamp} (or {"messages": [...]}); system messages are left out."""
    messages = data.get("messages", []) if isinstance(data, dict) else data
    found: list[ImportedMessage] = []
    last = fallback
    for index, item in enumerate(messages):
        if not isinstance(item, dict):
            continue
        role = _ROLES.get(str(item.get("role", "")).lower())
        text = _text_of(item.get("content"))
        when = parse_time(item.get("timestamp", item.get("time", item.get("created_at")))) or last
        last = when
        if role and text:
            found.append(ImportedMessage(when, role, text, f"{label}:{index}"))
    return found


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _chatgpt_branch(conversation: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """(node id, message) along the branch the user last saw, oldest first."""
    mapping = _dict(conversation.get("mapping"))

    def node(key: Any) -> dict[str, Any] | None:
        value = mapping.get(key) if isinstance(key, str) else None
        return value if isinstance(value, dict) else None

    node_id = conversation.get("current_node")
    if node(node_id) is None:  # no pointer: follow first children from the root
        roots = [k for k, v in mapping.items() if isinstance(v, dict) and not v.get("parent")]
        node_id = roots[0] if roots else None
        seen_down: set[str] = set()
        while (current := node(node_id)) is not None and isinstance(node_id, str) and node_id not in seen_down:
            seen_down.add(node_id)
            children = current.get("children")
            if not isinstance(children, list) or not children:
                break
            node_id = children[0]
    branch: list[tuple[str, dict[str, Any]]] = []
    seen: set[str] = set()
    while (current := node(node_id)) is not None and isinstance(node_id, str) and node_id not in seen:
        seen.add(node_id)
        if isinstance(current.get("message"), dict):
            branch.append((node_id, current["message"]))
        node_id = current.get("parent")
    branch.reverse()
    return branch


def messages_from_chatgpt(data: list[Any], fallback: datetime) -> list[tuple[str, list[ImportedMessage]]]:
    """Per conversation: its title and messages (visible user/assistant/tool text only)."""
    conversations: list[tuple[str, list[ImportedMessage]]] = []
    for conv in data:
        if not isinstance(conv, dict):
            continue
        conv_id = str(conv.get("conversation_id") or conv.get("id") or "")
        last = parse_time(conv.get("create_time")) or fallback
        found: list[ImportedMessage] = []
        for node_id, message in _chatgpt_branch(conv):
            if _dict(message.get("metadata")).get("is_visually_hidden_from_conversation"):
                continue
            role = _ROLES.get(str(_dict(message.get("author")).get("role", "")).lower())
            text = _text_of(_dict(message.get("content")).get("parts"))
            when = parse_time(message.get("create_time")) or last
            last = when
            if role and text:
                found.append(ImportedMessage(when, role, text, f"chatgpt:{conv_id}:{node_id}"))
        if found:
            conversations.append((str(conv.get("title") or "Untitled"), found))
    return conversations
