"""Changes to long-term memory that wait for the user: another agent's "remember this", and the
other computer's side of a true sync conflict. Kept in state/proposals.json; applied only when the
user approves, through the write policy and the long-term store (snapshotted, so Undo restores)."""

from __future__ import annotations

import json
import logging
import secrets
from dataclasses import asdict, dataclass, field, fields
from datetime import datetime
from pathlib import Path
from typing import Any, Callable

from companion.atomic import atomic_write
from companion.errors import CompanionError, ProposalError, RefusedWriteError, SchemaVersionError
from companion.filelock import locked
from companion.memory import entries as E
from companion.memory.conflicts import copies_in
from companion.memory.device import stored_tag
from companion.memory.merge3 import replace_block
from companion.curate.gate import MemoryWriter, Written
from companion.memory.longterm import appended
from companion.curate.policy import Actor, Proposal as PolicyProposal, decide
from companion.paths import Home

log = logging.getLogger(__name__)

QUEUE_VERSION = 1
KINDS = ("remember", "conflict")
STATUSES = ("pending", "approved", "declined", "undone")


@dataclass
class Pending:
    """One change waiting for the user.

    remember: `text` is an entry for `file` (`section`), proposed by the agent `source`.
    conflict: `theirs` are the other computer's lines where this computer kept `ours`."""

    id: str
    kind: str
    file: str
    created: str
    source: str  # the agent's name, or the conflict copy's file name
    text: str = ""
    section: str = ""
    ours: list[str] = field(default_factory=list)
    theirs: list[str] = field(default_factory=list)
    cites: list[str] = field(default_factory=list)  # day-log ids the entry will cite
    status: str = "pending"
    decided: str = ""
    undo_version: str = ""  # the History version an approval replaced (Undo restores it)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Pending":
        known = {f.name for f in fields(cls)}
        item = cls(**{k: v for k, v in data.items() if k in known})
        if item.kind not in KINDS or item.status not in STATUSES:
            raise ValueError(f"unknown proposal kind or status in {data!r}")
        return item

    def summary(self) -> str:
        if self.kind == "remember":
            return f"{self.source} asks to remember: {self.text}"
        theirs = " / ".join(E.entry_text(l) or l.strip() for l in self.theirs if l.strip()) or "(removed)"
        return f"{self.file} on the other computer says: {theirs}"


def queue_path(home: Home) -> Path:
    """state/proposals.json; in a synced folder it travels (`sync/proposals.json`), so a choice the night
    left on one computer waits on every computer, and is made once."""
    if stored_tag(home.state) is not None:
        return home.memory / "sync" / "proposals.json"
    return home.state / "proposals.json"


def _read(path: Path) -> list[Pending]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return []
    except (OSError, ValueError) as exc:
        raise CompanionError(f"{path} is unreadable ({exc}); move it away to start an empty queue.") from exc
    if isinstance(data, dict) and isinstance(data.get("schema_version"), int) and data["schema_version"] > QUEUE_VERSION:
        raise SchemaVersionError(f"{path.name} was written by a newer Companion; update Companion.")
    items = []
    for raw in data.get("items", []) if isinstance(data, dict) else []:
        try:
            items.append(Pending.from_dict(raw))
        except (TypeError, ValueError) as exc:
            log.warning("Skipped a damaged proposal in %s: %s", path, exc)
    return items


def _fold(mine: list[Pending], other: list[Pending]) -> list[Pending]:
    """Both computers' queues as one: every proposal once; of two states of one, the later decision."""
    by_id = {item.id: item for item in mine}
    for item in other:
        have = by_id.get(item.id)
        if have is None or (item.status != "pending" and (have.status == "pending" or item.decided > have.decided)):
            by_id[item.id] = item
    return sorted(by_id.values(), key=lambda i: (i.created, i.id))


