"""The user's and the companion's names: the `- Name:` line of USER.md / SOUL.md (read by recall, set from Preferences)."""

from __future__ import annotations

import re

from companion.memory.longterm import LongTermStore

_NAME_LINE = re.compile(r"^- Name: .*$", re.MULTILINE)


def current_name(store: LongTermStore, file: str) -> str:
    match = _NAME_LINE.search(store.read(file).body)
    if not match:
        return ""
    value = match.group(0)[len("- Name: "):]
    return re.sub(r"\s*\(\d{4}-\d{2}-\d{2}#\d+\)\s*$", "", value).strip()


def set_name(store: LongTermStore, file: str, section: str, name: str) -> bool:
    """Replace the first `- Name:` line, or add one under `section`. False when nothing changed."""
    name = " ".join(name.split())
    if not name or name == current_name(store, file):
        return False
    doc = store.read(file)
    line = f"- Name: {name}"
    if _NAME_LINE.search(doc.body):
        body = _NAME_LINE.sub(lambda _m: line, doc.body, count=1)
        store.write(file, doc.with_body(body), doc.sha, actor="user")
    else:
        store.append(file, line, section, expected_sha=doc.sha, actor="user")
    return True
