"""`companion import SRC`: bring in an exported memory, a Markdown memory folder, or older formats."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from companion.commands.terminal import step_printer
from companion.errors import PortabilityError
from companion.portability.migrate import migrate_path
from companion.portability.skill_import import import_memory, is_memory_source
from companion.runtime import open_home


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "import",
        help="import a memory folder or .zip (merge or replace), or migrate older files",
        description="Import SRC: an exported companion-memory folder or .zip, any folder with SOUL.md/USER.md/"
        "MEMORY.md, a JSON-lines memory file, a config.json with personality settings, or a chat history "
        "(.json, including ChatGPT's conversations.json). The memory folder is backed up first.",
    )
    parser.add_argument("src", metavar="SRC", help="folder, .zip or .json/.jsonl file")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--merge", dest="mode", action="store_const", const="merge", help="add what is new (default)")
    mode.add_argument("--replace", dest="mode", action="store_const", const="replace", help="replace the memory with SRC")
    parser.set_defaults(handler=run, mode="merge")


def run(args: argparse.Namespace) -> int:
    src = Path(args.src).expanduser()
    if not src.exists():
        raise PortabilityError(f"{src} does not exist.")
    with open_home(args.home) as runtime:
        if is_memory_source(src):
            try:
                lines = import_memory(runtime.home, src, args.mode, progress=step_printer("Importing")).lines()
            except KeyboardInterrupt:
                print("\nImport stopped; your memory was not changed.", file=sys.stderr)
                return 130
        else:
            if args.mode == "replace":
                raise PortabilityError("--replace needs a memory folder or .zip; older formats are always merged.")
            lines = migrate_path(runtime.home, src).lines()
    print("\n".join(lines))
    return 0
