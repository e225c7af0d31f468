"""`companion sleep` from the command line: dry run, a real run, one date, a clear error when busy."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from companion.cli import main
from companion.memory.daylog import DayLog
from companion.filelock import ProcessLock
from companion.paths import Home


@pytest.fixture
def logged(home: Home) -> Home:
    now = [datetime(2024, 5, 13, 10, 0, tzinfo=timezone.utc)]
    log = DayLog(home.days, lambda: now[0])
    for text in ("I'm allergic to shellfish.", "I have a dentist appointment tomorrow."):
        log.append("user", text)
        now[0] += timedelta(minutes=1)
    now[0] = datetime(2024, 5, 14, 10, 0, tzinfo=timezone.utc)
    log.append("user", "My sister is called Lea.")
    return home


def test_dry_run_prints_and_writes_nothing(logged: Home, capsys: pytest.CaptureFixture[str]) -> None:
    before = (logged.memory / "USER.md").read_text(encoding="utf-8")
    assert main(["sleep", "--dry-run", "--no-model"]) == 0
    out = capsys.readouterr().out
    assert "Dry run: nothing was written" in out and "added: Allergic to shellfish [2024-05-13#1]" in out
    assert (logged.memory / "USER.md").read_text(encoding="utf-8") == before
    assert not (logged.state / "sleep_cursor.json").exists()


def test_one_date_then_the_rest(logged: Home, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sleep", "--date", "2024-05-13", "--no-model"]) == 0
    user = (logged.memory / "USER.md").read_text(encoding="utf-8")
    assert "Allergic to shellfish" in user and "Sister" not in user
    capsys.readouterr()
    assert main(["sleep", "--no-model"]) == 0
    assert "Sister: Lea (2024-05-14#1)" in (logged.memory / "USER.md").read_text(encoding="utf-8")
    assert main(["sleep", "--no-model"]) == 0
    assert "nothing new to learn" in capsys.readouterr().out.splitlines()[-1]


def test_bad_date_and_busy_lock(logged: Home, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["sleep", "--date", "yesterday"])
    assert "is not a date like" in capsys.readouterr().err
    lock = ProcessLock(logged.state / "sleep.lock")
    assert lock.acquire()
    try:
        assert main(["sleep", "--no-model"]) == 1
        assert "already running" in capsys.readouterr().err
    finally:
        lock.release()


def test_beside_the_running_app_it_refuses_to_load_a_second_model(logged: Home, capsys: pytest.CaptureFixture[str]) -> None:
    import subprocess
    import sys

    holder = subprocess.Popen(  # the app, or `companion chat`: it holds the home and its model
        [sys.executable, "-c", "import sys; from companion.runtime import open_home\n"
         "with open_home(sys.argv[1]):\n    print('ready', flush=True); sys.stdin.read()", str(logged.root)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "ready"
        before = (logged.memory / "USER.md").read_text(encoding="utf-8")
        assert main(["sleep"]) == 1
        err = capsys.readouterr().err
        assert f"process {holder.pid}" in err and "owns the model" in err and "--no-model" in err
        assert (logged.memory / "USER.md").read_text(encoding="utf-8") == before  # nothing done, nothing loaded
        assert main(["sleep", "--no-model"]) == 0  # rules only need no model: that may run beside the app
        assert "Allergic to shellfish" in (logged.memory / "USER.md").read_text(encoding="utf-8")
    finally:
        holder.communicate("", timeout=30)
    from companion.runtime import running_instance

    assert running_instance(logged) is None  # the app closed: the night may load its own model again
