"""`companion migrate [PATH...]`: bring in memory kept by older versions (run twice, it does nothing)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from companion.portability.migrate import default_locations, detect, migrate
from companion.runtime import open_home


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "migrate",
        help="migrate memory files of older versions (~/.companion and ./.companion by default)",
        description="Find older-format files (memory.jsonl, config.json personality, chat history) and move "
        "their content into the memory. Originals are kept renamed to .bak.",
    )
    parser.add_argument("paths", nargs="*", metavar="PATH", help="files or folders (default: ~/.companion, ./.companion)")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    places = [Path(p).expanduser() for p in args.paths] or default_locations()
    sources = [source for place in places for source in detect(place)]
    with open_home(args.home) as runtime:
        report = migrate(runtime.home, sources)
    if not sources:
        print("Nothing to migrate in " + ", ".join(str(p) for p in places) + ".")
        return 0
    print("\n".join(report.lines()))
    return 0
