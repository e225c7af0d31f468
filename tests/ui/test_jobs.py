"""A background job that does not stop in time is kept alive, never destroyed while it runs."""

from __future__ import annotations

import threading

from PySide6.QtWidgets import QWidget

from companion.ui import jobs
from companion.ui.jobs import BackgroundJob


def test_a_job_stuck_past_its_wait_outlives_its_parent_and_is_reported(qtbot) -> None:
    release = threading.Event()
    started = threading.Event()
    owner = QWidget()

    def stuck(_report, _cancelled) -> str:  # ignores cancel, like a C call that cannot be interrupted
        started.set()
        release.wait(10)
        return "done"

    job = BackgroundJob(stuck, owner, name="stuck-probe", stop_wait_ms=100)
    job.start()
    assert started.wait(5)
    assert job.stop() is False and job.cancelled
    assert "stuck-probe" in jobs.still_running() and job.parent() is None
    owner.deleteLater()  # the owner goes (a closed window): the running thread must not go with it
    qtbot.wait(50)
    assert job.isRunning()
    release.set()
    assert job.wait(5000)
    assert "stuck-probe" not in jobs.still_running()
    jobs.exit_if_stuck(0)  # nothing stuck any more: returns instead of ending the process


def test_a_job_that_stops_in_time_is_not_kept() -> None:
    def polite(_report, cancelled) -> None:  # checks cancel, as a download does
        while not cancelled():
            threading.Event().wait(0.01)

    job = BackgroundJob(polite)
    job.start()
    assert job.stop(5000) is True
    assert job.parent() is None and not job.isRunning()
    assert all(thread is not job for thread, _keep in jobs._outliving)
