"""Desktop app numbers: event-loop stalls while a long reply streams, and a year of history (365 days of
30 turns): start to window (through the app's own start path, to the newest message painted; then how long
the work that waits for the first frame takes, and the longest input waits in the 3 s after it), find to the first
match, the longest frame while scrolling, resident memory.

Run: QT_QPA_PLATFORM=offscreen .venv/bin/python bench/bench_ui.py   (--year: only the year of history)
Targets: find < 200 ms to the first match, no scroll frame > 50 ms, RSS < 600 MB, start to window < 1.5 s.
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


def _write_year(home_root: Path, days: int = 365, per_day: int = 30) -> None:
    """Day logs as the app writes them, a line per record (written per day: appending 10,950 records
    one fsync at a time would take minutes and measure nothing of the window)."""
    start = date.today() - timedelta(days=days)
    rng = random.Random(11)
    words = "tea river garden lantern maple winter market violin harbor meadow pepper candle orbit".split()
    for offset in range(days):
        day = start + timedelta(days=offset)
        lines = []
        for i in range(per_day):
            ts = datetime(day.year, day.month, day.day, 8, 0, tzinfo=timezone.utc) + timedelta(minutes=3 * i)
            topic = " ".join(rng.choice(words) for _ in range(6))
            if i % 2 == 0:
                role, text = "user", f"Message {i // 2} of {day}: {topic}. How is the weather 今天天气怎么样?"
            else:
                role, text = "assistant", (f"Reply {i // 2}: it is **sunny** on {day}, {topic}.\n\n- a list item\n"
                                           "- another one" + ("\n\n```python\nprint('hello')\n```" if i % 10 == 1 else ""))
            lines.append(json.dumps({"id": f"{day.isoformat()}#{i + 1}", "ts": ts.isoformat(timespec="milliseconds"),
                                     "role": role, "text": text}, ensure_ascii=False))
        path = home_root / "companion-memory" / "days" / f"{day:%Y-%m}" / f"{day.isoformat()}.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def year_of_history(root: Path, days: int = 365) -> dict[str, float]:
    """In this process (run it in a fresh one): the window on a year of history; find a message 290
    days back through the index; scroll up a few weeks notch by notch; resident memory after that."""
    import psutil
    from PySide6.QtCore import QElapsedTimer
    from PySide6.QtWidgets import QApplication

    from companion.runtime import open_home
    from companion.ui.app import apply_style
    from companion.ui.main_window import MainWindow

    app = QApplication.instance() or QApplication([])
    apply_style(app)
    runtime = open_home(str(root))
    window = MainWindow(runtime.home, runtime.settings, autoload=False, extensions=())
    window.resize(1180, 760)
    window.show()
    for _ in range(20):
        app.processEvents()
    built = time.perf_counter()
    window.session.agent.recall.index.sync()  # the index is kept in step as the days are written
    index_seconds = time.perf_counter() - built
    target = date.today() - timedelta(days=290)
    window.open_find()

    def settle() -> None:
        deadline = time.monotonic() + 30
        while window.chat.paging() and time.monotonic() < deadline:
            app.processEvents()

    def find(text: str) -> tuple[float, float, object]:
        """From Enter to the match painted on screen (the rest of its day pages in afterwards)."""
        window.chat.load_recent()
        settle()
        window.find_edit.setText("")
        window.find_edit.setText(text)
        app.processEvents()
        wall, cpu = time.perf_counter(), time.process_time()
        found = window.find_step()
        window.chat.viewport().repaint()
        return (time.perf_counter() - wall) * 1000, (time.process_time() - cpu) * 1000, found

    runs = [find(f"Message 7 of {target}") for _ in range(5)]
    found = runs[-1][2]
    assert found is not None and found.text().startswith(f"Message 7 of {target}"), "find missed"
    common = [find("sunny") for _ in range(5)]  # a word in half of all turns
    count = window.find_status.text()
    find_ms = sorted(r[0] for r in runs)[2]
    find_cpu_ms = sorted(r[1] for r in runs)[2]
    common_ms = sorted(r[0] for r in common)[2]
    window.chat.load_recent()
    settle()
    cpu = time.process_time()
    frames = _scroll_frames(app, window.chat, seconds=SCROLL_SECONDS)
    scroll_cpu = time.process_time() - cpu
    days_up = (date.today() - window.chat.loaded_days()[0]).days
    blank = sum(1 for m in window.chat.messages() if not m.visibleRegion().isEmpty()) == 0
    rss = psutil.Process().memory_info().rss / 2**20
    widgets = len(window.chat.messages())
    window.shutdown()
    runtime.close()
    frames.sort()
    return {
        "days": days, "turns": days * 30, "index_build_seconds": round(index_seconds, 2),
        "find_290_days_back_ms_median_of_5": round(find_ms), "find_290_days_back_cpu_ms": round(find_cpu_ms),
        "find_common_word_ms_median_of_5": round(common_ms), "find_common_word_status": count,
        "scroll_seconds": SCROLL_SECONDS, "scroll_cpu_seconds": round(scroll_cpu, 2), "scrolled_back_days": days_up, "max_frame_ms": frames[-1],
        "p99_frame_ms": frames[int(len(frames) * 0.99) - 1], "frames": len(frames),
        "frames_over_50ms": sum(1 for f in frames if f > 50), "blank_at_end": blank,
        "messages_with_widgets": widgets, "rss_mb": round(rss), "load_average": round(os.getloadavg()[0], 1),
    }


SCROLL_SECONDS = 12
WHEEL_MS = 16  # a wheel notch every frame at 60 Hz: a fast, steady scroll up
NOTCH_PX = 120


def _scroll_frames(app: object, chat: object, seconds: float) -> list[float]:
    """Scroll up a notch every WHEEL_MS for `seconds`; the gaps of a 5 ms heartbeat, less its period,
    are how long each frame kept the window from answering (layout, paging, painting)."""
    from PySide6.QtCore import QElapsedTimer, QTimer

    bar = chat.verticalScrollBar()  # type: ignore[attr-defined]
    gaps: list[float] = []
    clock = QElapsedTimer()
    heartbeat, wheel = QTimer(), QTimer()
    heartbeat.setInterval(5)
    wheel.setInterval(WHEEL_MS)
    heartbeat.timeout.connect(lambda: gaps.append(max(0, clock.restart() - 5)))
    wheel.timeout.connect(lambda: bar.setValue(max(bar.minimum(), bar.value() - NOTCH_PX)))
    clock.start()
    heartbeat.start()
    wheel.start()
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        app.processEvents()  # type: ignore[attr-defined]
        time.sleep(0.0005)
    heartbeat.stop()
    wheel.stop()
    return sorted(gaps)


def year_in_child(days: int = 365) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "home"
        _write_year(root, days)
        env = dict(os.environ, QT_QPA_PLATFORM=os.environ.get("QT_QPA_PLATFORM", "offscreen"),
                   PYTHONPATH=str(Path(__file__).resolve().parents[1]))  # this checkout's companion
        out = subprocess.run([sys.executable, __file__, "--year-child", str(root)], capture_output=True, text=True,
                             env=env)
        if out.returncode != 0:
            raise RuntimeError(out.stderr[-4000:])
        return json.loads(out.stdout.strip().splitlines()[-1])


_CHILD = """
import sys, time
t0 = float(sys.argv[1])
from PySide6.QtCore import QElapsedTimer, QEvent, QObject, QTimer
from PySide6.QtWidgets import QApplication
from companion.ui.app import apply_style, open_window
from companion.runtime import open_home
app = QApplication([])
apply_style(app)
runtime = open_home(sys.argv[2])
window = open_window(runtime, autoload=False)  # the app's own start path, less the model
newest = window.chat.messages()[-1]
assert newest.record_id == window.daylog.read_day(window.daylog.days()[-1]).records[-1].id, "not the newest"
shown_at: list[float] = []
gaps: list[int] = []
clock = QElapsedTimer()
heartbeat = QTimer()
heartbeat.setInterval(5)
heartbeat.timeout.connect(lambda: gaps.append(max(0, clock.restart() - 5)))

