"""`companion sync`: how this memory folder is shared between computers (this computer's tag, the sync
tool, the other computers, conflict copies waiting, who holds the night), and `--merge` to merge now."""

from __future__ import annotations

import argparse
from typing import Any

from companion.commands.terminal import safe
from companion.curate.gate import MemoryWriter
from companion.curate.proposals import ProposalQueue
from companion.curate.reconcile import has_copies, reconcile
from companion.errors import SleepBusyError
from companion.memory import maintenance
from companion.memory.daylog import DayLog
from companion.memory.device import other_devices, sync_tool
from companion.memory.longterm import LongTermStore
from companion.runtime import open_home
from companion.sleep.travel_lock import TravellingLock


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("sync", help="how the memory folder is shared between computers (Syncthing, Dropbox...)")
    parser.add_argument("--merge", action="store_true", help="merge the sync tool's conflict copies now (the night does it too)")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    with open_home(args.home, exclusive=False) as runtime:
        home = runtime.home
        device = DayLog(home.days).device
        tool = sync_tool(home.memory)
        if device is None:
            print("This memory folder is not synced: one computer, day files as always.")
            return 0
        others = sorted(other_devices(home.days, months=12) - {device})
        print(f"This computer: {device}; sync tool: {tool or 'not seen (other computers write here)'}")
        print(f"Other computers: {', '.join(others) or 'none yet'}")
        lock = TravellingLock(home.memory, device)
        holders = [h for h in lock.holders() if h.age(lock.clock()) < lock.stale_after]
        for holder in holders:
            print(safe(f"Sleeping now: {holder.node or holder.device} ({holder.device}) since {holder.since}"))
        print("Conflict copies waiting: " + ("yes" if has_copies(home) else "none"))
        waiting = ProposalQueue(home).items()
        print(f"Choices waiting for you: {len(waiting)}" + (" (companion mcp proposals)" if waiting else ""))
        if args.merge:
            if not lock.acquire():
                raise SleepBusyError("The other computer is sleeping for this memory; its night merges the copies.")
            try:
                with maintenance.shared(home):
                    result = reconcile(home, MemoryWriter(LongTermStore(home)), ProposalQueue(home))
            finally:
                lock.release()
            print(result.summary())
    return 0
