"""Quitting while the model thread and the machine probe are stuck in work no cancel reaches (a slow
load, a long prompt in llama.cpp) ends a real process cleanly: exit code 0, no Qt abort, state saved."""

from __future__ import annotations

import json
import signal
import sys
import time
from pathlib import Path

import pytest

from companion.paths import Home
from tests.reliability.test_signals import Process

pytestmark = [pytest.mark.reliability, pytest.mark.slow]
ROOT = Path(__file__).resolve().parents[2]

# The real app entry (companion.ui.app.run) with a window whose model is stuck in a reply and whose
# machine probe (the real model offer code) is stuck too; each ignores cancel for 60 seconds.
CHILD = r'''
import argparse, sys, time
from PySide6.QtCore import QTimer
from companion.llm.scripted import ScriptedBackend
from companion.ui import app, main_window, model_offer, worker

model_offer.PROBE_WAIT_MS = worker.QUIT_WAIT_MS = 500

class Stuck(ScriptedBackend):
    def stream_chat(self, messages, options):
        print("REPLYING", flush=True)
        time.sleep(60)  # a prompt evaluation that no cancel reaches
        yield from super().stream_chat(messages, options)

def probe(_offload):
    print("PROBING", flush=True)
    time.sleep(60)
    raise RuntimeError("never reached")

Real = main_window.MainWindow

class Window(Real):
    def __init__(self, home, settings, **kwargs):
        kwargs.update(autoload=False, extensions=())
        super().__init__(home, settings, **kwargs)
        self.resize(700, 500)
        model_offer.install(self, detect=probe, measure=lambda _caps: None)
        self.backend_changed.connect(lambda backend: backend and QTimer.singleShot(50, lambda: self.send("stuck question")))
        self.use_backend(Stuck())

main_window.MainWindow = Window
sys.exit(app.run(argparse.Namespace(home=sys.argv[1])))
'''


def test_quitting_while_both_threads_are_stuck_exits_cleanly_and_keeps_everything(tmp_path: Path) -> None:
    home = tmp_path / "home"
    script = tmp_path / "child.py"
    script.write_text(CHILD, encoding="utf-8")
    child = Process([sys.executable, str(script), str(home)], home, env={"QT_QPA_PLATFORM": "offscreen"})
    try:
        child.wait_for("PROBING", timeout=60)
        child.wait_for("REPLYING", timeout=60)
        started = time.monotonic()
        child.popen.send_signal(signal.SIGTERM)  # quits through quit_app, the same path as File > Quit
        code = child.finish(timeout=30)
    finally:
        if child.popen.poll() is None:
            child.popen.kill()
    took = time.monotonic() - started
    output = "".join(child.seen) + "".join(iter_rest(child))
    assert code == 0, output[-3000:]
    assert "Destroyed while thread" not in output and "Aborted" not in output, output[-3000:]
    assert took < 20  # bounded waits, not the 60 seconds the work would take
    assert json.loads((Home(home).state / "window.json").read_text(encoding="utf-8"))["geometry"]
    logged = [json.loads(line) for day in Home(home).days.rglob("*.jsonl") for line in day.read_text("utf-8").splitlines()]
    assert any(record.get("text") == "stuck question" for record in logged)


def iter_rest(child: Process) -> list[str]:
    lines: list[str] = []
    while not child.lines.empty():
        lines.append(child.lines.get_nowait())
    return lines
