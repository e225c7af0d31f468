"""Curation harness: labelled statements through the rule path (remember, daytime learning, the night),
scored per category as correct, wrongly stored or wrongly missed.

A statements file is JSON: {"statements": [...]} (or just the list), each statement
    {"category": "correction", "lang": "en", "text": "Sorry, I meant Lille, not Lyon.",
     "stored": ["Lives in Lille"],            # entries that must be written ([] = nothing may be)
     "supersedes": ["Lives in Lyon"],         # optional: entries that must end up superseded
     "existing": {"USER.md": ["Lives in Lyon"]},  # optional: entries already in the files
     "history": ["I live in Lyon."],          # optional: the user's earlier messages that day
     "role": "user",                          # optional: "assistant" for the companion's own words
     "also_ok": ["..."],                      # optional: entries that may be written as well
     "reply_says": "email"}                   # optional: a word the note for the reply must hold
An expected entry matches a written one when all its words (Chinese: characters) appear in it and
both say "not", or neither does.
"""

from __future__ import annotations

import json
import re
import tempfile
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from companion.agent.learn import DaytimeLearner
from companion.curate.requests import MemoryRequests, memory_request
from companion.memory import entries as E
from companion.memory.daylog import DayLog
from companion.curate.gate import MemoryWriter
from companion.curate.policy import Actor
from companion.memory.longterm import LongTermStore
from companion.memory.setup import ensure_home
from companion.paths import Home
from companion.sleep.job import SleepJob
from companion.memory.lang import HAN

FILES = ("USER.md", "MEMORY.md", "SOUL.md")
SEED_SECTION = {"USER.md": "## Profile", "MEMORY.md": "## Facts", "SOUL.md": "## Style"}
_WORD = re.compile(r"[a-z0-9@.+]+|[" + HAN + r"]")
_NEG = re.compile(r"\b(?:not|never|no|doesn't|don't|dislikes)\b|不|没|从不", re.I)
_STOP = {"a", "an", "the", "is", "in", "at", "to", "of", "and", "for", "my", "as", "user", "user's", "s"}


@dataclass
class Statement:
    category: str
    lang: str
    text: str
    stored: list[str]
    supersedes: list[str] = field(default_factory=list)
    existing: dict[str, list[str]] = field(default_factory=dict)
    history: list[str] = field(default_factory=list)
    role: str = "user"
    also_ok: list[str] = field(default_factory=list)
    reply_says: str | None = None


@dataclass
class Result:
    statement: Statement
    new: list[str]  # entries written for this statement (active)
    still_active: list[str]  # expected-superseded entries still active
    notes: list[str]
    wrongly_stored: list[str]
    missed: list[str]

    @property
    def correct(self) -> bool:
        return not self.wrongly_stored and not self.missed


def load(path: Path) -> list[Statement]:
    data = json.loads(path.read_text(encoding="utf-8"))
    items = data["statements"] if isinstance(data, dict) else data
    return [Statement(**item) for item in items]


def _stem(word: str) -> str:
    return word[:-1] if len(word) > 3 and word.endswith("s") else word


def _words(text: str) -> set[str]:
    text = text.casefold().replace("doesn't", "does not").replace("n't", " not")
    return {_stem(w.strip(".")) for w in _WORD.findall(text) if w.strip(".") not in _STOP}


def matches(expected: str, actual: str) -> bool:
    """Every word (CJK: character) of `expected` is in `actual`, and both say no, or neither does."""
    want, have = _words(expected), _words(actual)
    return bool(want) and want <= have and bool(_NEG.search(expected)) == bool(_NEG.search(actual))


def _active(store: LongTermStore) -> list[str]:
    return [E.entry_text(line) for name in FILES for line in E.active_entries(store.read(name).body)]


def run_statement(statement: Statement, root: Path) -> Result:
    home = Home(root)
    ensure_home(home, "en")
    clock_now = [datetime(2026, 11, 30, 10, 0, tzinfo=timezone.utc)]

    def clock() -> datetime:
        clock_now[0] += timedelta(seconds=1)
        return clock_now[0]

    store = LongTermStore(home)
    writer = MemoryWriter(store)
    for name, texts in statement.existing.items():
        for text in texts:
            writer.append(name, E.format_entry(text, ["2026-11-01#1"]), SEED_SECTION[name], actor=Actor.EDITOR)
    daylog = DayLog(home.days, clock)
    requests = MemoryRequests(store)
    learner = DaytimeLearner(store, lambda: None, clock)
    notes: list[str] = []
    for text in statement.history:
        _turn(text, "user", daylog, requests, learner, notes)
    before = _active(store)
    notes.clear()
    _turn(statement.text, statement.role, daylog, requests, learner, notes)
    SleepJob(home, None, clock=clock, store=store).run()
    after = _active(store)
    new = [t for t in after if t not in before]
    ok = statement.stored + statement.also_ok
    wrongly_stored = [t for t in new if not any(matches(e, t) for e in ok)]
    missed = [e for e in statement.stored if not any(matches(e, t) for t in new)]
    still = [e for e in statement.supersedes if any(matches(e, t) and not any(matches(n, t) for n in ok) for t in after)]
    missed += [f"supersede {e}" for e in still]
    if statement.reply_says and not any(statement.reply_says in n.casefold() for n in notes):
        missed.append(f"reply says {statement.reply_says}")
    return Result(statement, new, still, list(notes), wrongly_stored, missed)


def _turn(text: str, role: str, daylog: DayLog, requests: MemoryRequests, learner: DaytimeLearner, notes: list[str]) -> None:
    record = daylog.append(role, text)
    if role != "user":
        return
    request = memory_request(text)
    if request is not None:
        notes.append(requests.apply(request, record.id).note)
    else:
        learner.after_turn(record, None, False)


def run_all(statements: list[Statement]) -> list[Result]:
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for index, statement in enumerate(statements):
            results.append(run_statement(statement, Path(tmp) / str(index)))
    return results


def by_category(results: list[Result]) -> dict[str, dict[str, Any]]:
    """{category: {total, correct, wrongly_stored, wrongly_missed}}."""
    table: dict[str, dict[str, Any]] = defaultdict(lambda: {"total": 0, "correct": 0, "wrongly_stored": 0, "wrongly_missed": 0})
    for result in results:
        row = table[result.statement.category]
        row["total"] += 1
        row["correct"] += result.correct
        row["wrongly_stored"] += bool(result.wrongly_stored)
        row["wrongly_missed"] += bool(result.missed)
    return dict(table)
