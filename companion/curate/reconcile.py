"""Merge back the conflict copies a sync tool left in the memory folder, losing nothing.

- A day log's copy: its records that the original lacks (or holds with other words under the same
  id, written by two computers before the folder had a file per computer) are written to a
  recovery file of their own (`YYYY-MM-DD.<tag>.jsonl`, a tag derived from the copy's name), with
  fresh ids and `ref` naming the id they had; every reader then sees them in the day's log.
- SOUL.md, USER.md, MEMORY.md: a three-way merge from the last common version in History. What
  only one side changed is taken; what both changed differently stays as this computer has it and
  the other side waits in the proposals for the user to choose.
- A digest's copy: digests are rebuilt from the day logs, so the copy is only kept as a backup.

Every copy is moved to state/sync-conflicts/ after it was merged (a backup, on this computer).
"""

from __future__ import annotations

import hashlib
import logging
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from companion.atomic import atomic_write
from companion.errors import CompanionError, ConflictError
from companion.filelock import locked
from companion.memory.conflicts import ConflictCopy, copies_in
from companion.memory.daylog import day_of, read_file
from companion.memory.merge3 import choose_base, common_base, merge3
from companion.memory.records import Record, make_id
from companion.curate.gate import MemoryWriter
from companion.curate.policy import Actor
from companion.curate.proposals import ProposalQueue
from companion.paths import LONG_TERM_FILES, Home

log = logging.getLogger(__name__)

MAX_BASES = 60  # History versions tried as the common version
_LETTERS = "abcdefghijklmnopqrstuvwxyz"
_ALPHABET = _LETTERS + "0123456789"


@dataclass
class Reconciled:
    copies: list[str] = field(default_factory=list)  # names of the copies merged
    recovered: int = 0  # day-log records only a copy held
    merged: list[str] = field(default_factory=list)  # long-term files changed by a merge
    proposals: int = 0  # true conflicts waiting for the user

    def summary(self) -> str:
        if not self.copies:
            return "No conflict copies."
        return (f"Merged {len(self.copies)} conflict cop{'y' if len(self.copies) == 1 else 'ies'}: "
                f"{self.recovered} message(s) recovered, {len(self.merged)} memory file(s) merged, "
                f"{self.proposals} change(s) waiting for your choice.")


def recovery_tag(copy_name: str) -> str:
    """A device tag of its own for the records recovered from one copy (the same on every run)."""
    digest = hashlib.sha256(copy_name.encode("utf-8", "surrogateescape")).digest()
    return _LETTERS[digest[0] % 26] + "".join(_ALPHABET[b % 36] for b in digest[1:4])


def _backup(home: Home, copy: ConflictCopy) -> None:
    target = home.state / "sync-conflicts" / copy.path.parent.name / copy.path.name
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(copy.path, target)
    copy.path.unlink()


def _content(record: Record) -> tuple[str, str, str]:
    return record.ts, record.role, record.text


def _merge_day_copy(copy: ConflictCopy, result: Reconciled) -> None:
    day = day_of(copy.original)
    if day is None:
        return
    have = {r.id: _content(r) for r in read_file(copy.original).records}
    seen = set(have.values())
    lost = [r for r in read_file(copy.path).records if have.get(r.id) != _content(r) and _content(r) not in seen]
    if lost:
        tag = recovery_tag(copy.path.name)
        target = copy.original.with_name(f"{day.isoformat()}.{tag}.jsonl")
        lines = []
        for seq, record in enumerate(lost, start=1):
            extra = dict(record.extra)
            extra.setdefault("ref", record.id)
            extra["recovered_from"] = copy.path.name
            lines.append(Record(make_id(day, seq, tag), record.ts, record.role, record.text, extra).to_line())
        with locked(target.with_name("." + target.name + ".lock")):
            atomic_write(target, b"".join(lines))  # whole and the same on every run: a rerun changes nothing
        result.recovered += len(lost)


def _merge_long_term(writer: MemoryWriter, copy: ConflictCopy, queue: ProposalQueue, result: Reconciled) -> None:
    store = writer.store
    name = copy.original.name
    with open(copy.path, encoding="utf-8", errors="surrogateescape", newline="") as handle:
        theirs_raw = handle.read()
    for _attempt in range(3):
        doc = store.read(name)
        ours = doc.raw.splitlines(keepends=True)
        theirs = theirs_raw.splitlines(keepends=True)
        versions = store.history.versions(name)[:MAX_BASES]
        texts = [v.read().splitlines(keepends=True) for v in versions]
        chosen = choose_base(texts, ours, theirs)
        base = texts[chosen] if chosen is not None else common_base(ours, theirs)
        merged = merge3(base, ours, theirs)
        try:
            if merged.text != doc.raw:
                writer.change(name, lambda _doc: merged.text, actor=Actor.SYNC, expected_sha=doc.sha)
                result.merged.append(name)
        except ConflictError:  # edited meanwhile: merge again with what it holds now
            continue
        except CompanionError as exc:  # the merge would not parse (broken frontmatter): keep ours
            log.warning("Merging %s failed (%s): the other computer's version waits for the user", copy.path.name, exc)
            queue.propose_conflict(name, ours, theirs, copy.path.name)
            result.proposals += 1
            return
        for conflict in merged.conflicts:
            queue.propose_conflict(name, list(conflict.ours), list(conflict.theirs), copy.path.name)
            result.proposals += 1
        return
    raise CompanionError(f"{name} kept changing while its conflict copy was merged; it will be tried again.")


def reconcile(home: Home, writer: MemoryWriter, queue: ProposalQueue) -> Reconciled:
    """Find every conflict copy in the memory folder and merge it back."""
    result = Reconciled()
    days = home.days
    months = sorted(p for p in days.iterdir() if p.is_dir()) if days.is_dir() else []
    for month in months:
        for copy in copies_in(month):
            if day_of(copy.original) is None:
                continue
            _merge_day_copy(copy, result)
            _backup(home, copy)
            result.copies.append(copy.path.name)
    for copy in copies_in(home.memory, set(LONG_TERM_FILES)):
        _merge_long_term(writer, copy, queue, result)
        _backup(home, copy)
        result.copies.append(copy.path.name)
    if home.digests.is_dir():
        for level in sorted(p for p in home.digests.iterdir() if p.is_dir()):
            for copy in copies_in(level):
                if copy.original.exists() or copy.original.suffix == ".md":
                    _backup(home, copy)  # rebuilt from the day logs by the night
                    result.copies.append(copy.path.name)
    if result.copies:
        log.info("%s", result.summary())
    return result


def has_copies(home: Home) -> bool:
    """Whether any conflict copy waits (cheap enough to ask at start-up)."""
    if copies_in(home.memory, set(LONG_TERM_FILES)):
        return True
    days = home.days
    for month in sorted((p for p in days.iterdir() if p.is_dir()), reverse=True)[:3] if days.is_dir() else []:
        if any(day_of(c.original) is not None for c in copies_in(month)):
            return True
    return False

