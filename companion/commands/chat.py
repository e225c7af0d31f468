"""`companion chat`: a terminal REPL on the same memory (reads piped stdin, Ctrl-C cancels a reply)."""

from __future__ import annotations

import argparse
import re
import signal
import sys
import threading
from types import FrameType
from typing import Any, Callable, TextIO

from companion.agent.events import Delta, Done, Failed, MemoryNote, ToolRan, TurnEvent
from companion.agent.session import ChatSession
from companion.agent.tools import ToolResult, describe_change
from companion.agent.turn import Agent
from companion.commands.forget import ask_and_erase
from companion.commands.terminal import safe
from companion.errors import CompanionError
from companion.llm.loader import add_backend_arguments, load_backend, settings_from_args
from companion.runtime import open_home


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("chat", help="chat in the terminal (the same memory as the app)")
    parser.add_argument("--model", metavar="PATH", help="GGUF file to use instead of the configured one")
    add_backend_arguments(parser)
    parser.set_defaults(handler=run)


class _Stop(Exception):
    """SIGTERM (or Ctrl-C with nobody at a terminal to type /quit) while waiting for input."""


class Signals:
    """What SIGTERM and SIGINT do, by what the chat is doing: while loading, the load finishes and the
    chat exits; during a reply, the reply stops (and is logged as cancelled) and SIGTERM then exits;
    at the prompt, SIGTERM exits and Ctrl-C only explains /quit. Every exit closes the model first."""

    def __init__(self, session: ChatSession, interactive: bool) -> None:
        self.session = session
        self.interactive = interactive
        self.state = "load"  # load | idle | turn | closing
        self.stop_requested = False
        self._previous: dict[int, Any] = {}

    def install(self) -> None:
        if threading.current_thread() is not threading.main_thread():
            return  # signal handlers belong to the main thread (tests may drive the REPL from another)
        for number in (signal.SIGTERM, signal.SIGINT):
            self._previous[number] = signal.signal(number, self._handle)

    def restore(self) -> None:
        for number, handler in self._previous.items():
            signal.signal(number, handler)
        self._previous.clear()

    def _handle(self, number: int, _frame: FrameType | None) -> None:
        terminate = number == signal.SIGTERM or not self.interactive
        if self.state == "turn":
            self.session.cancel()
            self.stop_requested = self.stop_requested or number == signal.SIGTERM
            return
        if self.state != "idle":  # loading or closing: finish that, then exit
            self.stop_requested = True
            return
        if not terminate:
            raise KeyboardInterrupt
        self.stop_requested = True
        raise _Stop()


def run(args: argparse.Namespace) -> int:
    with open_home(args.home) as runtime:
        out = sys.stdout
        interactive = sys.stdin.isatty()

        def load(settings: Any) -> Any:
            return load_backend(settings_from_args(settings, args), args.model, home=runtime.home)

        session = ChatSession(runtime.home, runtime.settings, loader=load)
        signals = Signals(session, interactive)
        signals.install()
        try:
            print("Loading the model…", file=sys.stderr, flush=True)
            try:
                info = session.load()
            except CompanionError as exc:
                print(f"Cannot load the model: {exc}", file=sys.stderr)
                return 2
            if signals.stop_requested:
                return 0
            for warning in info.warnings:
                print(f"Warning: {warning}", file=sys.stderr)
            print(f"Companion — {info.name} on {info.device}. /quit to exit, /private pauses memory, Ctrl-C stops a reply.", file=out)
            session.agent.start()
            return repl(session, sys.stdin, out, interactive=interactive, signals=signals)
        finally:
            signals.state = "closing"
            session.close()  # background work first, then the model
            signals.restore()


def _idle(session: ChatSession) -> threading.Thread:
    """After a reply: learn from it, then warm the prompt for the next one (off the main thread)."""

    def work() -> None:
        session.learn()
        session.warm()

    thread = threading.Thread(target=work, name="idle", daemon=True)
    thread.start()
    return thread


COMMANDS = (
    ("/help", "list these commands"),
    ("/undo", "take back the last change a memory tool made"),
    ("/private", "pause memory (what you say is not remembered); again to resume"),
    ("/quit", "leave (also /exit, or Ctrl-D)"),
)
_COMMAND = re.compile(r"/[A-Za-z][\w-]*")


def help_text() -> str:
    width = max(len(name) for name, _ in COMMANDS)
    return "Commands:\n" + "\n".join(f"  {name.ljust(width)}  {what}" for name, what in COMMANDS)


def repl(session: ChatSession, stdin: TextIO, out: TextIO, interactive: bool, signals: Signals | None = None) -> int:
    agent = session.agent
    signals = signals or Signals(session, interactive)
    signals.state = "idle"
    idle: threading.Thread | None = None
    changes: list[ToolResult] = []  # memory tool changes of this session, newest last (for /undo)
    try:
        idle = _idle(session)
        while not signals.stop_requested:
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
            if line in ("/help", "/?"):
                print(help_text(), file=out, flush=True)
                continue
            if _COMMAND.fullmatch(line) and line not in ("/undo",):
                print(f"Unknown command {line}. /help lists the commands.", file=out, flush=True)
                continue
            idle.join()
            if line == "/undo":
                _undo(agent, changes, out)
                continue
            signals.state = "turn"
            try:
                changes.extend(_one_turn(agent, line, out, ask=_ask if interactive else None))
            finally:
                signals.state = "idle"
            idle = _idle(session)
    except _Stop:
        print("", file=out)
    finally:
        signals.state = "closing"
        if idle is not None:
            idle.join()  # never close the model under a running warm-up
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


def _print(out: TextIO, text: str, end: str = "\n") -> None:
    print(safe(text), end=end, file=out, flush=True)


def _one_turn(agent: Agent, text: str, out: TextIO, ask: Callable[[str], bool] | None = None) -> list[ToolResult]:
    """One exchange; returns the memory changes made (applied tool calls and approved proposals)."""
    results: list[ToolResult] = []
    forgotten: list[str] = []

    def tool(event: ToolRan) -> None:
        if event.result is not None:
            results.append(event.result)
            if event.result.proposed:
                return
        _print(out, f"\n[tool] {event.text[:200]}")

    def memory(event: MemoryNote) -> None:
        _print(out, f"[memory] {event.text}")
        if event.forget:
            forgotten.append(event.forget)
        _print(out, "companion> ", end="")

    handlers: dict[type[TurnEvent], Callable[[Any], None]] = {
        Delta: lambda e: _print(out, e.text, end=""),
        MemoryNote: memory,
        ToolRan: tool,
        Failed: lambda e: _print(out, f"\n[error] {e.text}"),
        Done: lambda e: _print(out, f"{' [stopped]' if e.stats.cancelled else ''}\n"),
    }
    _print(out, "companion> ", end="")
    for event in agent.run_turn(text):
        handler = handlers.get(type(event))
        if handler is not None:
            handler(event)
    if forgotten and ask is not None:
        ask_and_erase(agent.store, forgotten[-1], agent.daylog, agent.recall.index, ask, out)
    return _settle(agent, results, out, ask)
