"""Search index at scale: build time, incremental update cost, recall latency on 10 years of day logs.

    python bench/recall_latency.py [--days 3650] [--per-day 56] [--model PATH] [--dataset EVAL.json]

Writes a synthetic home in a temporary folder (day logs written directly in the day-log format),
then prints: build seconds, items/s, index size, cost per appended record (append + refresh),
search latency p50/p95 over English, Chinese, typo and 'lately' queries, and the whole recall
step (index refresh check, search, packing into the budget) as a turn runs it, with tokens counted
by the model's tokenizer (the embedded model unless --model; the estimate when none is installed).
--dataset instead times the recall step on an eval conversation's questions (e.g. a converted
LoCoMo conversation).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from companion.agent.recall import pack  # noqa: E402
from companion.agent.turn import Agent  # noqa: E402
from companion.evaluation.harness import _Clock, ingest, load_dataset  # noqa: E402
from companion.llm.default_model import default_model_path  # noqa: E402
from companion.memory.daylog import DayLog  # noqa: E402
from companion.memory.search import RankSettings, SearchQuery, SearchIndex, search  # noqa: E402
from companion.memory.setup import ensure_home  # noqa: E402
from companion.paths import Home  # noqa: E402

WORDS = (
    "coffee tea garden dog walk work meeting manager sister brother train car book film music piano guitar "
    "dinner lunch breakfast weather rain sun holiday trip japan lisbon paris hospital doctor dentist school "
    "project deadline budget email phone call friend party birthday gift cake bread recipe soup run marathon "
    "swim bike gym tired happy sad worried excited plan idea question answer remember forget weekend monday"
).split()
CJK = ["咖啡", "茶", "工作", "朋友", "周末", "天气", "猫", "狗", "电影", "音乐", "医生", "旅行", "生日", "蛋糕"]
QUERIES = [
    "what did I say about my sister's birthday", "marathon training plan", "咖啡", "我的猫", "dentist appointment",
    "japan trip lisbon", "piano lessons", "what have I been reading lately", "garden soup recipe",
    "manger meeting deadline", "marathn", "周末旅行", "birthday cake for my brother", "doctor at the hospital",
]


def write_home(home: Home, days: int, per_day: int, seed: int = 3) -> int:
    rng = random.Random(seed)
    start = date.today() - timedelta(days=days)
    total = 0
    for offset in range(days):
        day = start + timedelta(days=offset)
        path = home.days / f"{day:%Y-%m}" / f"{day.isoformat()}.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        lines = []
        for seq in range(1, per_day + 1):
            if rng.random() < 0.1:
                text = "".join(rng.choice(CJK) for _ in range(rng.randint(3, 12)))
            else:
                text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(5, 30)))
            ts = datetime(day.year, day.month, day.day, 8, tzinfo=timezone.utc) + timedelta(minutes=seq)
            role = "user" if seq % 2 else "assistant"
            lines.append(json.dumps({"id": f"{day}#{seq}", "ts": ts.isoformat(), "role": role, "text": text},
                                    ensure_ascii=False))
            total += 1
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return total


def tokenizer(model: str | None) -> tuple[str, object | None]:
    path = Path(model) if model else default_model_path()
    if path is None:
        return "the estimate (no model installed)", None
    from companion.llm.llama import LlamaBackend

    return f"the tokenizer of {path.name}", LlamaBackend(path, n_ctx=2048, n_threads=1)


def step_times(agent: Agent, queries: list[str], rounds: int, budget: int) -> tuple[list[float], list[float]]:
    """The recall step as a turn runs it: refresh check, search, packing with the model's tokenizer.

    Wall-clock and CPU milliseconds: on a shared, loaded machine the CPU time is the steadier figure."""
    agent.settings.memory.prompt_budget_tokens = budget
    wall, cpu = [], []
    for _round in range(rounds):
        for query in queries:
            started, started_cpu = time.perf_counter(), time.process_time()
            ctx = agent.memory_context()
            pack(agent.recall.hits_for(query, ctx, history=False), ctx.recall_budget, ctx.count)
            wall.append((time.perf_counter() - started) * 1000)
            cpu.append((time.process_time() - started_cpu) * 1000)
    return sorted(wall), sorted(cpu)


def report(name: str, times: list[float] | tuple[list[float], list[float]]) -> None:
    wall, cpu = times if isinstance(times, tuple) else (times, None)
    line = f"{name}: p50 {statistics.median(wall):.1f} ms  p95 {_p95(wall):.1f} ms  max {wall[-1]:.1f} ms"
    if cpu is not None:
        line += f"  (CPU p50 {statistics.median(cpu):.1f} ms  p95 {_p95(cpu):.1f} ms)"
    print(line)


def _p95(values: list[float]) -> float:
    return values[max(0, int(len(values) * 0.95) - 1)]


def agent_for(home: Home, backend: object | None, today: date) -> Agent:
    now = datetime.combine(today, datetime.min.time().replace(hour=12)).astimezone()
    agent = Agent(home, backend, clock=lambda: now)  # type: ignore[arg-type]
    agent.recall.ready.wait()
    return agent


def on_dataset(path: Path, model: str | None) -> None:
    dataset = load_dataset(path)
    counting, backend = tokenizer(model)
    with tempfile.TemporaryDirectory() as folder:
        home = Home(Path(folder))
        ensure_home(home)
        ingest(home, dataset, _Clock())
        agent = agent_for(home, backend, max(q.asked_on for q in dataset.questions))
        print(f"{dataset.name}: {len(dataset.questions)} questions, {agent.recall.index.count()} items; tokens: {counting}")
        for budget in (512, 1024, 2048):
            report(f"recall step at {budget} tokens", step_times(agent, [q.question for q in dataset.questions], 1, budget))
        agent.recall.close()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--days", type=int, default=3650)
    parser.add_argument("--per-day", type=int, default=56)
    parser.add_argument("--model", help="GGUF whose tokenizer counts tokens (default: the embedded model)")
    parser.add_argument("--dataset", type=Path, help="time the recall step on this eval dataset's questions instead")
    args = parser.parse_args()
    if args.dataset:
        on_dataset(args.dataset, args.model)
        return
    with tempfile.TemporaryDirectory() as folder:
        home = Home(Path(folder))
        ensure_home(home)
        total = write_home(home, args.days, args.per_day)
        index = SearchIndex(home)
        started = time.perf_counter()
        index.sync()
        build = time.perf_counter() - started
        size = index.path.stat().st_size / 1e6
        print(f"records: {total}  build: {build:.1f} s ({total / build:.0f} records/s)  index: {size:.0f} MB")

        started = time.perf_counter()
        index.sync()
        print(f"start-up scan with nothing changed: {(time.perf_counter() - started) * 1000:.0f} ms")

        log = DayLog(home.days)
        appends = 50
        started = time.perf_counter()
        for n in range(appends):
            log.append("user", f"new message {n} about coffee and the garden")
            index.refresh()
        per = (time.perf_counter() - started) / appends * 1000
        started = time.perf_counter()
        for n in range(appends):
            log.append("user", f"plain append {n}")
        plain = (time.perf_counter() - started) / appends * 1000
        print(f"append + index refresh: {per:.1f} ms per record (the append alone, with fsync: {plain:.1f} ms)")

        for name, settings in (("final ranking", RankSettings()), ("decay x", RankSettings(decay="multiply"))):
            times, cpu = [], []
            for _round in range(5):
                for query in QUERIES:
                    started, started_cpu = time.perf_counter(), time.process_time()
                    search(index, SearchQuery(query, k=40, today=date.today()), settings)
                    times.append((time.perf_counter() - started) * 1000)
                    cpu.append((time.process_time() - started_cpu) * 1000)
            times.sort()
            cpu.sort()
            report(f"search ({name}, k=40)", (times, cpu))
        index.close()
        counting, backend = tokenizer(args.model)
        agent = agent_for(home, backend, date.today())
        print(f"whole recall step, tokens counted with {counting}:")
        for budget in (512, 1024, 2048):
            report(f"  budget {budget}", step_times(agent, QUERIES, 5, budget))
        agent.recall.close()


if __name__ == "__main__":
    main()
