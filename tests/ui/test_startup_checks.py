"""Bad state on disk at start-up: a dialog or a clear message, never a dead app or a traceback."""

from __future__ import annotations

import argparse
import contextlib
import os
import subprocess
import sys
from pathlib import Path
from typing import Iterator

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication, QMessageBox

from companion.curate.gate import MemoryWriter
from companion.curate.policy import Actor
from companion.errors import StorageError
from companion.memory.longterm import LongTermStore
from companion.paths import Home
from companion.runtime import open_home
from companion.ui import app as app_module
from companion.ui.startup_checks import BrokenFileDialog, broken_files, check_at_start

from tests.ui.conftest import wait_idle

BROKEN = "---\ntriggers: [unclosed, {a: \n---\n# Soul\n\n## Identity\n- Name: Mo\n"
DEEP = "---\ntriggers: " + "[" * 3000 + "]" * 3000 + "\n---\n## Identity\n- Name: Mo\n"


@contextlib.contextmanager
def mounted(folder: Path, options: str) -> Iterator[bool]:
    """A small tmpfs at `folder` (a real full or read-only disk); yields False where mounting is not allowed."""
    folder.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(folder)], capture_output=True).returncode == 0
    try:
        yield done
    finally:
        if done:
            subprocess.run(["umount", "-l", str(folder)], capture_output=True)


