"""Desktop app numbers: event-loop stalls while a long reply streams, and cold start on a year of logs.

Run: QT_QPA_PLATFORM=offscreen .venv/bin/python bench/bench_ui.py
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import tempfile
import time
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

HEARTBEAT_MS = 10


def stall_while_streaming(tokens: int = 4000, delay: float = 0.0) -> dict[str, float]:
    """Max and p99 gap of a 10 ms heartbeat while the scripted backend streams at full speed."""
    from PySide6.QtCore import QElapsedTimer, QTimer
    from PySide6.QtWidgets import QApplication

    from companion.llm.scripted import ScriptedBackend
    from companion.memory.setup import ensure_home
    from companion.paths import Home
    from companion.settings import Settings
    from companion.ui.main_window import MainWindow

    app = QApplication.instance() or QApplication([])
    with tempfile.TemporaryDirectory() as folder:
        home = Home(Path(folder))
        ensure_home(home)
        settings = Settings()
        settings.model.max_reply_tokens = tokens + 10
        # varied text (a repeating one, even with changing numbers, is cut by the loop guard), with Markdown
        rng = random.Random(7)
        words = ("tea river garden lantern maple winter market violin harbor meadow pepper candle orbit silver "
                 "thunder basil pebble walnut comet fern cobalt saffron glacier").split()

        def sentence() -> str:
            return " ".join(rng.choice(words) for _ in range(8))

        reply = "".join(f"**{sentence()}**\n\n- {sentence()}\n- {sentence()}\n\n" for _ in range(tokens // 24 + 1))
        backend = ScriptedBackend([reply], n_ctx=32768, delay=delay)
        window = MainWindow(home, settings, autoload=False, extensions=())
        window.show()
        window.use_backend(backend)
        gaps: list[float] = []
        clock = QElapsedTimer()
        heartbeat = QTimer()
        heartbeat.setInterval(HEARTBEAT_MS)

        def beat() -> None:
            gaps.append(clock.restart())

        heartbeat.timeout.connect(beat)
        deadline = time.monotonic() + 120
        while window.backend is None and time.monotonic() < deadline:
            app.processEvents()
        clock.start()
        heartbeat.start()
        started = time.perf_counter()
        window.send("write a lot")
        app.processEvents()
        while (window.controller.busy or not gaps) and time.monotonic() < deadline:
            app.processEvents()
            time.sleep(0.001)
        elapsed = time.perf_counter() - started
        heartbeat.stop()
        shown_chars = len(window.chat.messages()[-1].text())
        window.shutdown()
        window.deleteLater()
        gaps.sort()
        stalls = [g - HEARTBEAT_MS for g in gaps]
        return {
            "tokens": tokens,
            "reply_chars_shown": shown_chars,
            "stream_seconds": round(elapsed, 2),
            "beats": len(gaps),
            "max_stall_ms": max(stalls),
            "p99_stall_ms": stalls[int(len(stalls) * 0.99) - 1],
        }


def _write_year(home_root: Path, days: int = 365, per_day: int = 20) -> None:
    from companion.memory.daylog import DayLog

    start = date.today() - timedelta(days=days)
    for offset in range(days):
        day = start + timedelta(days=offset)
        stamp = datetime(day.year, day.month, day.day, 12, tzinfo=timezone.utc)
        log = DayLog(home_root / "companion-memory" / "days", clock=lambda s=stamp: s)
        for i in range(per_day // 2):
            log.append("user", f"Message {i} of {day}: how is the weather 今天天气怎么样?")
            log.append("assistant", f"Reply {i}: it is **sunny** on {day}.\n\n- a list item\n- another one")


_CHILD = """
import sys, time
t0 = float(sys.argv[1])
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication
from companion.ui.app import apply_style
from companion.runtime import open_home
from companion.ui.main_window import MainWindow
app = QApplication([])
apply_style(app)
runtime = open_home(sys.argv[2])
window = MainWindow(runtime.home, runtime.settings, autoload=False, extensions=())
window.show()
def shown():
    print(time.time() - t0, flush=True)
    window.shutdown(); runtime.close(); app.quit()
QTimer.singleShot(0, shown)
app.exec()
"""


def cold_start(days: int = 365) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "home"
        _write_year(root, days)
        runs = []
        for _ in range(3):
            env = dict(os.environ, QT_QPA_PLATFORM=os.environ.get("QT_QPA_PLATFORM", "offscreen"))
            out = subprocess.run([sys.executable, "-c", _CHILD, repr(time.time()), str(root)],
                                 capture_output=True, text=True, env=env, check=True)
            runs.append(float(out.stdout.strip().splitlines()[-1]))
        return {"days": days, "best_seconds": round(min(runs), 3), "worst_seconds": round(max(runs), 3)}


if __name__ == "__main__":
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    print(json.dumps({"stream_stall_full_speed": stall_while_streaming()}, indent=1))
    print(json.dumps({"stream_stall_1000_tok_s": stall_while_streaming(delay=0.001)}, indent=1))
    print(json.dumps({"cold_start_365_days": cold_start()}, indent=1))
