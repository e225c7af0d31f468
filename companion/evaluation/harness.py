"""Memory-quality harness: ingest a dated conversation into a fresh home, ask questions, measure recall."""

from __future__ import annotations

import json
import re
import statistics
import tempfile
import time
from dataclasses import dataclass, field
from datetime import date, datetime, time as dtime, timedelta
from pathlib import Path
from typing import Any, Callable

from companion.agent import prompt as P
from companion.agent.recall import HEADER, pack, snippet_line
from companion.agent.session import ChatSession
from companion.memory.lang import fold
from companion.agent.turn import Agent
from companion.curate.gate import MemoryWriter
from companion.curate.names import set_name
from companion.errors import DatasetError
from companion.llm.base import Backend
from companion.llm.embed import Embedder
from companion.memory.daylog import DayLog
from companion.memory import entries as E
from companion.memory.search.rank import Hit, RankSettings
from companion.memory.search.tokenize import query_terms
from companion.memory.setup import ensure_home
from companion.paths import Home
from companion.settings import Settings

NAME_FILES = {"user": ("USER.md", "## Profile"), "assistant": ("SOUL.md", "## Identity")}
_PUNCT = re.compile(r"[\W_]+", re.UNICODE)


@dataclass
class Question:
    question: str
    answer: str
    evidence: list[str]
    asked_on: date
    category: str


@dataclass
class Dataset:
    name: str
    days: list[dict[str, Any]]
    questions: list[Question]
    names: dict[str, str] = field(default_factory=dict)  # role -> name, as Preferences would set them


