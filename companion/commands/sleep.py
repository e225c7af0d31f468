"""`companion sleep [--date D] [--dry-run]`: distill the day logs into long-term memory now."""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from datetime import date
from typing import Any

from companion.errors import AlreadyRunningError, CompanionError
from companion.llm.cpu import lower_process_priority
from companion.llm.loader import load_backend
from companion.paths import Home
from companion.runtime import open_home, running_instance
from companion.sleep.job import SleepJob


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "sleep",
        help="distill the day logs into long-term memory and write digests (what the app does nightly)",
        description="Distill every record not yet distilled (all pending days, oldest first), or one day with --date.",
    )
    parser.add_argument("--date", metavar="YYYY-MM-DD", type=_parse_date, help="only this day's log")
    parser.add_argument("--dry-run", action="store_true", help="print the proposed changes and write nothing")
    parser.add_argument("--no-model", action="store_true", help="rules only: fast, no language model")
    parser.add_argument("--model", metavar="PATH", help="GGUF file to use instead of the configured one")
    parser.set_defaults(handler=run)


def _parse_date(text: str) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"{text!r} is not a date like 2026-11-29") from exc


def run(args: argparse.Namespace) -> int:
    lower_process_priority()  # nobody waits for the night's work: the desktop and the app go first
    # The app may be open on this home: the sleep job has its own lock, so share the home.
    with open_home(args.home, exclusive=False) as runtime:
        backend = None
        if not args.no_model:
            _refuse_beside_the_app(runtime.home)
            try:
                backend = load_backend(runtime.settings.model, args.model)
            except CompanionError as exc:
                print(f"Cannot load the model ({exc}); distilling with rules only.", file=sys.stderr)
        try:
            job = SleepJob(runtime.home, backend, progress=lambda m: print(m, file=sys.stderr, flush=True))
            report = _run_interruptible(job, args)
        finally:
            if backend is not None:
                backend.close()
    if args.dry_run:
        print("Dry run: nothing was written. These changes would be made:\n")
    print(report.render(), end="")
    return 130 if report.cancelled else 0


def _refuse_beside_the_app(home: Home) -> None:
    """The running app (or `companion chat`) owns the model: a second one would take its memory and cores."""
    holder = running_instance(home)
    if holder is None:
        return
    who = f" (process {holder})" if holder else ""
    raise AlreadyRunningError(
        f"Companion is running on {home.root}{who} and owns the model there; it distills the day itself, "
        "each night or when you choose Sleep now in its menu. To distill now without a second model, run "
        "`companion sleep --no-model`, or close Companion first."
    )


def _run_interruptible(job: SleepJob, args: argparse.Namespace):  # -> SleepReport
    in_main = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGINT, lambda *_: job.cancel()) if in_main else None
    try:
        return job.run(day=args.date, dry_run=args.dry_run)
    finally:
        if in_main and previous is not None:
            signal.signal(signal.SIGINT, previous)
