"""Time 100 explicit "remember ..." writes in a row (policy, compare-and-swap, snapshot, fsync'd atomic write).

    python bench/remember_cost.py [N]
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

from companion.curate.requests.handle import MemoryRequests
from companion.curate.requests import memory_request
from companion.memory.history import Actor
from companion.memory.longterm import LongTermStore
from companion.memory.setup import ensure_home
from companion.paths import Home

FACTS = ["my sister is called Lea", "I'm allergic to peanuts", "we adopted a cat named Tofu", "I prefer window seats",
         "my flat has a blue door", "the bakery on the corner opens at seven", "我喜欢喝乌龙茶", "I work at the city library"]


def main(argv: list[str]) -> int:
    count = int(argv[0]) if argv else 100
    with tempfile.TemporaryDirectory() as tmp:
        home = Home(Path(tmp) / "home")
        ensure_home(home, "en")
        store = LongTermStore(home)
        requests = MemoryRequests(store)
        timings, bare, saved = [], [], 0
        for index in range(count):  # interleaved with the same durable write without the policy, so load hits both
            request = memory_request(f"remember that {FACTS[index % len(FACTS)]} (note {index})")
            assert request is not None
            start = time.perf_counter()
            outcome = requests.apply(request, f"2026-11-30#{index + 1}")
            timings.append(time.perf_counter() - start)
            saved += outcome.changed
            start = time.perf_counter()
            # the store's own durable write, below the writer's policy: the baseline the policy's cost is read against
            store._append("MEMORY.md", f"- Plain note {index} (2026-11-30#{index + 1})", "## Facts", actor=Actor.EDITOR)
            bare.append(time.perf_counter() - start)
    mean, base = statistics.mean(timings), statistics.mean(bare)
    print(f"{count} remember writes, {saved} saved: mean {mean * 1000:.1f} ms, "
          f"median {statistics.median(timings) * 1000:.1f} ms, max {max(timings) * 1000:.1f} ms")
    print(f"bare fsync'd append of one line: mean {base * 1000:.1f} ms; policy and planning add {(mean - base) * 1000:.1f} ms "
          f"(x{mean / base:.2f})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