class ProposalQueue:
    """The waiting changes of one home; safe across the app and `companion mcp` (one file lock)."""

    def __init__(self, home: Home, clock: Callable[[], datetime] = lambda: datetime.now().astimezone()) -> None:
        self.home = home
        self.clock = clock

    @property
    def path(self) -> Path:
        return queue_path(self.home)  # looked up each time: the folder may turn out synced meanwhile

    def _lock(self):  # noqa: ANN202 - a context manager
        return locked(self.home.state / "locks" / "proposals.lock")

    def _load(self) -> list[Pending]:
        """The queue, with a sync tool's conflict copies of it folded in (each proposal once, decided wins)."""
        path = self.path
        items = _read(path)
        for copy in copies_in(path.parent, {path.name}):
            items = _fold(items, _read(copy.path))
        local = self.home.state / "proposals.json"
        if local != path and local.exists():  # the folder was synced since: what waited here travels now
            items = _fold(items, _read(local))
        return items

    def _save(self, items: list[Pending]) -> None:
        data = {"schema_version": QUEUE_VERSION, "items": [i.to_dict() for i in items]}
        path = self.path
        atomic_write(path, json.dumps(data, ensure_ascii=False, indent=1))
        for copy in copies_in(path.parent, {path.name}):  # folded in above: nothing is lost
            copy.path.unlink(missing_ok=True)
        if path != self.home.state / "proposals.json":
            (self.home.state / "proposals.json").unlink(missing_ok=True)

    def items(self, status: str | None = "pending") -> list[Pending]:
        with self._lock():
            return [i for i in self._load() if status is None or i.status == status]

    def add(self, item: Pending) -> Pending:
        with self._lock():
            items = self._load()
            same = next((i for i in items if i.status == "pending" and i.kind == item.kind and i.file == item.file
                         and i.text == item.text and i.theirs == item.theirs), None)
            if same is not None:
                return same  # asked twice: one proposal
            items.append(item)
            self._save(items)
        return item

    def new_id(self) -> str:
        return f"{self.clock():%Y%m%dT%H%M%S}-{secrets.token_hex(3)}"

    def propose_remember(self, text: str, file: str, section: str, agent: str, cites: list[str]) -> Pending:
        """Queue another agent's entry after the policy's checks that need no file (secrets, injection, shape)."""
        decision = decide(PolicyProposal(text, file, Actor.AGENT, section))
        if not decision:
            raise ProposalError(f"Not proposed: {decision.reason}.")
        return self.add(Pending(self.new_id(), "remember", file, self.clock().isoformat(timespec="seconds"), agent,
                                text=decision.text, section=section, cites=list(cites)))

    def propose_conflict(self, file: str, ours: list[str], theirs: list[str], source: str) -> Pending:
        return self.add(Pending(self.new_id(), "conflict", file, self.clock().isoformat(timespec="seconds"), source,
                                ours=list(ours), theirs=list(theirs)))

    @staticmethod
    def _find(items: list[Pending], proposal_id: str) -> Pending:
        for item in items:
            if item.id == proposal_id:
                return item
        raise ProposalError(f"No proposal {proposal_id!r}; it may have been decided on the other window.")

    def _decide(self, proposal_id: str, change: Callable[[Pending], None]) -> Pending:
        with self._lock():
            items = self._load()
            item = self._find(items, proposal_id)
            change(item)
            item.decided = self.clock().isoformat(timespec="seconds")
            self._save(items)
        return item

    def approve(self, proposal_id: str, writer: MemoryWriter) -> Pending:
        """Apply it through the one writer (the policy decides once more, against the file as it is now)."""
        def change(item: Pending) -> None:
            if item.status != "pending":
                raise ProposalError(f"That proposal was already {item.status}.")
            try:
                written = _apply(item, writer)
            except RefusedWriteError as exc:
                raise ProposalError(f"Not saved: {exc}") from exc
            versions = writer.store.history.versions(item.file)
            item.undo_version = versions[0].id if versions and written.doc.raw != written.before else ""
            item.status = "approved"
        return self._decide(proposal_id, change)

    def decline(self, proposal_id: str) -> Pending:
        def change(item: Pending) -> None:
            if item.status != "pending":
                raise ProposalError(f"That proposal was already {item.status}.")
            item.status = "declined"
        return self._decide(proposal_id, change)

    def undo(self, proposal_id: str, writer: MemoryWriter) -> Pending:
        """Put the file back as it was before the approval."""
        def change(item: Pending) -> None:
            if item.status != "approved" or not item.undo_version:
                raise ProposalError("Only an approved change can be undone.")
            writer.restore(item.file, writer.store.history.get(item.file, item.undo_version), expected_sha=None)
            item.status = "undone"
        return self._decide(proposal_id, change)


def _apply(item: Pending, writer: MemoryWriter) -> Written:
    """Write the proposal: an agent's entry as the agent (the policy reads it), the other computer's
    version of a conflict as the user's choice between their own two computers."""
    if item.kind == "conflict":
        return writer.change(item.file, lambda doc: doc.with_body(replace_block(doc.body, item.ours, item.theirs)),
                             actor=Actor.SYNC)
    line = E.format_entry(item.text, item.cites) if item.cites else f"- {item.text}"
    return writer.change(item.file, lambda doc: appended(doc, line, item.section or None), actor=Actor.AGENT,
                         action="append")

