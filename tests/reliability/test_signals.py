"""SIGTERM and SIGINT at any moment (loading, replying, sleeping, waiting) end a real process cleanly:
exit code 0, the model closed, every file still valid."""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from companion.memory.daylog import DayLog
from companion.memory.longterm import LongTermStore
from companion.memory.setup import ensure_home
from companion.paths import Home

pytestmark = [pytest.mark.reliability, pytest.mark.model]
ROOT = Path(__file__).resolve().parents[2]
TIMEOUT = 150


class Process:
    """A child process whose output lines arrive on a queue (so a test can wait for a marker)."""

    def __init__(self, args: list[str], home: Path, env: dict[str, str] | None = None) -> None:
        full_env = {**os.environ, "COMPANION_HOME": str(home), "PYTHONPATH": str(ROOT), **(env or {})}
        self.popen = subprocess.Popen(
            args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=full_env, cwd=ROOT
        )
        self.lines: queue.Queue[str] = queue.Queue()
        self.seen: list[str] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.popen.stdout is not None
        buffer = b""
        while True:
            chunk = self.popen.stdout.read1(4096)  # type: ignore[attr-defined]
            if not chunk:
                break
            buffer += chunk
            *whole, buffer = buffer.split(b"\n")
            for line in whole:
                self.lines.put(line.decode("utf-8", "replace"))
            if buffer:  # a prompt without a newline ("companion> ...") counts too
                self.lines.put(buffer.decode("utf-8", "replace"))
                buffer = b""

    def wait_for(self, marker: str, timeout: float = TIMEOUT) -> None:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            try:
                line = self.lines.get(timeout=0.5)
            except queue.Empty:
                if self.popen.poll() is not None:
                    break
                continue
            self.seen.append(line)
            if marker in line:
                return
        raise AssertionError(f"never saw {marker!r}; output: {''.join(self.seen)[-2000:]}")

    def send(self, text: str) -> None:
        assert self.popen.stdin is not None
        self.popen.stdin.write(text.encode("utf-8"))
        self.popen.stdin.flush()

    def finish(self, timeout: float = TIMEOUT) -> int:
        try:
            code = self.popen.wait(timeout)
        finally:
            if self.popen.poll() is None:
                self.popen.kill()
                self.popen.wait()
            self._reader.join(10)
            for pipe in (self.popen.stdin, self.popen.stdout):
                if pipe is not None:
                    try:
                        pipe.close()
                    except BrokenPipeError:
                        pass
        while not self.lines.empty():
            self.seen.append(self.lines.get())
        return code


@pytest.fixture(autouse=True)
def _no_stray_processes(monkeypatch: pytest.MonkeyPatch):
    """A test that fails half-way still kills what it started."""
    started: list[Process] = []
    original = Process.__init__

    def init(self: Process, *args: object, **kwargs: object) -> None:
        original(self, *args, **kwargs)  # type: ignore[arg-type]
        started.append(self)

    monkeypatch.setattr(Process, "__init__", init)
    yield
    for process in started:
        if process.popen.poll() is None:
            process.popen.kill()
        process.finish(30)


def _home(tmp_path: Path, reply_tokens: int) -> Home:
    home = Home(tmp_path / "home")
    ensure_home(home)
    home.settings_file.parent.mkdir(parents=True, exist_ok=True)
    home.settings_file.write_text(f"[model]\nmax_reply_tokens = {reply_tokens}\nn_ctx = 2048\n", encoding="utf-8")
    return home


