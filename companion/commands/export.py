"""`companion export DEST`: write the memory as an Agent Skill folder or .zip."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from companion.errors import PortabilityError
from companion.portability.skill_export import ExportOptions, export_memory
from companion.paths import resolve_home


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "export",
        help="export the memory as an Agent Skill (folder or .zip) for another agent",
        description="Write DEST/companion-memory (or a .zip of it): SOUL.md, USER.md, MEMORY.md, digests and "
        "day logs with a fresh SKILL.md. Companion's own state is never exported; the memory is only read.",
    )
    parser.add_argument("dest", metavar="DEST", help="folder to export into, or a file name ending in .zip")
    parser.add_argument("--zip", action="store_true", help="write companion-memory.zip instead of a folder")
    parser.add_argument("--without-logs", action="store_true", help="leave the raw day logs out")
    parser.add_argument("--include-private", action="store_true",
                        help="also export turns logged while memory was paused (left out by default)")
    parser.add_argument("--redact", action="store_true", help="mask emails, phone, card and IBAN numbers and secrets")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    home = resolve_home(args.home)
    if not home.memory.is_dir():
        raise PortabilityError(f"There is no memory to export in {home.root} yet. Start Companion once first.")
    options = ExportOptions(as_zip=args.zip, include_logs=not args.without_logs, redact=args.redact,
                            include_private=args.include_private)
    result = export_memory(home, Path(args.dest), options)
    summary = result.summary
    print(f"Exported to {result.path}")
    entries = ", ".join(f"{name} {count}" for name, count in summary.entries.items())
    print(f"Entries: {entries or 'none'}; digests: {sum(len(v) for v in summary.digests.values())}")
    if options.include_logs:
        print(f"Day logs: {len(summary.days)} days, {summary.records} records")
    else:
        print("Day logs: left out")
    if options.redact:
        counts = ", ".join(f"{n} {kind}" for kind, n in sorted(result.redactions.counts.items()))
        print(f"Masked: {counts or 'nothing found'}")
    if result.private_left_out:
        print(f"Left out {result.private_left_out} private records (--include-private exports them).")
    if result.skipped_lines:
        print(f"Left out {result.skipped_lines} unreadable day-log lines.", file=sys.stderr)
    return 0
