"""Kill -9 at random moments during appends, edits, a sleep run, an export and an import; nothing acknowledged is lost.

Each loop is bounded (iterations and seconds). A longer soak: COMPANION_SOAK_SECONDS=600 pytest tests/reliability,
or bench/reliability_report.py.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

HARNESS = Path(__file__).with_name("reliability_harness.py")
SOAK = float(os.environ.get("COMPANION_SOAK_SECONDS", "0"))

pytestmark = [pytest.mark.reliability, pytest.mark.skipif(os.name != "posix", reason="the crash loop forks and sends SIGKILL")]


def run_harness(*args: str, timeout: float) -> dict:
    env = {**os.environ, "PYTHONPATH": str(HARNESS.parents[2])}  # the code of this checkout, not the installed one
    done = subprocess.run(
        [sys.executable, str(HARNESS), *args], capture_output=True, text=True, timeout=timeout, check=False, env=env
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize(
    ("target", "iterations", "seconds", "minimum"),
    [("daylog", 300, 8, 80), ("longterm", 200, 7, 50), ("sleep", 120, 6, 25), ("export", 60, 4, 12), ("import", 150, 5, 20)],
)
def test_crash_loop_loses_nothing(tmp_path: Path, target: str, iterations: int, seconds: float, minimum: int) -> None:
    if SOAK:
        iterations, seconds = 1_000_000, SOAK
    result = run_harness("crash", target, str(tmp_path / "home"), "--iterations", str(iterations),
                         "--seconds", str(seconds), timeout=seconds + 120)
    print(f"crash {target}: {result['iterations']} iterations, {result['violations']} violations, {result['details']}")
    assert result["violations"] == 0, result["problems"]
    assert result["iterations"] >= minimum  # the loop really ran
