"""The processor and its memory: features the built-in llama.cpp needs, the cores this process may use, how busy
they are, and how much RAM there is."""

from __future__ import annotations

import ctypes
import logging
import os
import platform
import sys
import threading
import time
from collections import deque
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator

import psutil

log = logging.getLogger(__name__)

REQUIRED_X86_FEATURES = ("avx2", "fma", "f16c")
MIN_WINDOW_S = 0.25  # shorter load windows are too noisy: the last estimate is kept
BACKGROUND_NICE = 10
_PRIO_DARWIN_THREAD, _PRIO_DARWIN_BG = 3, 0x1000


def cpu_flags() -> set[str] | None:
    """The processor's feature flags (Linux only; None where they cannot be read)."""
    try:
        text = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    for line in text.splitlines():
        if line.startswith("flags"):
            return set(line.partition(":")[2].split())
    return None


def missing_cpu_features() -> list[str]:
    """Required features this x86-64 processor lacks (empty elsewhere or when unknown)."""
    if platform.machine().lower() not in ("x86_64", "amd64"):
        return []
    flags = cpu_flags()
    if flags is None:
        return []
    return [name.upper() for name in REQUIRED_X86_FEATURES if name not in flags]


def unsupported_cpu_message(missing: list[str]) -> str:
    return (
        f"This processor lacks {', '.join(missing)}, which Companion's built-in llama.cpp needs "
        "(Intel processors from 2013 and AMD from 2015 on have them). Use a model server instead "
        "(Settings > Model > On a model server)."
    )


def _allowed_logical_cpus() -> int | None:
    try:
        return len(psutil.Process().cpu_affinity())  # type: ignore[attr-defined]  # absent on macOS
    except (AttributeError, psutil.Error, OSError):
        return None


def physical_cores() -> int:
    """Physical cores this process may run on (hyper-threads share a core's arithmetic; llama.cpp gains nothing from them)."""
    logical = psutil.cpu_count(logical=True) or os.cpu_count() or 1
    physical = psutil.cpu_count(logical=False) or logical
    allowed = _allowed_logical_cpus() or logical
    per_core = max(1, logical // physical)
    return max(1, min(physical, -(-allowed // per_core)))


Sample = tuple[float, float, float]  # (monotonic seconds, CPU-seconds busy on all processors, CPU-seconds of this process)


def cpu_sample() -> Sample:
    times = psutil.cpu_times()
    idle = times.idle + getattr(times, "iowait", 0.0)
    # Linux counts guest time inside user/nice as well: do not count it twice.
    guest = getattr(times, "guest", 0.0) + getattr(times, "guest_nice", 0.0)
    own = psutil.Process().cpu_times()
    return time.monotonic(), sum(times) - guest - idle, own.user + own.system


class CpuLoad:
    """How many cores other programs keep busy lately (this process's own use left out).

    A sampler thread reads the OS's counters every `every_s` seconds (two small reads), so the
    estimate at any moment covers about the last `window_s` seconds; without it (`start()` not
    called) it covers the time since the previous call.
    """

    def __init__(self, *, window_s: float = 2.0, every_s: float = 0.5, sample: Callable[[], Sample] = cpu_sample) -> None:
        self._sample = sample
        self.every_s = every_s
        self._lock = threading.Lock()
        self._samples: deque[Sample] = deque([sample()], maxlen=max(2, int(window_s / every_s) + 1))
        self._others = 0.0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> "CpuLoad":
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="cpu-load", daemon=True)
            self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2)
            self._thread = None

    def _run(self) -> None:
        while not self._stop.wait(self.every_s):
            self._take()

    def _take(self) -> Sample | None:
        try:
            now = self._sample()
        except (psutil.Error, OSError) as exc:
            log.debug("CPU load unreadable: %s", exc)
            return None
        with self._lock:
            self._samples.append(now)
        return now

    def others_busy(self) -> float:
        """Cores' worth of work by other processes over the window (the last estimate while the window is too short)."""
        now = self._take()
        with self._lock:
            if now is None:
                return self._others
            base = next((s for s in self._samples if now[0] - s[0] >= MIN_WINDOW_S), None)
            if base is not None:
                wall = now[0] - base[0]
                self._others = max(0.0, ((now[1] - base[1]) - (now[2] - base[2])) / wall)
            return self._others


def free_threads(cores: int, others_busy: float) -> int:
    """Threads worth running on `cores` while other programs keep `others_busy` cores busy (at least one).

    llama.cpp's threads wait for each other after every operation: a thread that has to
    share its core with another program stalls all of them, so only free cores count.
    """
    return max(1, min(cores, int(cores - min(others_busy, cores) + 0.5)))


@contextmanager
def background_priority() -> Iterator[None]:
    """The calling thread runs below normal priority inside the block (everything else on the machine goes first).

    Restored afterwards where the system allows it; on Linux an unprivileged thread cannot raise its
    priority again, so there the thread stays low (background work runs on threads of its own).
    """
    restore = _lower_thread_priority()
    try:
        yield
    finally:
        if restore is not None:
            try:
                restore()
            except OSError as exc:
                log.debug("Thread priority not restored: %s", exc)


def _lower_thread_priority() -> Callable[[], None] | None:
    try:
        if sys.platform.startswith("linux"):
            tid = threading.get_native_id()
            before = os.getpriority(os.PRIO_PROCESS, tid)
            if before >= BACKGROUND_NICE:
                return None
            os.setpriority(os.PRIO_PROCESS, tid, BACKGROUND_NICE)  # Linux: PRIO_PROCESS with a TID is one thread
            return lambda: os.setpriority(os.PRIO_PROCESS, tid, before)
        if sys.platform == "darwin":
            os.setpriority(_PRIO_DARWIN_THREAD, 0, _PRIO_DARWIN_BG)
            return lambda: os.setpriority(_PRIO_DARWIN_THREAD, 0, 0)
        if sys.platform == "win32":
            kernel32 = ctypes.windll.kernel32  # type: ignore[attr-defined]
            kernel32.SetThreadPriority(kernel32.GetCurrentThread(), -1)  # THREAD_PRIORITY_BELOW_NORMAL
            return lambda: kernel32.SetThreadPriority(kernel32.GetCurrentThread(), 0)
    except (OSError, AttributeError) as exc:
        log.debug("Could not lower the thread priority: %s", exc)
    return None


def lower_process_priority() -> None:
    """Run this whole process below normal priority (the nightly job: it never competes with the desktop)."""
    try:
        process = psutil.Process()
        if sys.platform == "win32":
            process.nice(psutil.BELOW_NORMAL_PRIORITY_CLASS)  # type: ignore[attr-defined]
        else:
            process.nice(max(process.nice(), BACKGROUND_NICE))
    except (psutil.Error, OSError) as exc:
        log.debug("Could not lower the process priority: %s", exc)


def ram_bytes() -> tuple[int | None, int | None]:
    """(total, available) system RAM; None where it cannot be read."""
    try:
        memory = psutil.virtual_memory()
    except (psutil.Error, OSError):
        return None, None
    return memory.total, memory.available