def cli(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    return subprocess.run([sys.executable, "-m", "companion", "--home", str(home), *args], env=env,
                          capture_output=True, text=True, timeout=120)


def unwritable_home(tmp_path: Path) -> Iterator[Path]:
    """A home folder the process cannot write: a read-only disk where one can be mounted, else a path
    under a plain file (even root cannot create folders there)."""
    with mounted(tmp_path / "ro", "ro,size=64k") as done:
        if done:
            yield tmp_path / "ro" / "home"
            return
        blocker = tmp_path / "a-file"
        blocker.write_text("x")
        yield blocker / "home"


@pytest.fixture
def readonly_home(tmp_path: Path) -> Iterator[Path]:
    yield from unwritable_home(tmp_path)


def test_finding_an_unwritable_home_is_a_clear_cli_message(readonly_home: Path) -> None:
    done = cli(readonly_home, "search", "tea")
    assert done.returncode == 1
    assert "Traceback" not in done.stderr and "companion: Companion cannot" in done.stderr, done.stderr
    assert "--home" in done.stderr


def test_finding_an_unwritable_home_shows_a_dialog_with_a_real_window(qapp, readonly_home: Path) -> None:
    seen: list[tuple[str, str, bool]] = []

    def answer() -> None:
        box = QApplication.activeModalWidget()
        if isinstance(box, QMessageBox):
            seen.append((box.windowTitle(), box.text(), box.isVisible()))
            box.grab()  # it was drawn
            box.accept()
        else:
            QTimer.singleShot(50, answer)

    QTimer.singleShot(50, answer)
    code = app_module.run(argparse.Namespace(home=str(readonly_home)))
    assert code == 1
    assert seen and seen[0][0] == "Companion cannot start" and seen[0][2]
    assert "cannot write to its folder" in seen[0][1] or "cannot open its folder" in seen[0][1]


def test_finding_a_full_disk_while_writing_the_lock_is_a_clear_message(tmp_path: Path) -> None:
    with mounted(tmp_path / "full", "size=256k") as done:
        if not done:
            pytest.skip("this machine does not allow mounting a small disk")
        home = tmp_path / "full" / "home"
        open_home(home).close()  # a home that worked yesterday
        (home / "state" / "companion.lock").unlink()
        filler = tmp_path / "full" / "filler"
        with contextlib.suppress(OSError), open(filler, "wb") as handle:
            while True:
                handle.write(b"\0" * 4096)
                handle.flush()
        with pytest.raises(StorageError, match="disk .* is full"):
            open_home(home)
        done_cli = cli(home, "forget", "tea", "--yes")
        assert done_cli.returncode == 1 and "Traceback" not in done_cli.stderr, done_cli.stderr
        assert "is full" in done_cli.stderr


def test_hostile_settings_give_a_message_not_a_traceback(tmp_path: Path) -> None:
    home = tmp_path / "home"
    open_home(home).close()
    (home / "settings.toml").write_text('[model]\nchat_format = "no-such-format"\nn_ctx = true\ntemperature = nan\n')
    from companion.settings import load_settings

    settings = load_settings(home / "settings.toml")
    assert settings.model.chat_format == "no-such-format" and settings.model.n_ctx == 4096
    assert settings.model.temperature == 0.7
    (home / "settings.toml").write_text("[model\nbroken")
    done = cli(home, "search", "tea")
    assert done.returncode == 1 and "Traceback" not in done.stderr and "settings.toml" in done.stderr


@pytest.mark.model
def test_finding_an_unknown_chat_format_is_a_warning_and_the_model_still_answers(tiny_model_path: Path) -> None:
    from companion.llm.base import GenerationOptions, collect
    from companion.llm.llama import LlamaBackend

    backend = LlamaBackend(tiny_model_path, n_ctx=512, n_threads=1, chat_format="no-such-format")
    try:
        assert any("no-such-format" in w and "Settings > Model" in w for w in backend.info.warnings)
        backend.prefill([{"role": "user", "content": "hi"}])
        text, _, _ = collect(backend.stream_chat([{"role": "user", "content": "hi"}], GenerationOptions(max_tokens=2)))
        assert isinstance(text, str)
    finally:
        backend.close()


def test_finding_broken_frontmatter_offers_open_and_restore_while_chat_goes_on(make_window, scripted, home: Home, qtbot) -> None:
    store = LongTermStore(home)
    writer = MemoryWriter(store)
    good = store.read_raw("SOUL.md").replace("## Identity", "## Identity\n- Name: Mo", 1)
    writer.write("SOUL.md", good, actor=Actor.EDITOR, expected_sha=store.read("SOUL.md").sha)
    writer.write("SOUL.md", good + "\n- Likes tea\n", actor=Actor.EDITOR, expected_sha=store.read("SOUL.md").sha)
    assert good in [v.read() for v in store.history.versions("SOUL.md")]
    for broken in (BROKEN, DEEP):
        (home.memory / "SOUL.md").write_text(broken, encoding="utf-8")  # a hand edit gone wrong
        assert set(broken_files(store)) == {"SOUL.md"}
    window = make_window(scripted)
    dialogs = check_at_start(window, window.store, window.memory_pane.open_file)
    assert len(dialogs) == 1 and isinstance(dialogs[0], BrokenFileDialog)
    dialog = dialogs[0]
    qtbot.waitUntil(dialog.isVisible)
    assert "SOUL.md" in dialog.text() and dialog.windowModality() == Qt.WindowModality.NonModal
    dialog.grab()
    scripted.queue("Still here.")
    window.send("hello?")  # chat goes on behind the dialog
    wait_idle(qtbot, window)
    assert "- Name: Mo" in scripted.prompts[-1][0]["content"]
    dialog.open_button.click()
    editor = window.memory_pane.current_editor()
    assert editor is not None and editor.name == "SOUL.md"
    assert dialog.restore_button is not None
    dialog.restore_button.click()
    assert store.read_raw("SOUL.md") == good and broken_files(store) == {}
    assert DEEP in [v.read() for v in store.history.versions("SOUL.md")]  # the broken text is kept in History


def test_the_app_start_opens_the_dialog_for_a_broken_memory_file(qapp, home: Home, monkeypatch) -> None:
    (home.memory / "USER.md").write_text(BROKEN, encoding="utf-8")
    found: list[str] = []

    def look() -> None:
        boxes = [w for w in QApplication.topLevelWidgets() if isinstance(w, BrokenFileDialog) and w.isVisible()]
        if not boxes:
            QTimer.singleShot(100, look)
            return
        found.append(boxes[0].name)
        for widget in QApplication.topLevelWidgets():
            if widget.inherits("QMainWindow"):
                widget.confirm_discard = lambda _names: QMessageBox.StandardButton.Discard  # type: ignore[attr-defined]
                if hasattr(widget, "tray"):
                    widget.tray.ask_keep_in_tray = lambda: False  # type: ignore[attr-defined]
                widget.close()
        qapp.quit()

    QTimer.singleShot(100, look)
    assert app_module.run(argparse.Namespace(home=str(home.root))) == 0
    assert found == ["USER.md"]
