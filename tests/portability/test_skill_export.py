"""Export: a valid Agent Skill folder or zip, options honoured, the live memory untouched."""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
import zipfile
from datetime import datetime, timezone
from pathlib import Path

import pytest
from skills_ref import validate
from skills_ref.parser import parse_frontmatter

from companion.errors import PortabilityError, TransferCancelledError
from companion.portability.skill_export import ExportOptions, export_memory
from companion.paths import Home

SAMPLE = Path(__file__).parent.parent / "fixtures" / "portability" / "sample-memory"
STAMP = datetime(2026, 11, 30, 8, 0, tzinfo=timezone.utc)


def fill(home: Home) -> None:
    shutil.copytree(SAMPLE, home.memory, dirs_exist_ok=True)
    (home.state / "index.db").write_text("not for export")
    (home.days / "2026-11" / ".2026-11-29.jsonl.lock").write_text("")


def tree_digest(folder: Path) -> dict[str, str]:
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def skill_text(folder: Path) -> str:
    return (folder / "SKILL.md").read_text(encoding="utf-8")


@pytest.mark.slow
def test_folder_export_validates_and_copies_the_memory(home: Home, tmp_path: Path) -> None:
    fill(home)
    before = tree_digest(home.root)
    result = export_memory(home, tmp_path / "out", clock=lambda: STAMP)

    assert result.path == tmp_path / "out" / "companion-memory"
    assert validate(result.path) == []
    cli = subprocess.run(
        [str(Path(sys.executable).parent / "agentskills"), "validate", str(result.path)],
        capture_output=True, text=True,
    )
    assert cli.returncode == 0, cli.stdout + cli.stderr
    exported = sorted(str(p.relative_to(result.path)) for p in result.path.rglob("*") if p.is_file())
    assert exported == sorted([
        "SKILL.md", "SOUL.md", "USER.md", "MEMORY.md",
        "days/2026-11/2026-11-28.jsonl", "days/2026-11/2026-11-29.jsonl",
        "digests/day/2026-11-28.md", "digests/day/2026-11-29.md", "digests/week/2026-W48.md",
    ])
    for name in ("USER.md", "days/2026-11/2026-11-29.jsonl"):
        assert (result.path / name).read_bytes() == (home.memory / name).read_bytes()
    assert tree_digest(home.root) == before  # export never modifies anything at home
    assert not list(tmp_path.joinpath("out").glob(".*partial*"))


def test_skill_md_describes_the_memory(home: Home, tmp_path: Path) -> None:
    fill(home)
    result = export_memory(home, tmp_path, clock=lambda: STAMP)
    meta, body = parse_frontmatter(skill_text(result.path))
    assert meta["name"] == "companion-memory"
    assert 0 < len(meta["description"]) <= 1024
    assert "2026-11-28 to 2026-11-29" in meta["description"]
    assert meta["metadata"]["exported"] == "2026-11-30T08:00:00+00:00"
    assert meta["metadata"]["user_entries"] == "5"
    assert meta["metadata"]["records"] == "12"
    assert meta["metadata"]["logs_included"] == "yes"
    assert len(skill_text(result.path).splitlines()) < 500
    for needle in ("SOUL.md", "USER.md", "MEMORY.md", "digests/week/", "days/YYYY-MM/YYYY-MM-DD.jsonl", "(2026-11-29#17)"):
        assert needle in body
    assert result.summary.records == 12 and len(result.summary.days) == 2


def test_zip_export_validates_after_extraction(home: Home, tmp_path: Path) -> None:
    fill(home)
    result = export_memory(home, tmp_path, ExportOptions(as_zip=True))
    assert result.path == tmp_path / "companion-memory.zip"
    with zipfile.ZipFile(result.path) as archive:
        names = archive.namelist()
        assert all(n.startswith("companion-memory/") for n in names)
        assert "companion-memory/SKILL.md" in names
        archive.extractall(tmp_path / "unzipped")
    assert validate(tmp_path / "unzipped" / "companion-memory") == []


def test_zip_named_by_the_user(home: Home, tmp_path: Path) -> None:
    fill(home)
    result = export_memory(home, tmp_path / "my backup.zip")
    assert result.path == tmp_path / "my backup.zip"
    assert zipfile.is_zipfile(result.path)


def test_without_logs_leaves_days_out_and_says_so(home: Home, tmp_path: Path) -> None:
    fill(home)
    result = export_memory(home, tmp_path, ExportOptions(include_logs=False))
    assert not (result.path / "days").exists()
    assert validate(result.path) == []
    text = skill_text(result.path)
    assert "left out of this export" in text
    assert 'logs_included: "no"' in text


def test_redact_masks_every_exported_file(home: Home, tmp_path: Path) -> None:
    fill(home)
    result = export_memory(home, tmp_path, ExportOptions(redact=True))
    for path in result.path.rglob("*"):
        if path.is_file():
            text = path.read_text(encoding="utf-8")
            assert "lin.mei@example.com" not in text
            assert "138 1234 5678" not in text
            assert "4111 1111 1111 1111" not in text
    day = (result.path / "days/2026-11/2026-11-29.jsonl").read_text(encoding="utf-8")
    assert '"id":"2026-11-29#3"' in day and "[email]" in day and "[card]" in day
    assert "[email]" in (result.path / "USER.md").read_text(encoding="utf-8")
    assert result.redactions.counts["email"] == 2
    assert "Personal data was masked" in skill_text(result.path)
    assert (home.memory / "USER.md").read_text(encoding="utf-8").count("lin.mei@example.com") == 1


def test_torn_last_line_is_left_out(home: Home, tmp_path: Path) -> None:
    fill(home)
    with open(home.days / "2026-11" / "2026-11-29.jsonl", "ab") as handle:
        handle.write(b'{"id":"2026-11-29#7","ts":"2026-11-29T09')
    result = export_memory(home, tmp_path)
    exported = (result.path / "days/2026-11/2026-11-29.jsonl").read_bytes()
    assert exported.endswith(b"\n") and b"#7" not in exported
    assert result.skipped_lines == 1


def test_existing_target_is_refused(home: Home, tmp_path: Path) -> None:
    fill(home)
    export_memory(home, tmp_path)
    with pytest.raises(PortabilityError, match="already exists"):
        export_memory(home, tmp_path)


def test_export_into_the_memory_folder_is_refused(home: Home) -> None:
    with pytest.raises(PortabilityError, match="outside"):
        export_memory(home, home.memory / "sub")


def test_cancel_leaves_nothing_behind(home: Home, tmp_path: Path) -> None:
    fill(home)
    calls: list[int] = []
    with pytest.raises(TransferCancelledError):
        export_memory(home, tmp_path / "out", progress=lambda d, t, w: calls.append(d), cancelled=lambda: len(calls) >= 2)
    assert list((tmp_path / "out").iterdir()) == []


def test_progress_reaches_the_total(home: Home, tmp_path: Path) -> None:
    fill(home)
    seen: list[tuple[int, int]] = []
    result = export_memory(home, tmp_path, ExportOptions(as_zip=True), progress=lambda d, t, w: seen.append((d, t)))
    assert seen[-1] == (result.files, result.files)
    assert [d for d, _ in seen] == list(range(1, result.files + 1))


def test_fresh_home_exports_a_valid_skill(home: Home, tmp_path: Path) -> None:
    result = export_memory(home, tmp_path)
    assert validate(result.path) == []
    assert "There are no day logs yet." in skill_text(result.path)