def load_dataset(path: Path) -> Dataset:
    """Parse and check a dataset file; errors say which entry is wrong."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise DatasetError(f"Dataset {path} does not exist.") from exc
    except (OSError, ValueError) as exc:
        raise DatasetError(f"Dataset {path} is not readable JSON: {exc}") from exc
    if not isinstance(data, dict) or not isinstance(data.get("days"), list) or not isinstance(data.get("questions"), list):
        raise DatasetError(f"Dataset {path} needs 'days' and 'questions' lists.")
    refs: set[str] = set()
    for number, day in enumerate(data["days"], 1):
        try:
            date.fromisoformat(day["date"])
            for turn in day["turns"]:
                if turn["role"] not in ("user", "assistant") or not isinstance(turn["text"], str):
                    raise ValueError("role must be user or assistant, text a string")
                if "ref" in turn:
                    refs.add(turn["ref"])
        except (KeyError, TypeError, ValueError) as exc:
            raise DatasetError(f"Day {number} of {path.name} is malformed ({exc}).") from exc
    questions = []
    for number, raw in enumerate(data["questions"], 1):
        try:
            evidence = list(raw.get("evidence", []))
            unknown = [r for r in evidence if r not in refs]
            if unknown:
                raise ValueError(f"unknown evidence refs {unknown}")
            questions.append(
                Question(raw["question"], str(raw.get("answer", "")), evidence, date.fromisoformat(raw["asked_on"]),
                         str(raw.get("category", "general")))
            )
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise DatasetError(f"Question {number} of {path.name} is malformed ({exc}).") from exc
    names = data.get("names", {})
    if not isinstance(names, dict) or any(r not in NAME_FILES or not isinstance(n, str) for r, n in names.items()):
        raise DatasetError(f"Dataset {path}: 'names' maps 'user' and/or 'assistant' to a name.")
    return Dataset(str(data.get("name", path.stem)), data["days"], questions, names)


def normalize(text: str) -> str:
    return " ".join(_PUNCT.sub(" ", fold(text)).split())


class _Clock:
    def __init__(self) -> None:
        self.now = datetime(2000, 1, 1).astimezone()

    def __call__(self) -> datetime:
        return self.now

    def set(self, day: date, at: dtime) -> None:
        self.now = datetime.combine(day, at).astimezone()


def ingest(home: Home, dataset: Dataset, clock: _Clock, after_day: Callable[[date], None] | None = None) -> dict[str, str]:
    """Write the turns as day-log records on their dates; returns dataset ref -> record id."""
    log = DayLog(home.days, clock)
    ids: dict[str, str] = {}
    for day in sorted(dataset.days, key=lambda d: d["date"]):
        when = date.fromisoformat(day["date"])
        minute = 9 * 60
        for turn in day["turns"]:
            if "time" in turn:
                hours, minutes = (int(p) for p in turn["time"].split(":"))
                minute = max(minute, hours * 60 + minutes)
            clock.set(when, dtime(min(minute // 60, 23), minute % 60))
            extra = {"ref": turn["ref"]} if "ref" in turn else {}
            record = log.append(turn["role"], turn["text"], **extra)
            if "ref" in turn:
                ids[turn["ref"]] = record.id
            minute += 1
        if after_day is not None:
            after_day(when)
    return ids


@dataclass
class Answer:
    """What one question found in the memory part of the prompt."""

    question: Question
    present: set[str]  # record ids whose text (or an entry citing them) is in the context
    context: str
    tokens: int
    seconds: float
    shown: list[str] = field(default_factory=list)  # where each recalled snippet came from, in block order
    recall_tokens: int = 0  # the recall block alone

    def evidence_share(self, ids: dict[str, str]) -> float | None:
        if not self.question.evidence:
            return None
        found = sum(1 for ref in self.question.evidence if ids[ref] in self.present)
        return found / len(self.question.evidence)

    def answer_hit(self) -> bool | None:
        if not self.question.evidence or not self.question.answer.strip():
            return None
        return normalize(self.question.answer) in normalize(self.context)


@dataclass
class Report:
    name: str
    mode: str
    budget: int
    answers: list[Answer] = field(default_factory=list)
    ids: dict[str, str] = field(default_factory=dict)
    coverage: float | None = None
    memory_tokens: int = 0

    def summary(self, answers: list[Answer] | None = None) -> dict[str, Any]:
        answers = self.answers if answers is None else answers
        shares = [s for s in (a.evidence_share(self.ids) for a in answers) if s is not None]
        hits = [h for h in (a.answer_hit() for a in answers) if h is not None]
        latencies = sorted(a.seconds * 1000 for a in answers)
        return {
            "questions": len(answers),
            "EvR": round(statistics.fmean(shares), 3) if shares else None,
            "Full": round(sum(1 for s in shares if s == 1.0) / len(shares), 3) if shares else None,
            "AnsHit": round(sum(hits) / len(hits), 3) if hits else None,
            "context_tokens": round(statistics.fmean(a.tokens for a in answers), 1) if answers else 0,
            "recall_tokens": round(statistics.fmean(a.recall_tokens for a in answers), 1) if answers else 0,
            "p50_ms": round(_percentile(latencies, 50), 2) if latencies else None,
            "p95_ms": round(_percentile(latencies, 95), 2) if latencies else None,
        }

    def questions(self) -> list[dict[str, Any]]:
        """Per question: what was asked, which evidence and answer reached the prompt, what was shown."""
        refs = {record: ref for ref, record in self.ids.items()}
        return [
            {
                "question": a.question.question,
                "category": a.question.category,
                "answer": a.question.answer,
                "evidence": a.question.evidence,
                "found": [r for r in a.question.evidence if self.ids[r] in a.present],
                "answer_hit": a.answer_hit(),
                "shown": [refs.get(where, where) for where in a.shown],
                "tokens": a.tokens,
                "ms": round(a.seconds * 1000, 2),
            }
            for a in self.answers
        ]

    def to_dict(self, questions: bool = False) -> dict[str, Any]:
        categories = sorted({a.question.category for a in self.answers})
        extra = {"questions": self.questions()} if questions else {}
        return {
            "dataset": self.name,
            "mode": self.mode,
            "budget": self.budget,
            "overall": self.summary(),
            "categories": {c: self.summary([a for a in self.answers if a.question.category == c]) for c in categories},
            "coverage": self.coverage,
            "memory_tokens": self.memory_tokens,
            **extra,
        }


def _percentile(sorted_values: list[float], pct: float) -> float:
    index = min(len(sorted_values) - 1, max(0, round(pct / 100 * (len(sorted_values) - 1))))
    return sorted_values[index]


def _cited(text: str) -> set[str]:
    return set(E.ID.findall(text))


def _present(hits: list[Hit], sections: str) -> set[str]:
    found = _cited(sections)
    for hit in hits:
        if hit.item.kind == "turn":
            found.add(hit.item.locator)
        found.update(hit.item.cites)
        found.update(_cited(hit.item.text))
    return found


def ask_recall(agent: Agent, question: Question, clock: _Clock) -> Answer:
    """The memory part of the prompt exactly as a turn would build it, with no recent history."""
    clock.set(question.asked_on, dtime(12, 0))
    started = time.perf_counter()
    ctx = agent.memory_context()
    fit = ctx.fit
    hits = agent.recall.hits_for(question.question, ctx, history=False)
    packed = pack(hits, fit.recall_budget, ctx.count)
    seconds = time.perf_counter() - started
    sections = P.memory_sections(fit.bodies)
    context = sections + ("\n\n" + packed.block if packed.block else "")
    shown = [h.where for h in packed.hits]
    return Answer(question, _present(packed.hits, sections), context, fit.tokens + packed.tokens, seconds, shown,
                  packed.tokens)


def ask_baseline(agent: Agent, question: Question, clock: _Clock, budget: int) -> Answer:
    """The floor: plain BM25 over raw turns, whole turns packed in rank order."""
    clock.set(question.asked_on, dtime(12, 0))
    started = time.perf_counter()
    terms = query_terms(question.question)
    candidates = agent.recall.index.match(dict.fromkeys(terms, 1.0), kinds=("turn",), limit=100) if terms else []
    lines = [HEADER]
    used = agent.count_tokens(HEADER)
    present: set[str] = set()
    shown: list[str] = []
    for candidate in candidates:  # each line counted once, as recall packs
        hit = Hit(candidate.item, candidate.relevance, candidate.relevance)
        line = snippet_line(hit, " ".join(candidate.item.text.split()))
        cost = agent.count_tokens(line) + 1
        if used + cost <= budget:
            lines.append(line)
            used += cost
            present.add(candidate.item.locator)
            shown.append(candidate.item.locator)
    seconds = time.perf_counter() - started
    context = "\n".join(lines)
    tokens = agent.count_tokens(context)
    return Answer(question, present, context, tokens, seconds, shown, tokens)


def evaluate(
    dataset: Dataset,
    *,
    budget: int = 1024,
    sleep: bool = False,
    baseline: bool = False,
    backend: Backend | None = None,
    rank: RankSettings | None = None,
    embedder: Embedder | None = None,
    mode: str | None = None,
    progress: Callable[[str], None] = lambda message: None,
) -> Report:
    """Run the whole harness in a temporary home that is deleted afterwards."""
    with tempfile.TemporaryDirectory(prefix="companion-eval-") as folder:
        home = Home(Path(folder))
        ensure_home(home, "en")
        clock = _Clock()
        settings = Settings()
        settings.memory.prompt_budget_tokens = budget
        session = ChatSession(home, settings, clock=clock, embedder=embedder)  # the model has one owner here too, as in the app
        if backend is not None:
            session.adopt(backend, owned=False)
        try:
            after_day = _sleeper(session, clock, progress) if sleep else None
            ids = ingest(home, dataset, clock, after_day)
            agent = session.agent
            for role, name in dataset.names.items():
                set_name(MemoryWriter(agent.store), *NAME_FILES[role], name)
            if rank is not None:
                agent.recall.settings = rank
            agent.recall.ready.wait()
            agent.recall.index.sync()
            if embedder is not None:
                agent.recall.wait_embedded()
            mode = mode or ("baseline" if baseline else ("sleep" if sleep else "recall"))
            report = Report(dataset.name, mode, budget, ids=ids)
            for number, question in enumerate(dataset.questions, 1):
                if baseline:
                    report.answers.append(ask_baseline(agent, question, clock, budget))
                else:
                    report.answers.append(ask_recall(agent, question, clock))
                if number % 25 == 0:
                    progress(f"{number}/{len(dataset.questions)} questions")
            report.memory_tokens = _memory_tokens(home, agent)
            if sleep:
                report.coverage = _coverage(home, dataset, ids)
        finally:
            session.close()
    return report


def evaluate_grid(
    dataset: Dataset,
    budgets: list[int],
    modes: dict[str, RankSettings | None],
    *,
    embedder: Embedder | None = None,
    progress: Callable[[str], None] = lambda message: None,
) -> list[Report]:
    """Every budget and ranking on one home (ingested and embedded once); a mode of None is the BM25 floor."""
    reports: list[Report] = []
    with tempfile.TemporaryDirectory(prefix="companion-eval-") as folder:
        home = Home(Path(folder))
        ensure_home(home, "en")
        clock = _Clock()
        ids = ingest(home, dataset, clock)
        settings = Settings()
        session = ChatSession(home, settings, clock=clock, embedder=embedder)
        agent = session.agent
        for role, name in dataset.names.items():
            set_name(MemoryWriter(agent.store), *NAME_FILES[role], name)
        try:
            agent.recall.ready.wait()
            agent.recall.index.sync()
            if embedder is not None:
                agent.recall.wait_embedded()
            for budget in budgets:
                settings.memory.prompt_budget_tokens = budget
                for mode, rank in modes.items():
                    report = Report(dataset.name, mode, budget, ids=ids)
                    if rank is not None:
                        agent.recall.settings = rank
                    for question in dataset.questions:
                        if rank is None:
                            report.answers.append(ask_baseline(agent, question, clock, budget))
                        else:
                            report.answers.append(ask_recall(agent, question, clock))
                    report.memory_tokens = _memory_tokens(home, agent)
                    reports.append(report)
                    progress(f"{dataset.name} {budget} {mode}: {report.summary()}")
        finally:
            session.close()
    return reports


def _sleeper(session: ChatSession, clock: _Clock, progress: Callable[[str], None]) -> Callable[[date], None]:
    from companion.sleep.job import SleepJob  # the nightly job, as it would run after each day

    def after_day(day: date) -> None:
        clock.set(day + timedelta(days=1), dtime(3, 0))
        SleepJob(session.home, session.background(), clock=clock, store=session.agent.store).run(day=day)
        progress(f"slept after {day}")

    return after_day


def _memory_tokens(home: Home, agent: Agent) -> int:
    """Long-term files plus digests, in tokens."""
    total = sum(agent.count_tokens(agent.store.read(name).body) for name, _ in P.LONG_TERM_TITLES)
    for path in sorted(home.digests.glob("*/*.md")):
        total += agent.count_tokens(path.read_text(encoding="utf-8"))
    return total


def _coverage(home: Home, dataset: Dataset, ids: dict[str, str]) -> float | None:
    """Share of evidence refs cited by long-term entries or digests."""
    wanted = {ids[ref] for q in dataset.questions for ref in q.evidence}
    if not wanted:
        return None
    cited: set[str] = set()
    for name, _ in P.LONG_TERM_TITLES:
        cited |= _cited((home.memory / name).read_text(encoding="utf-8"))
    for path in home.digests.glob("*/*.md"):
        cited |= _cited(path.read_text(encoding="utf-8"))
    return round(len(wanted & cited) / len(wanted), 3)


def format_table(reports: list[Report]) -> str:
    """A plain-text table: one row per report and category."""
    header = f"{'dataset':<18} {'mode':<9} {'budget':>6} {'category':<14} {'n':>4} {'EvR':>6} {'Full':>6} {'AnsHit':>6} {'tokens':>7} {'recall':>7} {'p50ms':>7} {'p95ms':>7}"
    rows = [header, "-" * len(header)]
    for report in reports:
        data = report.to_dict()
        for category, summary in [("ALL", data["overall"]), *data["categories"].items()]:
            rows.append(
                f"{report.name[:18]:<18} {report.mode:<9} {report.budget:>6} {category[:14]:<14} {summary['questions']:>4} "
                f"{_fmt(summary['EvR'])} {_fmt(summary['Full'])} {_fmt(summary['AnsHit'])} {summary['context_tokens']:>7} "
                f"{summary['recall_tokens']:>7} "
                f"{_fmt(summary['p50_ms'], 7)} {_fmt(summary['p95_ms'], 7)}"
            )
        extra = []
        if report.coverage is not None:
            extra.append(f"coverage {report.coverage}")
        extra.append(f"memory size {report.memory_tokens} tokens")
        rows.append(f"{'':<18} {', '.join(extra)}")
    return "\n".join(rows)


def _fmt(value: float | None, width: int = 6) -> str:
    return f"{'-':>{width}}" if value is None else f"{value:>{width}}"