def _files_are_valid(home: Home) -> list:
    """Every day log line parses, every long-term file parses, state JSON parses. Returns the records."""
    records = []
    for path in sorted(home.days.rglob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            records.append(json.loads(line))
    store = LongTermStore(home)
    for name in ("SOUL.md", "USER.md", "MEMORY.md"):
        store.read(name)
    for path in home.state.glob("*.json"):
        json.loads(path.read_text(encoding="utf-8"))
    crash = home.state / "crash.log"
    assert not crash.exists() or not crash.read_text(encoding="utf-8").strip(), crash.read_text(encoding="utf-8")
    return records


# -- companion chat -------------------------------------------------------------


def _chat(home: Home) -> Process:
    return Process([sys.executable, "-m", "companion", "chat"], home.root)


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_chat_signal_while_loading_exits_cleanly(tmp_path: Path, signum: int) -> None:
    home = _home(tmp_path, 16)
    chat = _chat(home)
    chat.wait_for("Loading the model")
    chat.popen.send_signal(signum)
    assert chat.finish() == 0, "".join(chat.seen)
    _files_are_valid(home)


def test_chat_sigterm_mid_reply_logs_the_partial_reply_and_exits(tmp_path: Path) -> None:
    home = _home(tmp_path, 400)
    chat = _chat(home)
    chat.wait_for("/quit to exit")
    chat.send("Write a long story about a lighthouse keeper and his cat, with many chapters.\n")
    chat.wait_for("companion> ")
    chat.wait_for("")  # the first piece of the reply
    chat.popen.send_signal(signal.SIGTERM)
    assert chat.finish() == 0, "".join(chat.seen)
    records = _files_are_valid(home)
    replies = [r for r in records if r["role"] == "assistant"]
    assert len(replies) == 1 and replies[0].get("tokens", 0) < 400
    assert replies[0].get("cancelled") is True or replies[0]["tokens"] > 0


def test_chat_sigint_mid_reply_stops_only_the_reply(tmp_path: Path) -> None:
    home = _home(tmp_path, 400)
    chat = _chat(home)
    chat.wait_for("/quit to exit")
    chat.send("Write a long story about a lighthouse keeper and his cat, with many chapters.\n")
    chat.wait_for("companion> ")
    chat.wait_for("")
    chat.popen.send_signal(signal.SIGINT)
    chat.wait_for("[stopped]")
    chat.send("/quit\n")
    assert chat.finish() == 0, "".join(chat.seen)
    replies = [r for r in _files_are_valid(home) if r["role"] == "assistant"]
    assert replies and replies[-1].get("cancelled") is True


def test_chat_sigterm_while_waiting_for_input_exits(tmp_path: Path) -> None:
    home = _home(tmp_path, 8)
    chat = _chat(home)
    chat.wait_for("/quit to exit")
    chat.send("Hello!\n")
    chat.wait_for("companion> ")
    time.sleep(1.0)  # the reply ends; learning and the warm-up may still run
    chat.popen.send_signal(signal.SIGTERM)
    assert chat.finish() == 0, "".join(chat.seen)
    assert [r["role"] for r in _files_are_valid(home) if r["role"] != "event"][:1] == ["user"]


# -- the app ----------------------------------------------------------------------

DRIVER = """
import argparse, sys
from companion.ui import app
from companion.ui.main_window import MainWindow

state = sys.argv[1]
original = MainWindow.__init__

def init(self, *args, **kwargs):
    original(self, *args, **kwargs)
    say = lambda text: print(text, flush=True)
    worker = self.controller.worker
    worker.deltas.connect(lambda _text: say("streaming"))
    ready = set()

    def act():
        if ready != {"started", "loaded"}:
            return
        if state == "reply":
            self.send("Write a long story about a lighthouse keeper and his cat, with many chapters.")
        elif state == "sleep":
            self.sleep_controller.run_now()

    def started():  # the feature modules come after the window's first frame
        self.sleep_controller.started.connect(lambda: say("sleeping"))
        ready.add("started")
        act()

    def loaded(_backend):
        say("loaded")
        ready.add("loaded")
        act()
    self.started.connect(started)
    worker.loaded.connect(loaded)

MainWindow.__init__ = init
original_reload = MainWindow.reload_model


def reload_model(self, *args, **kwargs):  # after the first frame: the load goes to the model thread
    result = original_reload(self, *args, **kwargs)
    print("loading", flush=True)
    return result


MainWindow.reload_model = reload_model
sys.exit(app.run(argparse.Namespace(home=None)))
"""


def _seed_days(home: Home, days: int) -> None:
    from datetime import datetime, timedelta, timezone

    start = datetime(2024, 3, 1, 10, 0, tzinfo=timezone.utc)
    for day in range(days):
        when = [start + timedelta(days=day)]
        log = DayLog(home.days, lambda: when[0])
        for n in range(12):
            log.append("user", f"I went hiking near lake {day}-{n} with my sister Anna, and I like green tea.")
            log.append("assistant", "That sounds lovely.")
            when[0] += timedelta(minutes=3)


@pytest.mark.parametrize("state,marker", [("load", "loading"), ("reply", "streaming"), ("sleep", "sleeping")])
def test_app_sigterm_at_any_moment_exits_cleanly(tmp_path: Path, state: str, marker: str) -> None:
    home = _home(tmp_path, 400)
    if state == "sleep":
        _seed_days(home, 20)
    app = Process([sys.executable, "-c", DRIVER, state], home.root, env={"QT_QPA_PLATFORM": "offscreen"})
    app.wait_for(marker)
    app.popen.send_signal(signal.SIGTERM)
    assert app.finish() == 0, "".join(app.seen)[-3000:]
    records = _files_are_valid(home)
    if state == "reply":
        assert [r for r in records if r["role"] == "assistant" and r.get("cancelled")]


def test_app_sigint_while_replying_exits_cleanly(tmp_path: Path) -> None:
    home = _home(tmp_path, 400)
    app = Process([sys.executable, "-c", DRIVER, "reply"], home.root, env={"QT_QPA_PLATFORM": "offscreen"})
    app.wait_for("streaming")
    app.popen.send_signal(signal.SIGINT)
    assert app.finish() == 0, "".join(app.seen)[-3000:]
    _files_are_valid(home)
