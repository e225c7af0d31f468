"""`companion search QUERY`: search all memory from the terminal (works while the app is open)."""

from __future__ import annotations

import argparse
import json
import sys
from datetime import date
from typing import Any

from companion.agent.recall import open_channel
from companion.commands.terminal import safe
from companion.errors import CompanionError
from companion.llm.embed import load_embedder
from companion.memory.search import KINDS, SearchQuery, open_index, search
from companion.runtime import open_home


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("search", help="search past conversations, memory files and digests")
    parser.add_argument("query", nargs="+", help="words to look for (any language)")
    parser.add_argument("-k", type=int, default=10, help="how many results (default 10)")
    parser.add_argument("--kind", action="append", choices=KINDS, help="only turns, entries or digests (repeatable)")
    parser.add_argument("--since", type=_day, metavar="YYYY-MM-DD", help="only items on or after this day")
    parser.add_argument("--until", type=_day, metavar="YYYY-MM-DD", help="only items on or before this day")
    parser.add_argument("--json", action="store_true", help="print JSON instead of text")
    parser.add_argument("--rebuild", action="store_true", help="rebuild the index from the memory folder first")
    parser.add_argument("--words-only", action="store_true", help="match words only (skip finding by meaning)")
    parser.set_defaults(handler=run)


def _day(text: str) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"{text!r} is not a date like 2026-11-29") from exc


def run(args: argparse.Namespace) -> int:
    if args.k < 1:
        raise CompanionError("-k must be at least 1.")
    with open_home(args.home, exclusive=False) as runtime:
        index = open_index(runtime.home)
        try:
            if args.rebuild:
                index.rebuild()
            query = SearchQuery(
                " ".join(args.query), k=args.k, kinds=tuple(args.kind or ()), since=args.since, until=args.until,
                today=date.today(),
            )
            channel = None
            if not args.words_only:
                choice = load_embedder(runtime.home.models)
                if choice.embedder is None:
                    print(f"Searching by words only: {choice.problem}", file=sys.stderr)
                else:
                    channel = open_channel(runtime.home, index, choice.embedder)
            try:
                hits = search(index, query, None, channel)
            finally:
                if channel is not None:
                    channel.store.close()
        finally:
            index.close()
    if args.json:
        print(json.dumps([h.to_dict() for h in hits], ensure_ascii=False, indent=2))
        return 0
    if not hits:
        print("No memories match.", file=sys.stderr)
        return 1
    for hit in hits:
        item = hit.item
        where = f"{item.source}  {item.locator}" if item.kind == "turn" else f"{item.source}:{item.locator}"
        label = f"{item.day or 'undated'}  {item.kind}{' ' + item.role if item.role else ''}"
        print(safe(f"{hit.score:.3f}  {label}  {where}"))
        text = " ".join(item.text.split())
        print("    " + safe(text if len(text) <= 300 else text[:299] + "…"))
    return 0
