"""Latency of the MCP search tool at scale: 200k turns, searched through the official SDK's client.

    PYTHONPATH=. python bench/mcp_latency.py [--turns 200000]

Writes a synthetic home (bench/recall_latency.py's day logs), builds the search index once, then
times `search_memory` calls: the sharing layer alone (ranking, masking, the day-log event) and the
whole round trip through the SDK's client connected to the server in-process (JSON-RPC, schema
validation, the worker thread), English and Chinese queries separately; p50/p95 in milliseconds.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import anyio  # noqa: E402
from mcp import Client  # noqa: E402

from companion.agent.sharing import MemoryShare, allow  # noqa: E402
from companion.commands.mcp_server import build_server, stdio_agent  # noqa: E402
from companion.memory.search import open_index  # noqa: E402
from companion.memory.setup import ensure_home  # noqa: E402
from companion.paths import Home  # noqa: E402
from companion.settings import Settings  # noqa: E402
from recall_latency import QUERIES, write_home  # noqa: E402

CHINESE = [q for q in QUERIES if any("\u4e00" <= c <= "\u9fff" for c in q)]
ENGLISH = [q for q in QUERIES if q not in CHINESE]


def _ms(samples: list[float]) -> str:
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]
    return f"p50 {statistics.median(ordered) * 1000:.1f} ms, p95 {p95 * 1000:.1f} ms (n={len(ordered)})"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--turns", type=int, default=200_000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    per_day = 56
    with tempfile.TemporaryDirectory() as tmp:
        home = Home(Path(tmp) / "home")
        ensure_home(home, "en")
        total = write_home(home, args.turns // per_day, per_day)
        t0 = time.perf_counter()
        index = open_index(home)
        print(f"{total} turns; index built in {time.perf_counter() - t0:.1f} s")
        settings = Settings()
        allow(settings, "bench", {"search", "profile"})
        share = MemoryShare(home, settings, index=index)
        share.search("bench", "warm up")
        for label, queries in (("English", ENGLISH), ("Chinese", CHINESE)):
            samples = []
            for _ in range(args.rounds):
                for query in queries:
                    t = time.perf_counter()
                    share.search("bench", query, 8)
                    samples.append(time.perf_counter() - t)
            print(f"sharing layer, {label}: {_ms(samples)}")
        server = build_server(share, stdio_agent("bench"))

        async def through_client() -> dict[str, list[float]]:
            out: dict[str, list[float]] = {"English": [], "Chinese": []}
            async with Client(server) as client:
                await client.call_tool("search_memory", {"query": "warm up"})
                for _ in range(args.rounds):
                    for label, queries in (("English", ENGLISH), ("Chinese", CHINESE)):
                        for query in queries:
                            t = time.perf_counter()
                            result = await client.call_tool("search_memory", {"query": query, "k": 8})
                            out[label].append(time.perf_counter() - t)
                            assert not result.is_error, result.content
            return out

        for label, samples in anyio.run(through_client).items():
            print(f"SDK client round trip, {label}: {_ms(samples)}")
        share.close()


if __name__ == "__main__":
    main()
