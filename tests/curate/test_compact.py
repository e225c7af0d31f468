"""Compaction keeps a long-term file under its cap without losing entries."""

from __future__ import annotations

from datetime import date

from companion.curate.compact import append_archive, compact


def test_superseded_then_oldest_entries_leave_first():
    body = "## Facts\n- new fact (2026-11-20#1)\n- ~~old~~ superseded 2026-11-21 (2026-01-01#1)\n- oldest (2025-01-01#1)\n"
    new, archived = compact("", body, limit=10, target=len("## Facts\n- new fact (2026-11-20#1)\n"))
    assert new == "## Facts\n- new fact (2026-11-20#1)\n"
    assert archived[0].startswith("- ~~old~~") and archived[1] == "- oldest (2025-01-01#1)"


def test_small_files_are_left_alone():
    assert compact("", "## Facts\n- a fact (2026-11-20#1)\n") == ("## Facts\n- a fact (2026-11-20#1)\n", [])


def test_archive_appends_once(tmp_path):
    append_archive(tmp_path, "MEMORY.md", ["- a (2025-01-01#1)"], date(2026, 11, 29))
    append_archive(tmp_path, "MEMORY.md", ["- a (2025-01-01#1)"], date(2026, 11, 30))
    text = (tmp_path / "archive" / "MEMORY.md").read_text(encoding="utf-8")
    assert text.count("- a (2025-01-01#1)") == 1 and "## Archived 2026-11-29" in text
