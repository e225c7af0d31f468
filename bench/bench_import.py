"""Import throughput: a chat history of N messages over many days, and an exported memory merged back."""

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


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 5000)
