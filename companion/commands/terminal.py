"""Text printed to a terminal: control characters shown, never obeyed (no escapes from stored text)."""

from __future__ import annotations

import re

# C0 controls but tab and newline, DEL, and the C1 range (U+009B is a one-character CSI).
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def safe(text: str) -> str:
    """`text` with every control character that could drive the terminal replaced by a visible mark."""
    return _CONTROL.sub(lambda m: "^" + chr(ord(m.group()) ^ 0x40) if m.group() < "\x20" else "\ufffd", text)
