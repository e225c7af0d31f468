"""`companion migrate [PATH...]`: bring in memory kept by older versions (run twice, it does nothing)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from companion.commands.terminal import safe
from companion.portability.migrate import LegacySource, default_locations, detect, migrate
from companion.runtime import open_home


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "migrate",
        help="migrate memory files of older versions (~/.companion by default, after asking)",
        description="Find older-format files (memory.jsonl, config.json personality, chat history) and move "
        "their content into the memory. Originals are kept renamed to .bak.",
    )
    parser.add_argument("paths", nargs="*", metavar="PATH", help="files or folders (default: ~/.companion)")
    parser.add_argument("--yes", action="store_true", help="do not ask before migrating what was found in ~/.companion")
    parser.set_defaults(handler=run)


def _confirmed(sources: list[LegacySource]) -> bool:
    """Files nobody named are listed and migrated only after a yes (they are renamed to .bak)."""
    print("Found files of an older version:")
    for source in sources:
        print(f"  {safe(str(source.path))} ({source.kind})")
    if not sys.stdin.isatty():
        print("Run again with --yes to migrate them (the originals are kept renamed to .bak).")
        return False
    try:
        answer = input("Move their content into your memory? The originals are kept renamed to .bak. [y/N] ")
    except (EOFError, KeyboardInterrupt):
        return False
    return answer.strip().casefold() in ("y", "yes")


def run(args: argparse.Namespace) -> int:
    places = [Path(p).expanduser() for p in args.paths] or default_locations()
    sources = [source for place in places for source in detect(place)]
    if sources and not args.paths and not args.yes and not _confirmed(sources):
        print("Nothing was changed.")
        return 1
    with open_home(args.home) as runtime:
        report = migrate(runtime.home, sources)
    if not sources:
        print("Nothing to migrate in " + ", ".join(str(p) for p in places) + ".")
        return 0
    print("\n".join(report.lines()))
    return 0
