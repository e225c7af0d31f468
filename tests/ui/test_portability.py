"""File > Export memory… / Import memory…: real dialogs, real worker threads, real files."""

from __future__ import annotations

import shutil
import zipfile
from pathlib import Path
from typing import Callable

from skills_ref import validate

from companion.memory.daylog import DayLog
from companion.memory.longterm import LongTermStore
from companion.memory.setup import ensure_home
from companion.paths import Home
from companion.ui.main_window import MainWindow
from companion.ui.portability import ExportDialog, ImportDialog

FIXTURES = Path(__file__).parent.parent / "fixtures" / "portability"


def fill(home: Home) -> None:
    shutil.copytree(FIXTURES / "sample-memory", home.memory, dirs_exist_ok=True)


def file_menu_texts(window: MainWindow) -> list[str]:
    return [a.text() for a in window.menu("&File").actions()]


def test_install_adds_both_actions_before_quit(make_window: Callable[..., MainWindow]) -> None:
    window = make_window(extensions=("companion.ui.portability",))
    assert window.installed_extensions == ["companion.ui.portability"]
    texts = file_menu_texts(window)
    assert texts.index("Export memory…") < texts.index("Import memory…") < texts.index("&Quit")


def test_export_dialog_runs_with_options_and_progress(qtbot, home: Home, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    fill(home)
    dialog = ExportDialog(home)
    qtbot.addWidget(dialog)
    dialog.destination.setText(str(tmp_path / "out"))
    dialog.as_zip.setChecked(True)
    dialog.redact.setChecked(True)
    seen: list[int] = []
    dialog.progress.valueChanged.connect(seen.append)
    with qtbot.waitSignal(dialog.finished_job, timeout=10_000) as blocker:
        dialog.start_button.click()
    result = blocker.args[0]
    qtbot.waitUntil(lambda: not dialog.running())
    assert result.path == tmp_path / "out" / "companion-memory.zip"
    assert dialog.progress.value() == dialog.progress.maximum() and len(seen) > 1
    assert str(result.path) in dialog.status.text()
    with zipfile.ZipFile(result.path) as archive:
        archive.extractall(tmp_path / "x")
        assert "lin.mei@example.com" not in archive.read("companion-memory/USER.md").decode()
    assert validate(tmp_path / "x" / "companion-memory") == []
    assert not dialog.start_button.isEnabled() and dialog.close_button.text() == "Close"


def test_export_dialog_shows_errors_and_can_retry(qtbot, home: Home, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "companion-memory").mkdir()
    dialog = ExportDialog(home)
    qtbot.addWidget(dialog)
    dialog.destination.setText(str(tmp_path))
    dialog.start_button.click()
    qtbot.waitUntil(lambda: "already exists" in dialog.status.text(), timeout=10_000)
    qtbot.waitUntil(lambda: not dialog.running())
    assert dialog.start_button.isEnabled() and dialog.destination.isEnabled()
    dialog.destination.setText(str(tmp_path / "elsewhere"))
    with qtbot.waitSignal(dialog.finished_job, timeout=10_000):
        dialog.start_button.click()
    qtbot.waitUntil(lambda: not dialog.running())


def test_import_dialog_merges_and_the_store_notifies(qtbot, home: Home, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    source_home = Home(tmp_path / "source")
    ensure_home(source_home)
    fill(source_home)
    store = LongTermStore(home)
    changed: list[str] = []
    store.subscribe(lambda name, _doc: changed.append(name))
    dialog = ImportDialog(home, store)
    qtbot.addWidget(dialog)
    dialog.source.setText(str(source_home.memory))
    assert "memory to import" in dialog.found.text() and dialog.replace.isEnabled()
    assert dialog.mode() == "merge"
    with qtbot.waitSignal(dialog.finished_job, timeout=10_000):
        dialog.start_button.click()
    qtbot.waitUntil(lambda: not dialog.running())
    assert "Backup of the previous memory" in dialog.status.text()
    assert set(changed) == {"SOUL.md", "USER.md", "MEMORY.md"}
    assert "Lin Mei" in store.read("USER.md").body


def test_import_dialog_for_older_formats_only_merges(qtbot, home: Home, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    shutil.copy(FIXTURES / "legacy" / "config.json", tmp_path / "config.json")
    dialog = ImportDialog(home, LongTermStore(home))
    qtbot.addWidget(dialog)
    dialog.replace.setChecked(True)
    dialog.source.setText(str(tmp_path / "config.json"))
    assert "personality settings" in dialog.found.text()
    assert not dialog.replace.isEnabled() and dialog.mode() == "merge"
    with qtbot.waitSignal(dialog.finished_job, timeout=10_000):
        dialog.start_button.click()
    qtbot.waitUntil(lambda: not dialog.running())
    assert "- Name: Pip" in LongTermStore(home).read("SOUL.md").body
    dialog.source.setText(str(tmp_path / "missing"))
    assert "does not exist" in dialog.found.text()


def test_export_dialog_leaves_private_turns_out_unless_asked(qtbot, home: Home, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    fill(home)
    DayLog(home.days).append("user", "a private thought", private=True)
    for name, include in (("plain", False), ("all", True)):
        dialog = ExportDialog(home)
        qtbot.addWidget(dialog)
        dialog.destination.setText(str(tmp_path / name))
        dialog.include_private.setChecked(include)
        with qtbot.waitSignal(dialog.finished_job, timeout=10_000) as blocker:
            dialog.start_button.click()
        qtbot.waitUntil(lambda: not dialog.running())
        logs = "".join(p.read_text(encoding="utf-8") for p in (blocker.args[0].path / "days").rglob("*.jsonl"))
        assert ("a private thought" in logs) is include
        assert ("1 private records left out" in dialog.status.text()) is not include
