"""Opening a home: first start, the one-instance lock, settings."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from companion.errors import AlreadyRunningError, SettingsError
from companion.paths import resolve_home
from companion.runtime import open_home
from companion.settings import Settings, load_settings, save_settings


def test_first_start_creates_a_valid_skill_folder(tmp_path):
    with open_home(tmp_path / "h") as runtime:
        memory = runtime.home.memory
        assert memory.name == "companion-memory"
        for name in ("SKILL.md", "SOUL.md", "USER.md", "MEMORY.md"):
            assert (memory / name).is_file()
        skill = (memory / "SKILL.md").read_text(encoding="utf-8")
        assert "name: companion-memory" in skill and "description:" in skill
        assert runtime.home.state.is_dir() and runtime.home.models.is_dir()


def test_existing_files_are_never_overwritten(tmp_path):
    with open_home(tmp_path / "h") as runtime:
        (runtime.home.memory / "USER.md").write_text("# mine\n", encoding="utf-8")
    with open_home(tmp_path / "h") as runtime:
        assert (runtime.home.memory / "USER.md").read_text(encoding="utf-8") == "# mine\n"


def test_second_process_on_the_same_home_is_refused(tmp_path):
    home = tmp_path / "h"
    script = textwrap.dedent(f"""
        from companion.runtime import open_home
        from companion.errors import AlreadyRunningError
        try:
            open_home({str(home)!r})
        except AlreadyRunningError as exc:
            print("REFUSED", exc)
    """)
    with open_home(home):
        out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert "REFUSED" in out.stdout and "already running" in out.stdout
    with open_home(home):  # released: opens again
        pass


def test_same_process_second_open_is_refused_too(tmp_path):
    with open_home(tmp_path / "h"):
        with pytest.raises(AlreadyRunningError):
            open_home(tmp_path / "h")


def test_companion_home_env_overrides(monkeypatch, tmp_path):
    monkeypatch.setenv("COMPANION_HOME", str(tmp_path / "x"))
    assert resolve_home().root == (tmp_path / "x").resolve()
    assert resolve_home(tmp_path / "y").root == (tmp_path / "y").resolve()


def test_settings_round_trip_and_errors(tmp_path):
    path = tmp_path / "settings.toml"
    settings = Settings()
    settings.model.path = 'C:\\models\\a "b".gguf'
    settings.model.n_gpu_layers = -1
    settings.sleep.time = "02:30"
    settings.extra = {"future": {"x": 1}}
    save_settings(path, settings)
    loaded = load_settings(path)
    assert loaded.model.path == settings.model.path and loaded.model.n_gpu_layers == -1
    assert loaded.sleep.time == "02:30" and loaded.extra == {"future": {"x": 1}}
    path.write_text("[model\nbroken", encoding="utf-8")
    with pytest.raises(SettingsError, match="not valid TOML"):
        load_settings(path)


def test_everything_created_is_private_to_the_user(tmp_path):
    import os
    import stat

    os.umask(0o022)
    with open_home(tmp_path / "h") as runtime:
        made = runtime.home.root / "made-later"
        made.mkdir()
        (made / "f").write_text("x")
        for path in (runtime.home.root, runtime.home.memory, runtime.home.state, made):
            assert stat.S_IMODE(path.stat().st_mode) == 0o700, path
        assert stat.S_IMODE((made / "f").stat().st_mode) == 0o600


def test_temp_files_of_a_running_writer_survive_a_second_process(tmp_path):
    import os

    with open_home(tmp_path / "h") as runtime:
        memory = runtime.home.memory
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
        in_use = memory / f".tmp-USER.md.{child.pid}.abc"  # another process is writing USER.md right now
        ours = memory / f".tmp-MEMORY.md.{os.getpid()}.def"  # this process's own writer thread
        stale = memory / f".tmp-SOUL.md.{int(dead.stdout)}.ghi"  # a writer that was killed
        for path in (in_use, ours, stale):
            path.write_text("half")
        with open_home(tmp_path / "h", exclusive=False):  # e.g. `companion search` beside the app
            pass
        assert in_use.exists() and ours.exists() and stale.exists()
        with open_home(tmp_path / "h"):  # the next start of the app, with the exclusive lock
            pass
        assert in_use.exists() and ours.exists() and not stale.exists()
    finally:
        child.kill()
        child.wait()


def test_settings_with_control_characters_and_odd_keys_read_back(tmp_path):
    settings = Settings()
    settings.model.path = "/models/evil\x07\x1b[2J\x00\x7f\r\t\"\\name\udcff.gguf"
    settings.model.model_name = "line\nbreak"
    settings.extra = {"plugin table": {"key with space": "v\x01"}}
    path = tmp_path / "settings.toml"
    save_settings(path, settings)
    loaded = load_settings(path)
    assert loaded.model.path == "/models/evil\x07\x1b[2J\x00\x7f\r\t\"\\name\ufffd.gguf"
    assert loaded.model.model_name == "line\nbreak"
    assert loaded.extra == {"plugin table": {"key with space": "v\x01"}}
    assert "\x1b" not in path.read_text(encoding="utf-8")
