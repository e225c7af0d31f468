"""`companion mcp`: serve the memory to the user's other assistants (stdio, or HTTP on 127.0.0.1 with a token),
say what each may see, and list, approve or decline what they proposed."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from companion.agent.connect import claude_desktop_config, generic_config, issue_token
from companion.agent.sharing import SCOPES, MemoryShare, allow, check_agent, parse_grants
from companion.commands.terminal import safe
from companion.curate.gate import MemoryWriter
from companion.curate.proposals import ProposalQueue
from companion.memory.longterm import LongTermStore
from companion.runtime import open_home
from companion.settings import load_settings, save_settings


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "mcp", help="serve the memory to your other assistants over MCP (read-only; writes are proposals)",
        description="Without an action: serve over stdio (for a client's config file), or with --http on "
                    "127.0.0.1 with a token. An agent sees nothing until you allow it (companion mcp allow).")
    parser.add_argument("--agent", default="mcp-client", help="the name of the assistant on stdio (default mcp-client)")
    parser.add_argument("--http", action="store_true", help="streamable HTTP on 127.0.0.1 instead of stdio")
    parser.add_argument("--port", type=int, help="HTTP port (default: settings [sharing] http_port, 8765)")
    actions = parser.add_subparsers(title="actions", metavar="ACTION")
    allow_p = actions.add_parser("allow", help="say what an agent may see: " + ", ".join(SCOPES))
    allow_p.add_argument("name")
    allow_p.add_argument("scopes", nargs="*", help="none: take everything back")
    allow_p.set_defaults(handler=_allow)
    token_p = actions.add_parser("token", help="print a new HTTP token for an agent (its old one stops working)")
    token_p.add_argument("name")
    token_p.set_defaults(handler=_token)
    config_p = actions.add_parser("config", help="print the configuration for Claude Desktop and other MCP clients")
    config_p.add_argument("name", nargs="?", default="claude-desktop")
    config_p.set_defaults(handler=_config)
    prop_p = actions.add_parser("proposals", help="what other assistants (or the other computer) proposed")
    group = prop_p.add_mutually_exclusive_group()
    group.add_argument("--approve", metavar="ID")
    group.add_argument("--decline", metavar="ID")
    group.add_argument("--undo", metavar="ID")
    prop_p.set_defaults(handler=_proposals)
    parser.set_defaults(handler=_serve)


def _serve(args: argparse.Namespace) -> int:
    from companion.commands import mcp_server  # the SDK loads only for the server itself

    with open_home(args.home, exclusive=False) as runtime:  # beside a running app: the home's locks are shared
        share = MemoryShare(runtime.home, runtime.settings)
        try:
            if args.http:
                port = args.port or runtime.settings.sharing.http_port
                server = mcp_server.build_server(share, mcp_server.http_agent(runtime.home))
                print(f"companion mcp: serving on http://127.0.0.1:{port}/mcp", file=sys.stderr, flush=True)
                mcp_server.run_http(server, runtime.home, port)
            else:
                mcp_server.build_server(share, mcp_server.stdio_agent(args.agent)).run("stdio")
        finally:
            share.close()
    return 0


def _allow(args: argparse.Namespace) -> int:
    with open_home(args.home, exclusive=False) as runtime:
        settings = load_settings(runtime.home.settings_file)
        allow(settings, args.name, set(args.scopes))
        save_settings(runtime.home.settings_file, settings)
        scopes = parse_grants(settings.sharing.agents).get(args.name, frozenset())
    print(f"{args.name} may now: " + (", ".join(SCOPES[s] for s in SCOPES if s in scopes) or "nothing"))
    return 0


def _token(args: argparse.Namespace) -> int:
    with open_home(args.home, exclusive=False) as runtime:
        print(issue_token(runtime.home, check_agent(args.name)))
    return 0


def _config(args: argparse.Namespace) -> int:
    with open_home(args.home, exclusive=False) as runtime:
        print("Claude Desktop (claude_desktop_config.json):")
        print(claude_desktop_config(runtime.home.root, check_agent(args.name)))
        print("\nAny MCP client (stdio, or HTTP after `companion mcp --http`):")
        print(generic_config(runtime.home.root, args.name, runtime.settings.sharing.http_port, None))
    return 0


def _proposals(args: argparse.Namespace) -> int:
    with open_home(args.home, exclusive=False) as runtime:
        queue = ProposalQueue(runtime.home)
        writer = MemoryWriter(LongTermStore(runtime.home))
        if args.approve:
            print(safe(f"Saved: {queue.approve(args.approve, writer).summary()}"))
        elif args.decline:
            print(safe(f"Declined: {queue.decline(args.decline).summary()}"))
        elif args.undo:
            print(safe(f"Undone: {queue.undo(args.undo, writer).summary()}"))
        else:
            items = queue.items()
            for item in items:
                print(safe(f"{item.id}  {item.summary()}"))
            if not items:
                print("Nothing waits for your approval.", file=sys.stderr)
    return 0

