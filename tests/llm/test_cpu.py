"""Cores this process may use, how busy other programs keep them, and background thread priority."""

from __future__ import annotations

import os
import sys
import threading

import psutil
import pytest

from companion.llm import cpu
from companion.llm.cpu import CpuLoad, background_priority, free_threads, physical_cores


def test_physical_cores_counts_cores_not_hyperthreads(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(psutil, "cpu_count", lambda logical=True: 4 if logical else 2)  # 2 cores, 4 threads
    monkeypatch.setattr(cpu, "_allowed_logical_cpus", lambda: 4)
    assert physical_cores() == 2
    monkeypatch.setattr(cpu, "_allowed_logical_cpus", lambda: 2)  # affinity: one core's two threads
    assert physical_cores() == 1
    monkeypatch.setattr(psutil, "cpu_count", lambda logical=True: None if not logical else 8)  # unknown: logical
    monkeypatch.setattr(cpu, "_allowed_logical_cpus", lambda: None)
    assert physical_cores() == 8


def test_physical_cores_on_this_machine() -> None:
    assert 1 <= physical_cores() <= (os.cpu_count() or 1)


@pytest.mark.parametrize(
    ("cores", "others", "threads"),
    [(2, 0.0, 2), (2, 0.3, 2), (2, 0.6, 1), (2, 1.0, 1), (2, 2.0, 1), (2, 9.0, 1), (8, 2.0, 6), (8, 2.6, 5), (1, 0.0, 1)],
)
def test_free_threads_takes_only_free_cores(cores: int, others: float, threads: int) -> None:
    assert free_threads(cores, others) == threads


class FakeCounters:
    """A clock and CPU counters that advance by hand: `busy` cores of other programs plus `own` cores of ours."""

    def __init__(self) -> None:
        self.t = self.busy = self.own = 0.0

    def run(self, seconds: float, others: float, own: float = 0.0) -> None:
        self.t += seconds
        self.busy += (others + own) * seconds
        self.own += own * seconds

    def __call__(self) -> tuple[float, float, float]:
        return self.t, self.busy, self.own


def test_load_counts_other_programs_not_this_one() -> None:
    counters = FakeCounters()
    load = CpuLoad(sample=counters, window_s=2.0, every_s=0.5)
    counters.run(0.1, others=2.0)
    assert load.others_busy() == 0.0  # too short to judge yet
    counters.run(0.9, others=1.5, own=2.0)
    assert load.others_busy() == pytest.approx((0.2 + 1.35) / 1.0)


def test_load_follows_the_last_seconds_when_sampled() -> None:
    counters = FakeCounters()
    load = CpuLoad(sample=counters, window_s=2.0, every_s=0.5)
    for _ in range(20):  # ten busy seconds, sampled every half second (what the sampler thread does)
        counters.run(0.5, others=2.0)
        load._take()
    for _ in range(6):  # then three quiet seconds
        counters.run(0.5, others=0.0)
        load._take()
    assert load.others_busy() == pytest.approx(0.0)  # the busy past has left the window


def test_sampler_thread_starts_and_stops() -> None:
    load = CpuLoad(every_s=0.01).start()
    assert load._thread is not None and load._thread.is_alive()
    thread = load._thread
    load.stop()
    assert not thread.is_alive()
    assert load.others_busy() >= 0.0


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="per-thread nice values are Linux's")
def test_background_priority_lowers_only_the_calling_thread() -> None:
    seen: dict[str, int] = {}

    def work() -> None:
        tid = threading.get_native_id()
        seen["before"] = os.getpriority(os.PRIO_PROCESS, tid)
        with background_priority():
            seen["inside"] = os.getpriority(os.PRIO_PROCESS, tid)
            seen["main"] = os.getpriority(os.PRIO_PROCESS, main_tid)
        seen["after"] = os.getpriority(os.PRIO_PROCESS, tid)

    main_tid = threading.get_native_id()
    main_before = os.getpriority(os.PRIO_PROCESS, main_tid)
    thread = threading.Thread(target=work)
    thread.start()
    thread.join()
    assert seen["inside"] >= cpu.BACKGROUND_NICE and seen["main"] == main_before
    # Raising it back needs privileges; without them the (background-only) thread stays low.
    assert seen["after"] == seen["before"] if os.geteuid() == 0 else seen["after"] >= cpu.BACKGROUND_NICE
