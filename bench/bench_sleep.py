"""Sleep job cost and quality: one night's seconds and tokens, 1 day vs 365 days of history, fact recall.

With --model, the embedded model runs twice: with the model path forced (what every night did
before the model check) and as the job runs now (a model too weak to add anything is skipped).
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

from companion.memory.daylog import DayLog
from companion.memory.dedupe import is_duplicate
from companion.memory.document import parse_document
from companion.memory.setup import ensure_home
from companion.paths import Home
from companion.memory import entries as E
from companion.sleep.job import SleepJob

TZ = timezone.utc
DATA = Path(__file__).resolve().parent.parent / "tests" / "data" / "sleep_facts.json"
TOPICS = ["I went for a run in the park.", "I'm learning the cello.", "Work was busy, lots of meetings.",
          "I have a call with my boss on Friday.", "I cooked pasta for dinner.", "What do you think about sci-fi books?",
          "My friend Sam is visiting next week.", "I prefer tea over coffee.", "The weather was awful.", "I read a novel."]


def write_day(log_for: DayLog, clock: list[datetime], day: date, turns: int) -> None:
    clock[0] = datetime(day.year, day.month, day.day, 8, 0, tzinfo=TZ)
    for n in range(turns):
        log_for.append("user", TOPICS[n % len(TOPICS)] + f" (note {n})")
        clock[0] += timedelta(seconds=30)
        log_for.append("assistant", "That sounds good, tell me more.")
        clock[0] += timedelta(seconds=30)


def history_home(root: Path, history_days: int, turns: int) -> tuple[Home, list[datetime]]:
    home = Home(root)
    ensure_home(home)
    clock = [datetime(2024, 1, 1, tzinfo=TZ)]
    log = DayLog(home.days, lambda: clock[0])
    start = date(2024, 1, 1)
    for offset in range(history_days):
        write_day(log, clock, start + timedelta(days=offset), 10)
    clock[0] = datetime.combine(start + timedelta(days=history_days), datetime.min.time(), TZ).replace(hour=3)
    SleepJob(home, None, clock=lambda: clock[0]).run()  # history already distilled and rolled up
    write_day(log, clock, start + timedelta(days=history_days), turns)  # the new day
    clock[0] = datetime.combine(start + timedelta(days=history_days + 1), datetime.min.time(), TZ).replace(hour=3)
    return home, clock


def stored_entries(home: Home) -> int:
    return sum(len(E.active_entries(parse_document(n, (home.memory / n).read_text(encoding="utf-8")).body))
               for n in ("USER.md", "MEMORY.md", "SOUL.md"))


def night(history_days: int, turns: int, backend: object | None, check: bool) -> dict[str, object]:
    with tempfile.TemporaryDirectory() as tmp:
        home, clock = history_home(Path(tmp) / "home", history_days, turns)
        before = stored_entries(home)
        started = time.perf_counter()
        report = SleepJob(home, backend, clock=lambda: clock[0], check_model=check).run()  # type: ignore[arg-type]
        seconds = time.perf_counter() - started
        return {"seconds": round(seconds, 2), "records": report.records, "entries_added": stored_entries(home) - before,
                **{k: report.stats[k] for k in ("calls", "prompt_tokens", "generated_tokens")},
                "per_file": {f: (row["seconds"], row["prompt_tokens"] + row["generated_tokens"])
                             for f, row in report.stats["per_file"].items()},
                "notes": report.notes}


def quality(backend: object | None, check: bool) -> dict[str, float]:
    data = json.loads(DATA.read_text(encoding="utf-8"))
    with tempfile.TemporaryDirectory() as tmp:
        home = Home(Path(tmp) / "home")
        ensure_home(home)
        clock = [datetime(2024, 5, 13, tzinfo=TZ)]
        log = DayLog(home.days, lambda: clock[0])
        expected: list[tuple[str, str, str]] = []
        for day in data["days"]:
            d = date.fromisoformat(day["date"])
            clock[0] = datetime(d.year, d.month, d.day, 9, 0, tzinfo=TZ)
            ids = []
            for text in day["messages"]:
                ids.append(log.append("user", text).id)
                clock[0] += timedelta(minutes=1)
                log.append("assistant", "I see.")
                clock[0] += timedelta(minutes=1)
            expected.extend((f, t, ids[i]) for f, t, i in day["facts"])
        clock[0] = datetime(2024, 5, 12, 3, 0, tzinfo=TZ) + timedelta(days=30)
        SleepJob(home, backend, clock=lambda: clock[0], check_model=check).run()  # type: ignore[arg-type]
        entries = {n: E.active_entries(parse_document(n, (home.memory / n).read_text(encoding="utf-8")).body)
                   for n in ("USER.md", "MEMORY.md", "SOUL.md")}
        found = sum(
            1 for f, text, rid in expected
            if any(is_duplicate(text, E.entry_text(l)) and rid in E.cited_ids(l) for l in entries[f])
        )
        all_lines = [l for lines in entries.values() for l in lines]
        wrong = sum(1 for l in all_lines if not any(is_duplicate(t, E.entry_text(l)) for _f, t, _r in expected))
        texts = [E.entry_text(l).casefold() for l in all_lines]
        dupes = len(texts) - len(set(texts))
        return {"known_facts": len(expected), "recalled_with_source": found, "recall": found / len(expected),
                "entries": len(all_lines), "unexpected_or_wrong": wrong, "duplicates": dupes}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--turns", type=int, default=200, help="user turns in the new day")
    parser.add_argument("--history", type=int, default=365, help="days of already-distilled history (1: skip that comparison)")
    parser.add_argument("--model", action="store_true", help="also run with the embedded model (slow)")
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    backend = None
    if args.model:
        from companion.llm.default_model import default_model_path
        from companion.llm.llama import LlamaBackend

        backend = LlamaBackend(default_model_path(), n_ctx=4096, n_threads=args.threads)  # type: ignore[arg-type]
    runs: list[tuple[str, object | None, bool]] = [("rules only (--no-model)", None, True)]
    if backend is not None:
        runs += [("embedded model, path forced (before)", backend, False), ("embedded model, checked (after)", backend, True)]
    for label, b, check in runs:
        small = night(1, args.turns, b, check)
        print(f"[{label}] night of {args.turns} turns after 1 day of history:   {small}")
        if args.history > 1:
            large = night(args.history, args.turns, b, check)
            print(f"[{label}] night of {args.turns} turns after {args.history} days of history: {large}")
            print(f"[{label}] cost ratio {args.history}d/1d: {large['seconds'] / small['seconds']:.2f}x seconds, "
                  f"{(large['prompt_tokens'] + 1) / (small['prompt_tokens'] + 1):.2f}x prompt tokens")
        print(f"[{label}] quality: {quality(b, check)}")
    if backend is not None:
        backend.close()


if __name__ == "__main__":
    main()
