"""Stop a reply that has fallen into a loop (small models repeat lines or phrases)."""

from __future__ import annotations

import re
from collections import Counter

MIN_LINE = 12
LINE_REPEATS = 3
SHAPE_REPEATS = 6  # a short numbered list may share a shape; six copies of it is a loop
TAIL_WINDOW = 400


class RepetitionGuard:
    """Feed it the reply as it streams; `looping` turns True once a line keeps coming back
    or the tail is one phrase repeated."""

    def __init__(self) -> None:
        self.text = ""
        self._lines: Counter[str] = Counter()
        self._shapes: Counter[str] = Counter()
        self._done_upto = 0
        self.looping = False

    def feed(self, piece: str) -> bool:
        self.text += piece
        while "\n" in self.text[self._done_upto :]:
            end = self.text.index("\n", self._done_upto)
            raw = " ".join(self.text[self._done_upto : end].split()).casefold()
            self._done_upto = end + 1
            if len(raw) >= MIN_LINE:
                self._lines[raw] += 1
                self._shapes[_shape(raw)] += 1
                if self._lines[raw] >= LINE_REPEATS or self._shapes[_shape(raw)] >= SHAPE_REPEATS:
                    self.looping = True
        if not self.looping and len(self.text) > 200:
            self.looping = _tail_loops(self.text[-TAIL_WINDOW:])
        return self.looping

    def trimmed(self) -> str:
        """The reply without the repeated lines after their first occurrence."""
        seen: set[str] = set()
        kept: list[str] = []
        lines = self.text.split("\n")
        for line in lines:
            key = " ".join(line.split()).casefold()
            if len(key) >= MIN_LINE and key in seen:
                continue
            seen.add(key)
            kept.append(line)
        partial = " ".join(lines[-1].split()).casefold()
        if partial and kept and kept[-1] is lines[-1] and any(s != partial and s.startswith(partial) for s in seen):
            kept.pop()  # the cut-off start of yet another repeat
        return "\n".join(kept).strip()


_NUMBER = re.compile(r"\d+")


def _shape(line: str) -> str:
    """Lines that differ only in numbers ("Age_27", "Age_28", ...) share a shape."""
    return _NUMBER.sub("#", line)


def _tail_loops(tail: str) -> bool:
    """True when the tail is one phrase (8-100 chars) repeated at least four times."""
    for size in range(8, 101):
        unit = tail[-size:]
        if unit.strip() and tail.endswith(unit * 4):
            return True
    return False
