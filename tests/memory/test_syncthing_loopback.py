"""Two real Syncthing instances on 127.0.0.1 (bench/sync_syncthing.py): Syncthing's own conflict copy of
USER.md is merged by the night, every message arrives, no id twice, one USER.md. Skipped without Syncthing."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench" / "sync_syncthing.py"


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("syncthing") is None, reason="Syncthing is not installed (Debian package syncthing)")
def test_two_syncthings_on_loopback_lose_nothing():
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    done = subprocess.run([sys.executable, str(BENCH)], env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "conflict copies Syncthing made: ['USER.sync-conflict-" in done.stdout
    assert "FAIL" not in done.stdout
