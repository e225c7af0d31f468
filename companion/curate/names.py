"""The user's and the companion's names: the `Name:` entry of USER.md / SOUL.md (read by recall, set from Preferences)."""

from __future__ import annotations

from companion.errors import RefusedWriteError
from companion.curate.policy import FACT_FILES, Actor, Proposal, decide
from companion.memory import entries as E
from companion.memory.longterm import LongTermStore


def current_name(store: LongTermStore, file: str) -> str:
    return name_in(store.read(file).body)


def name_in(body: str) -> str:
    """The name a file's `- Name:` entry holds ('' when there is none)."""
    for line in body.splitlines():
        name = E.name_of(line)
        if name:
            return name
    return ""


def set_name(store: LongTermStore, file: str, section: str, name: str) -> bool:
    """Replace the active `Name:` entry, or add one under `section`. False when nothing changed;
    RefusedWriteError when the policy refuses the name (an instruction in disguise, a secret)."""
    name = " ".join(name.split())
    if not name or name == current_name(store, file):
        return False
    doc = store.read(file)
    others = {other: store.read(other).body for other in FACT_FILES if other != file}
    decision = decide(Proposal(E.name_entry(name), file, Actor.USER, section), others)
    if not decision:
        raise RefusedWriteError(f"That name was not saved: {decision.reason}.")
    line = E.format_entry(decision.text)
    old = next((l for l in doc.body.splitlines() if E.name_of(l)), None)
    if old is not None:
        store.write(file, doc.with_body(E.replace_line(doc.body, old, [line])), doc.sha, actor="user")
    else:
        store.append(file, line, section, expected_sha=doc.sha, actor="user")
    return True
