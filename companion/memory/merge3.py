"""Three-way merge of a long-term file's lines: what each computer changed since their common version.

A change only one side made is taken. Lines both sides added at the same place are all kept (an
entry list grows on both computers). Where both changed or removed the same lines differently,
that is a true conflict: the merge keeps this computer's lines and returns the other computer's
version, for the user to choose, never a silent winner.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from difflib import SequenceMatcher
from typing import Sequence


@dataclass(frozen=True)
class Conflict:
    """Both sides changed `base` differently: `ours` was kept, `theirs` waits for the user."""

    base: tuple[str, ...]
    ours: tuple[str, ...]
    theirs: tuple[str, ...]


@dataclass
class Merged:
    lines: list[str]
    conflicts: list[Conflict] = field(default_factory=list)

    @property
    def text(self) -> str:
        return "".join(self.lines)


@dataclass(frozen=True)
class _Hunk:
    start: int  # base range [start, end) replaced by `lines`
    end: int
    lines: tuple[str, ...]


def _hunks(base: Sequence[str], other: Sequence[str]) -> list[_Hunk]:
    matcher = SequenceMatcher(None, base, other, autojunk=False)
    return [_Hunk(i1, i2, tuple(other[j1:j2])) for tag, i1, i2, j1, j2 in matcher.get_opcodes() if tag != "equal"]


def _overlap(first: _Hunk, second: _Hunk) -> bool:
    if first.start == first.end and second.start == second.end:
        return first.start == second.start  # two insertions at one place
    if first.start == first.end:
        return second.start < first.start < second.end
    if second.start == second.end:
        return first.start < second.start < first.end
    return first.start < second.end and second.start < first.end


def _apply(base: Sequence[str], start: int, end: int, hunks: list[_Hunk]) -> tuple[str, ...]:
    out: list[str] = []
    pos = start
    for hunk in sorted(hunks, key=lambda h: (h.start, h.end)):
        out.extend(base[pos : hunk.start])
        out.extend(hunk.lines)
        pos = hunk.end
    out.extend(base[pos:end])
    return tuple(out)


def common_base(ours: Sequence[str], theirs: Sequence[str]) -> list[str]:
    """The lines both versions share, in order: a stand-in base when no common version is known
    (everything else then counts as added, so nothing is lost)."""
    matcher = SequenceMatcher(None, ours, theirs, autojunk=False)
    return [line for block in matcher.get_matching_blocks() for line in ours[block.a : block.a + block.size]]


def merge3(base: Sequence[str], ours: Sequence[str], theirs: Sequence[str]) -> Merged:
    """Merge two descendants of `base` (lists of lines with their endings)."""
    tagged = sorted([(h, 0) for h in _hunks(base, ours)] + [(h, 1) for h in _hunks(base, theirs)],
                    key=lambda t: (t[0].start, t[0].end))
    merged = Merged([])
    pos = 0
    index = 0
    while index < len(tagged):
        group = [tagged[index]]
        start, end = tagged[index][0].start, tagged[index][0].end
        index += 1
        while index < len(tagged) and any(_overlap(tagged[index][0], g[0]) for g in group):
            group.append(tagged[index])
            end = max(end, tagged[index][0].end)
            index += 1
        merged.lines.extend(base[pos:start])
        mine = [h for h, side in group if side == 0]
        other = [h for h, side in group if side == 1]
        ours_part = _apply(base, start, end, mine)
        theirs_part = _apply(base, start, end, other)
        if not other or ours_part == theirs_part:
            merged.lines.extend(ours_part)
        elif not mine:
            merged.lines.extend(theirs_part)
        elif all(h.start == h.end for h, _ in group):  # both only added here: keep all of it
            merged.lines.extend(ours_part)
            merged.lines.extend(line for line in theirs_part if line not in ours_part)
        else:
            merged.lines.extend(ours_part)
            merged.conflicts.append(Conflict(tuple(base[start:end]), ours_part, theirs_part))
        pos = end
    merged.lines.extend(base[pos:])
    return merged


def choose_base(candidates: Sequence[Sequence[str]], ours: Sequence[str], theirs: Sequence[str]) -> int | None:
    """Index of the newest candidate (History versions, newest first) both sides descend from.

    A version is taken as common when every line of it that this side still has is also on the
    other side. A version too new for that holds lines the other computer never saw, and a merge
    from it would read their absence as a removal and drop them; an older version only turns such
    a removal into a line kept. So the test errs towards keeping: nothing this side has is lost."""
    mine, other = set(ours), set(theirs)
    for index, lines in enumerate(candidates):
        if (set(lines) & mine) <= other:
            return index
    return None


def replace_block(body: str, ours: Sequence[str], theirs: Sequence[str]) -> str:
    """`body` with the lines `ours` replaced by `theirs` (the user chose the other computer's
    version); when `ours` is no longer there as one block, `theirs` is added at the end."""
    lines = body.splitlines(keepends=True)
    mine = [l.rstrip("\r\n") for l in ours]
    bare = [l.rstrip("\r\n") for l in lines]
    new = [l if l.endswith("\n") else l + "\n" for l in theirs]
    if mine:
        for start in range(len(bare) - len(mine) + 1):
            if bare[start : start + len(mine)] == mine:
                return "".join(lines[:start] + new + lines[start + len(mine) :])
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    return "".join(lines + new)
