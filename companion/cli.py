"""The `companion` command: the desktop app by default, subcommands for headless use."""

from __future__ import annotations

import argparse
import importlib
import logging
import sys
from typing import Sequence

from companion import __version__
from companion.errors import CompanionError

# Each module registers one subcommand; the order is the order in --help.
COMMAND_MODULES = (
    "companion.commands.chat",
    "companion.commands.export",
    "companion.commands.import_cmd",
    "companion.commands.migrate",
    "companion.commands.models",
    "companion.commands.search",
    "companion.commands.forget",
    "companion.commands.eval",
    "companion.commands.sleep",
    "companion.commands.mcp",
    "companion.commands.sync",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="companion",
        description="Companion: an offline desktop companion with a memory you own. Without a command, opens the app.",
    )
    parser.add_argument("--version", action="version", version=f"companion {__version__}")
    parser.add_argument("--home", metavar="DIR", help="home folder (default: $COMPANION_HOME or the user data folder)")
    parser.add_argument("-v", "--verbose", action="store_true", help="print debug logs")
    parser.add_argument(
        "--self-test", action="store_true", help="check this installation (model, memory, Qt) in a temporary home, then exit"
    )
    subparsers = parser.add_subparsers(title="commands", metavar="COMMAND")
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(subparsers)
    return parser


def _run_gui(args: argparse.Namespace) -> int:
    try:
        app = importlib.import_module("companion.ui.app")
    except ModuleNotFoundError:
        from companion.commands import chat

        args.model = None
        return chat.run(args)
    return int(app.run(args))


def main(argv: Sequence[str] | None = None) -> int:
    from companion.commands.terminal import SafeStream

    streams = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = SafeStream(sys.stdout), SafeStream(sys.stderr)  # type: ignore[assignment]
    try:
        return _main(argv)
    finally:
        sys.stdout, sys.stderr = streams


def _main(argv: Sequence[str] | None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    handler = getattr(args, "handler", _run_gui)
    if args.self_test:
        from companion.commands import selftest

        handler = selftest.run
    try:
        return int(handler(args) or 0)
    except CompanionError as exc:
        print(f"companion: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
