"""`companion chat`: a terminal REPL on the same memory (reads piped stdin, Ctrl-C cancels a reply)."""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from typing import Any, Callable, TextIO

from companion.agent.tools import ToolResult, describe_change
from companion.agent.turn import Agent, TurnStats
from companion.commands.forget import ask_and_erase
from companion.commands.terminal import safe
from companion.errors import CompanionError
from companion.llm.loader import add_backend_arguments, load_backend, settings_from_args
from companion.llm.priority import SharedBackend
from companion.runtime import open_home


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("chat", help="chat in the terminal (the same memory as the app)")
    parser.add_argument("--model", metavar="PATH", help="GGUF file to use instead of the configured one")
    add_backend_arguments(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    with open_home(args.home) as runtime:
        out = sys.stdout
        try:
            backend = load_backend(settings_from_args(runtime.settings.model, args), args.model, home=runtime.home)
        except CompanionError as exc:
            print(f"Cannot load the model: {exc}", file=sys.stderr)
            return 2
        # Chat goes first; daytime learning uses the same model in the background.
        chat_backend = SharedBackend(backend).foreground(owner=True)
        agent: Agent | None = None
        try:
            agent = Agent(runtime.home, chat_backend, runtime.settings)
            for warning in backend.info.warnings:
                print(f"Warning: {warning}", file=sys.stderr)
            print(f"Companion — {backend.info.name} on {backend.info.device}. /quit to exit, /private pauses memory, Ctrl-C stops a reply.", file=out)
            agent.start()
            return repl(agent, sys.stdin, out, interactive=sys.stdin.isatty())
        finally:
            if agent is not None:
                agent.stop_background()
            chat_backend.close()


def _warm(agent: Agent) -> threading.Thread:
    thread = threading.Thread(target=agent.prefill, name="prefill", daemon=True)
    thread.start()
    return thread


def repl(agent: Agent, stdin: TextIO, out: TextIO, interactive: bool) -> int:
    warm = _warm(agent)
    changes: list[ToolResult] = []  # memory tool changes of this session, newest last (for /undo)
    while True:
        try:
            if interactive:
                line = input("you> ")
            else:
                line = stdin.readline()
                if not line:
                    break
        except EOFError:
            break
        except KeyboardInterrupt:
            print("\n(type /quit to exit)", file=out)
            continue
        line = line.strip()
        if not line:
            continue
        if line in ("/quit", "/exit"):
            break
        if line == "/private":
            print(toggle_private(agent), file=out, flush=True)
            continue
        warm.join()
        if line == "/undo":
            _undo(agent, changes, out)
            continue
        changes.extend(_one_turn(agent, line, out, ask=_ask if interactive else None))
        warm = _warm(agent)
    warm.join()  # never close the model under a running prefill
    return 0


def toggle_private(agent: Agent) -> str:
    """/private: pause memory, or resume it and say how many turns stayed private."""
    if not agent.privacy.on:
        agent.privacy.start(agent.clock())
        return "[private] Memory paused: what you say now is logged as private and never remembered. /private again to resume."
    turns = agent.privacy.stop()
    return f"[private] Remembering again. {turns} turn{'s' if turns != 1 else ''} stayed private."


def _ask(question: str) -> bool:
    try:
        return input(question).strip().casefold() in ("y", "yes")
    except (EOFError, KeyboardInterrupt):
        return False


def _undo(agent: Agent, changes: list[ToolResult], out: TextIO) -> None:
    if not changes:
        print("Nothing to undo.", file=out, flush=True)
        return
    try:
        note = agent.tools.undo(changes[-1])
    except CompanionError as exc:
        print(f"[error] {safe(str(exc))}", file=out, flush=True)
        return
    changes.pop()
    agent.daylog.append("event", note)
    print(f"[memory] {note}", file=out, flush=True)


def _settle(agent: Agent, results: list[ToolResult], out: TextIO, ask: Callable[[str], bool] | None) -> list[ToolResult]:
    """Show what the memory tools changed; ask about each proposed change (piped input: nothing applied)."""
    changed = []
    for result in results:
        if result.undo is not None:
            print(f"[memory] Changed {safe(describe_change(result))}  (/undo takes it back)", file=out, flush=True)
            changed.append(result)
        elif result.proposed:
            print(f"[proposed] {safe(describe_change(result))}\n  Not applied: {safe(result.proposed)}.", file=out, flush=True)
            if ask is None or not ask("Apply this change? [y/N] "):
                print("[memory] Not applied.", file=out, flush=True)
                continue
            applied = agent.tools.apply(result)
            if applied.undo is None:
                print(f"[error] {safe(applied.output)}", file=out, flush=True)
                continue
            agent.daylog.append("event", f"Applied the proposed change to {applied.undo.file}.")
            print(f"[memory] Applied.  (/undo takes it back)", file=out, flush=True)
            changed.append(applied)
    return changed


def _one_turn(agent: Agent, text: str, out: TextIO, ask: Callable[[str], bool] | None = None) -> list[ToolResult]:
    """One exchange; returns the memory changes made (applied tool calls and approved proposals)."""
    previous = None
    results: list[ToolResult] = []
    forgotten: str | None = None
    in_main = threading.current_thread() is threading.main_thread()
    if in_main:
        previous = signal.signal(signal.SIGINT, lambda *_: agent.cancel())
    try:
        print("companion> ", end="", file=out, flush=True)
        for event in agent.run_turn(text):
            if event.kind == "delta":
                print(safe(event.text), end="", file=out, flush=True)
            elif event.kind == "memory":
                print(f"[memory] {safe(event.text)}", file=out, flush=True)
                forgotten = event.data.get("forget") or forgotten
                print("companion> ", end="", file=out, flush=True)
            elif event.kind == "tool":
                results.append(event.data["result"])
                if not event.data["result"].proposed:
                    print(f"\n[tool] {safe(event.text[:200])}", file=out, flush=True)
            elif event.kind == "error":
                print(f"\n[error] {safe(event.text)}", file=out, flush=True)
            elif event.kind == "done":
                stats: TurnStats = event.data["stats"]
                suffix = " [stopped]" if stats.cancelled else ""
                print(f"{suffix}\n", file=out, flush=True)
    finally:
        if in_main and previous is not None:
            signal.signal(signal.SIGINT, previous)
    if forgotten and ask is not None:
        ask_and_erase(agent.store, forgotten, agent.daylog, agent.recall.index, ask, out)
    return _settle(agent, results, out, ask)
