"""Import throughput: a chat history of N messages over many days, an exported memory merged back, and
merging Markdown memory files of 2k/4k/16k entries (linear: 16k should take about 8x the 2k time).

    PYTHONPATH=. python bench/bench_import.py [N]
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

from companion.portability.migrate import migrate_path
from companion.memory.setup import ensure_home
from companion.portability.skill_export import export_memory
from companion.portability.skill_import import import_memory
from companion.paths import Home


def merge_entries(count: int, root: Path) -> float:
    """Seconds to merge a MEMORY.md of `count` entries (half already known) into a home."""
    src = root / f"src-{count}"
    src.mkdir()
    sections = ("Facts", "Decisions", "Topics & Interests", "Timeline")
    lines = {s: [] for s in sections}
    for i in range(count):
        lines[sections[i % 4]].append(f"- Entry number {i} about topic {i * 7919 % 1000}")
    (src / "MEMORY.md").write_text("".join(f"## {s}\n" + "\n".join(l) + "\n\n" for s, l in lines.items()), encoding="utf-8")
    home = Home(root / f"home-{count}")
    ensure_home(home)
    known = "".join(f"- Entry number {i} about topic {i * 7919 % 1000}\n" for i in range(0, count, 2))
    (home.memory / "MEMORY.md").write_text("## Facts\n" + known, encoding="utf-8")
    began = time.perf_counter()
    report = import_memory(home, src)
    seconds = time.perf_counter() - began
    assert report.entries_added["MEMORY.md"] == count // 2, report.entries_added
    return seconds


def main(count: int = 5000) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        start = datetime(2024, 1, 1, 9, tzinfo=timezone.utc)
        messages = [
            {"role": "user" if i % 2 == 0 else "assistant", "content": f"message {i} about day {i // 50}",
             "timestamp": (start + timedelta(minutes=30 * i)).isoformat()}
            for i in range(count)
        ]
        (root / "history.json").write_text(json.dumps(messages))
        home = Home(root / "home")
        ensure_home(home)

        began = time.perf_counter()
        migrate_path(home, root / "history.json")
        migrated = time.perf_counter() - began
        print(f"chat history: {count} messages in {migrated:.2f} s ({count / migrated:.0f} messages/s)")

        began = time.perf_counter()
        exported = export_memory(home, root / "export").path
        print(f"export: {time.perf_counter() - began:.2f} s")

        other = Home(root / "other")
        ensure_home(other)
        began = time.perf_counter()
        import_memory(other, exported)
        first = time.perf_counter() - began
        began = time.perf_counter()
        import_memory(other, exported)
        again = time.perf_counter() - began
        print(f"merge into a fresh home: {first:.2f} s; merging the same again (all skipped): {again:.2f} s")
        print(f"ratio chat-history migration / re-merge: {migrated / again:.1f}x")

        times = {n: merge_entries(n, root) for n in (2000, 4000, 16000)}
        for n, seconds in times.items():
            print(f"merge a MEMORY.md of {n} entries (half new): {seconds:.2f} s")
        print(f"16k / 2k time ratio: {times[16000] / times[2000]:.1f}x (linear: ~8x; quadratic: ~64x)")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 5000)
