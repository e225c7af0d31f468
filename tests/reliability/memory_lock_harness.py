"""A real night or a real import in its own process that stops at a gate, so a test can run a forget,
an import or a night in another process at that very moment.

    python memory_lock_harness.py sleep HOME GATE        # stops when the night starts distilling a day
    python memory_lock_harness.py sleep-wrote HOME GATE  # stops right after the night's first write
    python memory_lock_harness.py import HOME SRC GATE   # stops after the first step of a merge import

At the gate the process creates GATE.waiting and goes on once GATE.go exists (60 s at most).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from companion.paths import Home
from companion.portability.skill_import import import_memory
from companion.sleep.job import SleepJob

WAIT_S = 60.0


def gate(path: Path) -> None:
    Path(f"{path}.waiting").touch()
    end = time.monotonic() + WAIT_S
    while not Path(f"{path}.go").exists():
        if time.monotonic() > end:
            sys.exit("the test never opened the gate")
        time.sleep(0.02)


def main(argv: list[str]) -> int:
    kind, home = argv[0], Home(Path(argv[1]))
    if kind in ("sleep", "sleep-wrote"):
        at = Path(argv[2])
        seen: list[str] = []

        def progress(message: str) -> None:
            if kind == "sleep" and message.startswith("Distilling") and not seen:
                seen.append(message)
                gate(at)

        def wrote(name: str, doc: object) -> None:
            if kind == "sleep-wrote" and not seen:
                seen.append(name)
                gate(at)

        job = SleepJob(home, None, progress=progress)
        job.store.subscribe(wrote)
        report = job.run()
        print(report.summary(), flush=True)
        return 0
    if kind == "import":
        src, at = Path(argv[2]), Path(argv[3])
        steps: list[str] = []

        def step(done: int, total: int, what: str) -> None:
            if not steps:
                steps.append(what)
                gate(at)

        print("\n".join(import_memory(home, src, "merge", progress=step).lines()), flush=True)
        return 0
    sys.exit(f"unknown kind {kind!r}")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