class FirstPaint(QObject):
    def eventFilter(self, watched, event):
        if event.type() == QEvent.Type.Paint and not shown_at:
            shown_at.append(time.time() - t0)  # the window is up with the newest message painted
            shown_at.append(time.process_time())
            clock.start()
            heartbeat.start()  # how long the work after the first frame keeps input waiting
        return False

watcher = FirstPaint()
newest.installEventFilter(watcher)

ready_at: list[float] = []

def check():
    # input is watched for the first 3 s after the first frame (or until all has started, if later)
    if ready_at and time.time() - t0 >= shown_at[0] + 3.0:
        heartbeat.stop()
        print(shown_at[0], shown_at[1], ready_at[0], max(gaps, default=0), flush=True)
        window.shutdown(); runtime.close(); app.quit()
    else:
        QTimer.singleShot(50, check)

window.started.connect(lambda: (ready_at.append(time.time() - t0), QTimer.singleShot(0, check)))
app.exec()
"""


def cold_start(days: int = 365, runs_wanted: int = 3) -> dict[str, float]:
    """Start to window: from launching the process to the window on screen with the newest message
    painted (first run: a home never opened; the others: its index and state as the first left them)."""
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "home"
        _write_year(root, days)
        runs, cpu, ready, stall = [], [], [], []
        for _ in range(runs_wanted):
            env = dict(os.environ, QT_QPA_PLATFORM=os.environ.get("QT_QPA_PLATFORM", "offscreen"),
                       PYTHONPATH=str(Path(__file__).resolve().parents[1]))  # this checkout's companion
            out = subprocess.run([sys.executable, "-c", _CHILD, repr(time.time()), str(root)],
                                 capture_output=True, text=True, env=env, check=True)
            wall, used, done, gap = out.stdout.strip().splitlines()[-1].split()
            runs.append(float(wall))
            cpu.append(float(used))
            ready.append(float(done))
            stall.append(float(gap))
        return {"days": days, "runs": runs_wanted, "best_seconds": round(min(runs), 3),
                "worst_seconds": round(max(runs), 3), "best_cpu_seconds": round(min(cpu), 3),
                "worst_cpu_seconds": round(max(cpu), 3), "all_started_best_seconds": round(min(ready), 3),
                "max_stall_3s_after_first_frame_ms": max(stall), "load_average": round(os.getloadavg()[0], 1)}


if __name__ == "__main__":
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    if sys.argv[1:2] == ["--year-child"]:
        print(json.dumps(year_of_history(Path(sys.argv[2]))))
        sys.exit(0)
    if sys.argv[1:2] != ["--year"]:
        print(json.dumps({"stream_stall_full_speed": stall_while_streaming()}, indent=1))
        print(json.dumps({"stream_stall_1000_tok_s": stall_while_streaming(delay=0.001)}, indent=1))
    print(json.dumps({"cold_start_365_days": cold_start()}, indent=1))
    print(json.dumps({"year_of_history": year_in_child()}, indent=1))
