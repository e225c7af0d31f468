"""`companion export`, `companion import` and `companion migrate` from the command line."""

from __future__ import annotations

import shutil
import zipfile
from pathlib import Path

import pytest
from skills_ref import validate

from companion.cli import main
from companion.memory.longterm import LongTermStore
from companion.filelock import ProcessLock
from companion.memory.setup import ensure_home
from companion.paths import Home

FIXTURES = Path(__file__).parent.parent / "fixtures" / "portability"


@pytest.fixture
def filled(home: Home) -> Home:
    shutil.copytree(FIXTURES / "sample-memory", home.memory, dirs_exist_ok=True)
    return home


def test_export_folder_and_zip(filled: Home, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--home", str(filled.root), "export", str(tmp_path / "out")]) == 0
    assert validate(tmp_path / "out" / "companion-memory") == []
    assert "2 days, 12 records" in capsys.readouterr().out

    code = main(["--home", str(filled.root), "export", str(tmp_path / "z"), "--zip", "--without-logs", "--redact"])
    out = capsys.readouterr().out
    assert code == 0 and "Day logs: left out" in out and "email" in out
    with zipfile.ZipFile(tmp_path / "z" / "companion-memory.zip") as archive:
        names = archive.namelist()
        assert not any("/days/" in n for n in names)
        assert "lin.mei@example.com" not in archive.read("companion-memory/USER.md").decode()


def test_export_error_is_a_message_not_a_traceback(filled: Home, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    main(["--home", str(filled.root), "export", str(tmp_path)])
    assert main(["--home", str(filled.root), "export", str(tmp_path)]) == 1
    assert "already exists" in capsys.readouterr().err


@pytest.mark.slow
def test_import_merge_default_then_replace(filled: Home, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    main(["--home", str(filled.root), "export", str(tmp_path / "out")])
    other = Home(tmp_path / "other")
    ensure_home(other)
    src = str(tmp_path / "out" / "companion-memory")
    assert main(["--home", str(other.root), "import", src]) == 0
    out = capsys.readouterr().out
    assert "(merge)" in out and "Day-log records added: 12" in out and "Backup of the previous memory" in out
    assert main(["--home", str(other.root), "import", src]) == 0
    assert "Day-log records added: 0; 12 already present" in capsys.readouterr().out
    assert main(["--home", str(other.root), "import", "--replace", src]) == 0
    assert (other.memory / "USER.md").read_bytes() == (filled.memory / "USER.md").read_bytes()


def test_import_shows_progress_and_ctrl_c_changes_nothing(filled: Home, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    import companion.portability.skill_import as skill_import

    main(["--home", str(filled.root), "export", str(tmp_path / "out")])
    other = Home(tmp_path / "other")
    ensure_home(other)
    capsys.readouterr()
    src = str(tmp_path / "out" / "companion-memory")
    before = {p.name: p.read_bytes() for p in other.memory.iterdir() if p.is_file()}
    real_step = skill_import._Importer.step

    def interrupted(self: object, what: str) -> None:
        real_step(self, what)  # type: ignore[arg-type]
        if self.done == 3:  # type: ignore[attr-defined]
            raise KeyboardInterrupt

    monkeypatch.setattr(skill_import._Importer, "step", interrupted)
    assert main(["--home", str(other.root), "import", src]) == 130
    err = capsys.readouterr().err
    assert "Importing: 1/8" in err and "your memory was not changed" in err  # throttled to a few redraws a second
    assert {p.name: p.read_bytes() for p in other.memory.iterdir() if p.is_file()} == before
    assert not any(other.scratch.iterdir())


def test_import_detects_older_formats(home: Home, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    shutil.copytree(FIXTURES / "legacy", tmp_path / "legacy")
    assert main(["--home", str(home.root), "import", str(tmp_path / "legacy" / "conversations.json")]) == 0
    assert "ChatGPT export" in capsys.readouterr().out
    assert main(["--home", str(home.root), "import", "--replace", str(tmp_path / "legacy" / "config.json")]) == 1
    assert main(["--home", str(home.root), "import", str(tmp_path / "nothing-here")]) == 1
    assert "does not exist" in capsys.readouterr().err


def test_import_refuses_while_the_app_runs(filled: Home, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lock = ProcessLock(filled.lock_file)
    assert lock.acquire()
    try:
        assert main(["--home", str(filled.root), "import", str(FIXTURES / "plain-notes")]) == 1
        assert "already running" in capsys.readouterr().err
    finally:
        lock.release()


def test_migrate_paths_twice(home: Home, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    shutil.copytree(FIXTURES / "legacy", tmp_path / "legacy")
    project = tmp_path / "legacy" / "project"
    assert main(["--home", str(home.root), "migrate", str(tmp_path / "legacy" / "memory.jsonl"), str(project)]) == 0
    assert "entries added" in capsys.readouterr().out
    assert "raised beds" in LongTermStore(home).read("MEMORY.md").body
    before = (home.memory / "MEMORY.md").read_bytes()
    assert main(["--home", str(home.root), "migrate", str(tmp_path / "legacy" / "memory.jsonl"), str(project)]) == 0
    assert "Nothing to migrate" in capsys.readouterr().out
    assert (home.memory / "MEMORY.md").read_bytes() == before


def test_migrate_default_locations(home: Home, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "user"))
    monkeypatch.chdir(tmp_path)
    (tmp_path / "user" / ".companion").mkdir(parents=True)
    shutil.copy(FIXTURES / "legacy" / "config.json", tmp_path / "user" / ".companion" / "config.json")
    before = (home.memory / "SOUL.md").read_bytes()
    assert main(["--home", str(home.root), "migrate"]) == 1  # found, listed, not changed without a yes
    out = capsys.readouterr().out
    assert "config.json" in out and "--yes" in out and (home.memory / "SOUL.md").read_bytes() == before
    assert (tmp_path / "user" / ".companion" / "config.json").exists()
    assert main(["--home", str(home.root), "migrate", "--yes"]) == 0
    assert "persona entries added" in capsys.readouterr().out
    assert "- Name: Pip" in LongTermStore(home).read("SOUL.md").body


def test_migrate_never_looks_in_the_current_folder_unasked(home: Home, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "user"))
    repository = tmp_path / "downloaded-repo"
    (repository / ".companion").mkdir(parents=True)
    shutil.copy(FIXTURES / "legacy" / "config.json", repository / ".companion" / "config.json")
    monkeypatch.chdir(repository)
    before = (home.memory / "SOUL.md").read_bytes()
    assert main(["--home", str(home.root), "migrate", "--yes"]) == 0
    assert "Nothing to migrate" in capsys.readouterr().out
    assert (home.memory / "SOUL.md").read_bytes() == before
    assert (repository / ".companion" / "config.json").exists()  # not renamed to .bak
