"""Text printed to a terminal: control characters shown, never obeyed (no escapes from stored text)."""

from __future__ import annotations

import re
import sys
import time
from typing import Callable

# C0 controls but tab and newline, DEL, and the C1 range (U+009B is a one-character CSI).
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def safe(text: str) -> str:
    """`text` with every control character that could drive the terminal replaced by a visible mark."""
    return _CONTROL.sub(lambda m: "^" + chr(ord(m.group()) ^ 0x40) if m.group() < "\x20" else "\ufffd", text)


def step_printer(verb: str, every: float = 0.2) -> Callable[[int, int, str], None]:
    """A progress callback (done, total, what) that redraws one stderr line a few times a second."""
    last = [0.0]

    def show(done: int, total: int, what: str) -> None:
        now = time.monotonic()
        if now - last[0] < every and done < total:
            return
        last[0] = now
        print(f"\r\x1b[K{verb}: {done}/{total} {safe(what)[:60]}", end="", file=sys.stderr, flush=True)
        if done >= total:
            print(file=sys.stderr)

    return show
