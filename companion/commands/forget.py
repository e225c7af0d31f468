"""`companion forget TEXT`: remove it from memory and from every copy: past conversations, digests,
earlier versions, backups and the search index (after showing where it was found)."""

from __future__ import annotations

import argparse
import sys
from typing import Any, Callable

from companion.curate.requests import MemoryRequests, forget_everywhere
from companion.commands.terminal import safe
from companion.errors import CompanionError
from companion.memory.daylog import DayLog
from companion.memory.longterm import LongTermStore
from companion.memory.search import SearchIndex
from companion.runtime import open_home

QUESTION = "Erase it from past conversations, digests, earlier versions and backups too? This cannot be undone. [y/N] "


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "forget",
        help="forget something everywhere: memory files, past conversations, digests, earlier versions, backups",
    )
    parser.add_argument("text", nargs="+", help="what to forget, e.g. 'my old address'")
    parser.add_argument("--yes", action="store_true", help="do not ask before erasing")
    parser.set_defaults(handler=run)


def ask_and_erase(store: LongTermStore, what: str, daylog: DayLog, index: SearchIndex | None,
                  ask: Callable[[str], bool], out: Any = None) -> bool:
    """Show where else `what` is kept, erase it after a yes; True when something was erased."""
    out = out or sys.stdout
    found = forget_everywhere(store, what, daylog, index, dry_run=True)
    if found is None:
        print("Nothing was erased: it is not clear what to forget. Name it, e.g. 'forget my old address'.", file=out)
        return False
    if not found.found:
        print(f"'{safe(what)}' is in no past conversation, digest, earlier version or backup.", file=out)
        return False
    print(f"Also found in {found.summary()}.", file=out)
    if not ask(QUESTION):
        print("Nothing more was erased.", file=out)
        return False
    erased = forget_everywhere(store, what, daylog, index)
    print(f"[memory] Erased from {erased.summary() if erased else 'nothing'}.", file=out)
    return True


def _ask(question: str) -> bool:
    if not sys.stdin.isatty():
        return False
    try:
        return input(question).strip().casefold() in ("y", "yes")
    except (EOFError, KeyboardInterrupt):
        return False


def run(args: argparse.Namespace) -> int:
    what = " ".join(args.text)
    with open_home(args.home) as runtime:
        store = LongTermStore(runtime.home)
        try:
            print(safe(MemoryRequests(store).forget(what).note))
            # forget_everywhere removes the entries again in the same exclusive step as every copy, so a
            # night step between the two cannot bring them back.
            erased = ask_and_erase(store, what, DayLog(runtime.home.days), None, (lambda _q: True) if args.yes else _ask)
        except CompanionError as exc:
            print(f"Could not finish: {exc}", file=sys.stderr)
            return 1
    if not erased and not args.yes and not sys.stdin.isatty():
        print("(Run with --yes to erase without a question.)")
    return 0
