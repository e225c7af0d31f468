"""Editor, chat tool, "remember" and the sleep job write one file at once: no write is lost; one app per home."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from companion.errors import AlreadyRunningError, ConflictError
from companion.memory.longterm import LongTermStore
from companion.paths import Home
from companion.runtime import open_home
from companion.curate.gate import MemoryWriter
from companion.memory.history import Actor

from test_crash_loop import run_harness

pytestmark = pytest.mark.reliability


def test_threads_racing_on_one_file_lose_no_write(tmp_path: Path) -> None:
    result = run_harness("race", "threads", str(tmp_path / "home"), "--iterations", "25", timeout=180)
    print(f"race threads: {result['details']}")
    assert result["violations"] == 0, result["problems"]
    assert result["details"]["lost writes"] == 0 and result["details"]["writes"] == 250


@pytest.mark.skipif(sys.platform == "win32", reason="forks writer processes")
def test_processes_racing_on_one_file_lose_no_write(tmp_path: Path) -> None:
    result = run_harness("race", "processes", str(tmp_path / "home"), "--iterations", "15", timeout=180)
    print(f"race processes: {result['details']}")
    assert result["violations"] == 0, result["problems"]
    assert result["details"]["lost writes"] == 0 and result["details"]["writes"] == 225


def test_the_loser_of_a_race_gets_a_conflict_error_and_nothing_changes(home: Home) -> None:
    editor, sleep = LongTermStore(home), LongTermStore(home)
    seen_by_editor = editor.read("MEMORY.md")
    MemoryWriter(sleep).append("MEMORY.md", "- from the sleep job (2026-11-29#2)", "## Facts", actor=Actor.SLEEP)
    after_sleep = home.long_term("MEMORY.md").read_bytes()
    with pytest.raises(ConflictError, match="changed since it was read"):
        MemoryWriter(editor).write("MEMORY.md", seen_by_editor.with_body("# Memory\n(editor's version)\n"), expected_sha=seen_by_editor.sha, actor=Actor.EDITOR)
    assert home.long_term("MEMORY.md").read_bytes() == after_sleep


HOLD = textwrap.dedent(
    """
    import sys, time
    from companion.runtime import open_home
    runtime = open_home(sys.argv[1])
    print("holding", flush=True)
    time.sleep(60)
    """
)


def test_a_second_instance_is_refused_and_a_killed_one_frees_the_home(home: Home) -> None:
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(home.root)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "holding"
        with pytest.raises(AlreadyRunningError, match=f"already running.*{holder.pid}"):
            open_home(home.root)
    finally:
        holder.kill()  # like a crash: no clean-up runs
        holder.wait()
        holder.stdout.close()
    with open_home(home.root) as runtime:  # a stale lock never locks the user out
        assert runtime.lock is not None


def test_the_real_sleep_job_racing_the_editor_loses_nothing(home: Home, clock) -> None:
    import threading

    from companion.memory.daylog import DayLog
    from companion.sleep.job import SleepJob

    log = DayLog(home.days, clock)
    for i in range(20):
        log.append("user", f"I decided to plant {i} tulip bulbs by the gate.")
        log.append("user", f"I like variety {i:03d} of apples.")
    clock.advance(days=1)
    stop = threading.Event()
    saved: list[str] = []
    conflicts: list[int] = []

    def editor() -> None:  # the memory pane saving as fast as it can, reloading on conflict
        store = LongTermStore(home)
        while not stop.is_set() or len(saved) < 4:
            for name in ("MEMORY.md", "USER.md"):
                line = f"- typed by the user {len(saved):05d}"
                doc = store.read(name)
                try:
                    MemoryWriter(store).write(name, doc.with_body(doc.body + line + "\n"), expected_sha=doc.sha, actor=Actor.EDITOR)
                    saved.append(line)
                except ConflictError:
                    conflicts.append(1)

    thread = threading.Thread(target=editor)
    thread.start()
    try:
        SleepJob(home, None, clock=clock).run()
    finally:
        stop.set()
        thread.join()
    store = LongTermStore(home)
    text = store.read("MEMORY.md").body + store.read("USER.md").body
    assert [line for line in saved if text.count(line) != 1] == []
    assert all(f"plant {i} tulip" in text and f"variety {i:03d}" in text for i in range(20))
