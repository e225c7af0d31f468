"""Forget, import and the night in separate real processes on one home: nothing learned is lost and
nothing forgotten comes back, whichever runs first (memory/maintenance.py)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from companion.memory.daylog import DayLog
from companion.memory.longterm import LongTermStore
from companion.memory.setup import ensure_home
from companion.paths import Home

pytestmark = [pytest.mark.reliability, pytest.mark.skipif(os.name != "posix", reason="shared flock locks")]
ROOT = Path(__file__).resolve().parents[2]
HARNESS = Path(__file__).with_name("memory_lock_harness.py")
TIMEOUT = 120


def _env(home: Home) -> dict[str, str]:
    return {**os.environ, "COMPANION_HOME": str(home.root), "PYTHONPATH": str(ROOT)}


def _home(tmp_path: Path, *said: str) -> Home:
    """A home whose yesterday holds `said`, not yet distilled."""
    home = Home(tmp_path / "home")
    ensure_home(home, "en")
    when = [datetime.now(timezone.utc).astimezone() - timedelta(days=1)]
    log = DayLog(home.days, lambda: when[0])
    for text in said:
        log.append("user", text)
        log.append("assistant", "Noted.")
        when[0] += timedelta(minutes=1)
    return home


def _harness(home: Home, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, str(HARNESS), *args], env=_env(home), cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _companion(home: Home, *args: str, **kwargs: object) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "companion", "--home", str(home.root), *args], env=_env(home),
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kwargs)  # type: ignore[call-overload]


def _wait_for(path: Path, process: subprocess.Popen[str]) -> None:
    end = time.monotonic() + TIMEOUT
    while not path.exists():
        if process.poll() is not None:
            raise AssertionError(f"exited before {path.name}: {process.communicate()}")
        assert time.monotonic() < end, f"never reached {path.name}"
        time.sleep(0.02)


def _finish(process: subprocess.Popen[str]) -> str:
    try:
        out, err = process.communicate(timeout=TIMEOUT)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == 0, err[-3000:]
    return out


def _everywhere(home: Home, word: str) -> list[str]:
    return sorted(str(p.relative_to(home.root)) for p in home.root.rglob("*")
                  if p.is_file() and p.suffix in (".jsonl", ".md", ".json")
                  and word in p.read_text(encoding="utf-8", errors="replace").casefold())


def test_forget_everywhere_while_the_night_distills_is_not_undone(tmp_path: Path) -> None:
    home = _home(tmp_path, "I live in Lyon.", "I play the cello.")
    gate = tmp_path / "night"
    night = _harness(home, "sleep", str(home.root), str(gate))
    try:
        _wait_for(Path(f"{gate}.waiting"), night)  # the night has listed the day and is about to distill it
        forget = _companion(home, "forget", "Lyon", "--yes")
        out = _finish(forget)
        assert "Erased from 1 message" in out
    finally:
        Path(f"{gate}.go").touch()
    _finish(night)
    assert _everywhere(home, "lyon") == []  # not in USER.md, the report, a digest or a snapshot
    assert "Plays the cello" in LongTermStore(home).read("USER.md").body  # what was not forgotten is learned


def test_a_forget_during_a_night_step_waits_for_it_and_the_report_leaves_it_out(tmp_path: Path) -> None:
    home = _home(tmp_path, "I live in Lyon.", "I play the cello.")
    gate = tmp_path / "night"
    night = _harness(home, "sleep-wrote", str(home.root), str(gate))
    try:
        _wait_for(Path(f"{gate}.waiting"), night)  # the night has written what it learned of the day
        forget = _companion(home, "forget", "Lyon", "--yes")
        try:
            forget.wait(timeout=8)  # it waits for the night's step (or, without the lock, runs in the middle)
        except subprocess.TimeoutExpired:
            pass
    finally:
        Path(f"{gate}.go").touch()
    _finish(night)
    _finish(forget)
    assert _everywhere(home, "lyon") == []  # the night's report, written after the forget, leaves it out
    assert "Plays the cello" in LongTermStore(home).read("USER.md").body


def test_an_import_while_the_night_writes_keeps_what_the_night_learned(tmp_path: Path) -> None:
    home = _home(tmp_path, "I live in Lyon.")
    src = tmp_path / "export"
    src.mkdir()
    (src / "USER.md").write_text("# User\n\n## Profile\n- Plays the cello\n", encoding="utf-8")
    gate = tmp_path / "import"
    importer = _harness(home, "import", str(home.root), str(src), str(gate))
    try:
        _wait_for(Path(f"{gate}.waiting"), importer)  # the import has copied the memory and works on the copy
        night = _companion(home, "sleep", "--no-model")
        try:
            night.wait(timeout=8)  # it waits for the import (or, without the lock, finishes meanwhile)
        except subprocess.TimeoutExpired:
            pass
    finally:
        Path(f"{gate}.go").touch()
    _finish(importer)
    _finish(night)
    body = LongTermStore(home).read("USER.md").body
    assert "Plays the cello" in body  # what the import brought
    assert "Lives in Lyon" in body  # and what the night learned meanwhile: the cursor says the day is done
    _finish(_companion(home, "sleep", "--no-model"))  # a second night learns nothing twice
    assert LongTermStore(home).read("USER.md").body.count("Lives in Lyon") == 1


def test_forget_waits_for_an_import_and_then_erases_what_it_brought(tmp_path: Path) -> None:
    home = _home(tmp_path, "I play the cello.")
    src = tmp_path / "export"
    (src / "days" / "2024-01").mkdir(parents=True)
    (src / "USER.md").write_text("# User\n\n## Profile\n- Lives in Lyon\n", encoding="utf-8")
    gate = tmp_path / "import"
    importer = _harness(home, "import", str(home.root), str(src), str(gate))
    try:
        _wait_for(Path(f"{gate}.waiting"), importer)
        forget = _companion(home, "forget", "Lyon", "--yes")
        try:
            forget.wait(timeout=8)  # it waits for the import (or, without the lock, forgets too early)
        except subprocess.TimeoutExpired:
            pass
    finally:
        Path(f"{gate}.go").touch()
    _finish(importer)
    _finish(forget)
    assert "lyon" not in LongTermStore(home).read("USER.md").body.casefold()
