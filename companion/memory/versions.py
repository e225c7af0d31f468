"""Which logged messages count: a deleted message and the versions of a reply not chosen stay in the
day log (append-only) but no prompt, digest or night's learning uses them.

A regenerated reply carries `replaces: <previous version's id>`; the versions of one reply form a
chain. An event with `chooses: <id>` picks the version that counts (else the newest does). An event
with `deletes: <id>` takes a message back.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable

if TYPE_CHECKING:  # records.py uses this module: no import at run time
    from companion.memory.records import Record


def deleted_ids(records: Iterable[Record]) -> set[str]:
    return {str(r.extra["deletes"]) for r in records if r.role == "event" and r.extra.get("deletes")}


def version_chains(records: Iterable[Record]) -> list[list[str]]:
    """The versions of each regenerated reply in log order (replies never regenerated are left out).
    A reply regenerated from any of its versions joins that reply's chain."""
    root_of: dict[str, str] = {}
    chains: dict[str, list[str]] = {}
    for record in records:
        old = record.extra.get("replaces")
        if not old or record.role != "assistant":
            continue
        root = root_of.setdefault(str(old), str(old))
        chain = chains.setdefault(root, [str(old)])
        if record.id not in root_of:
            chain.append(record.id)
            root_of[record.id] = root
    return list(chains.values())


def chosen_versions(records: list[Record]) -> dict[str, str]:
    """For every version id of a regenerated reply: the id of the version that counts. In log order,
    a new version counts until a `chooses` event picks another (a later regeneration counts again)."""
    chain_of = {rid: index for index, chain in enumerate(version_chains(records)) for rid in chain}
    current: dict[int, str] = {}
    for record in records:
        pick = str(record.extra["chooses"]) if record.role == "event" and record.extra.get("chooses") else record.id
        if pick in chain_of and (pick != record.id or record.role == "assistant"):
            current[chain_of[pick]] = pick
    return {rid: current.get(index, rid) for rid, index in chain_of.items()}


def not_counted(records: list[Record]) -> set[str]:
    """Ids of the messages that no longer count: deleted ones and the versions not chosen."""
    chosen = chosen_versions(records)
    return deleted_ids(records) | {rid for rid, pick in chosen.items() if rid != pick}


def counted(records: list[Record]) -> list[Record]:
    """`records` without those that no longer count (events that delete or choose stay)."""
    gone = not_counted(records)
    return [r for r in records if r.id not in gone]
