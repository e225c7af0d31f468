"""Text printed to a terminal: control characters shown, never obeyed (no escapes from stored text)."""

from __future__ import annotations

import re
import sys
import time
from typing import Any, Callable, TextIO

# C0 controls but tab and newline, DEL, and the C1 range (U+009B is a one-character CSI).
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def safe(text: str) -> str:
    """`text` with every control character that could drive the terminal replaced by a visible mark."""
    return _CONTROL.sub(lambda m: "^" + chr(ord(m.group()) ^ 0x40) if m.group() < "\x20" else "\ufffd", text)


# Everything `safe` replaces but the carriage return, which progress lines use to redraw themselves.
_STREAM_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


class SafeStream:
    """A text stream that passes everything written through `safe` (keeping \\r): no command's output,
    whatever text it carries, can drive the terminal."""

    def __init__(self, raw: TextIO) -> None:
        self.raw = raw

    def write(self, text: str) -> int:
        self.raw.write(_STREAM_CONTROL.sub(lambda m: safe(m.group()), text))
        return len(text)

    def __getattr__(self, name: str) -> Any:  # flush, fileno, isatty, encoding, ...
        return getattr(self.raw, name)


def step_printer(verb: str, every: float = 0.2) -> Callable[[int, int, str], None]:
    """A progress callback (done, total, what) that redraws one stderr line a few times a second."""
    last = [0.0]

    def show(done: int, total: int, what: str) -> None:
        now = time.monotonic()
        if now - last[0] < every and done < total:
            return
        last[0] = now
        print(f"\r{verb}: {done}/{total} {safe(what)[:60]:<60}", end="", file=sys.stderr, flush=True)
        if done >= total:
            print(file=sys.stderr)

    return show
