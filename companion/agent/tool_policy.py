"""When a memory tool may change a file on its own, and when the user must approve the change first.

A tool call comes from the model, and the model may be repeating text it was shown (a pasted page,
a recalled note). So the changes that cost the most to lose (the persona in SOUL.md, replacing a
section or a whole file, dropping many entries) happen only when the user's own message of this
turn asked for them; otherwise they wait for the user's approval.
"""

from __future__ import annotations

import re

from companion.curate import listen
from companion.curate.apply import PERSONA_REQUEST, dropped_share, rewrite_refusal
from companion.curate.extract import own_words

# A longer first paragraph is most likely pasted text, not an instruction the user typed.
MAX_REQUEST_CHARS = 600
_VERB = (
    r"(?:change|update|edit|rewrite|set|write|add|put|modify|adjust|replace|reset|redo|clear|wipe|"
    r"erase|overwrite|restructure|reorgani[sz]e|clean up|fix|remove|delete)"
)
_SOUL_REQUEST = re.compile(
    rf"\b{_VERB}\b.{{0,40}}\b(soul(?:\.md)?|persona|personality|yourself|your (?:name|style|tone|character))\b"
    r"|(改|写|更新|修改|设定|重写|替换|换).{0,12}(人设|性格|SOUL|你的名字|你的风格|语气)",
    re.I | re.S,
)
_REPLACE_REQUEST = re.compile(
    r"\b(replace|rewrite|overwrite|redo|reset|clear|wipe|erase|start over|from scratch|clean up|"
    r"reorgani[sz]e|restructure|tidy)\b|重写|替换|覆盖|清空|重置|重新写|整理",
    re.I,
)
_FILE_OF_ACTION = {"SOUL.md": "your companion's persona (SOUL.md)", "USER.md": "your profile (USER.md)",
                   "MEMORY.md": "the memory file (MEMORY.md)"}


def _request(user_text: str) -> str:
    """The part of a message that can ask for a change: its first paragraph, in the user's own words.
    What follows a blank line is most often pasted (a page, a mail), and a page can say anything."""
    first = re.split(r"\n\s*\n", own_words(listen.own_part(user_text)).strip(), maxsplit=1)[0]
    return first if len(first) <= MAX_REQUEST_CHARS and listen.direct_request(first) else ""


def asked_for_soul(user_text: str) -> bool:
    words = _request(user_text)
    return bool(words) and bool(PERSONA_REQUEST.search(words) or _SOUL_REQUEST.search(words))


def asked_to_replace(user_text: str) -> bool:
    words = _request(user_text)
    return bool(words) and bool(_REPLACE_REQUEST.search(words))


def approval_reason(file: str, action: str, user_text: str, before: str, after: str) -> str | None:
    """Why this change needs the user's approval, or None when the user's message asked for it."""
    where = _FILE_OF_ACTION.get(file, file)
    if file == "SOUL.md" and not asked_for_soul(user_text):
        return f"it changes {where}, and you did not ask for that in this message"
    persona_section = action == "replace_section" and file == "SOUL.md"  # asked for above
    if action in ("replace_all", "replace_section") and not persona_section and not asked_to_replace(user_text):
        what = "the whole of" if action == "replace_all" else "a section of"
        return f"it replaces {what} {where}, and you did not ask for that in this message"
    if rewrite_refusal(before, after) is not None and not asked_to_replace(user_text):
        lost, total = dropped_share(before, after)
        return f"it removes {lost} of the {total} entries in {where}"
    if before.strip() and not after.strip() and not asked_to_replace(user_text):
        return f"it empties {where}"
    return None
