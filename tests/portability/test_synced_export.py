"""A synced memory's export holds every computer's day files (no conflict copy), and importing it keeps every turn."""

from __future__ import annotations

from datetime import date

from companion.memory.daylog import DayLog
from companion.memory.setup import ensure_home
from companion.paths import Home
from companion.portability.skill_export import ExportOptions, export_memory, plan_files
from companion.portability.skill_import import import_memory
from tests.syncsim import conflict_name, sync, two_computers


def test_an_export_of_two_computers_memory_imports_whole(tmp_path):
    laptop, desktop = two_computers(tmp_path)
    DayLog(laptop.home.days, laptop.clock).append("user", "I moved to Lisbon in May")
    DayLog(desktop.home.days, desktop.clock).append("user", "我在学大提琴")
    sync(laptop, desktop)
    (laptop.home.days / "2026-12" / conflict_name("2026-12-01.jsonl", "Syncthing")).write_text("")
    planned = [f for f in plan_files(laptop.home, True) if f.startswith("days/")]
    assert len(planned) == 2 and not any("sync-conflict" in f for f in planned)
    exported = export_memory(laptop.home, tmp_path / "export", ExportOptions()).path
    fresh = Home(tmp_path / "fresh")
    ensure_home(fresh, "en")
    report = import_memory(fresh, exported, "merge")
    texts = [r.text for r in DayLog(fresh.days).read_day(date(2026, 12, 1)).records]
    assert set(texts) == {"I moved to Lisbon in May", "我在学大提琴"}, report.notes
    assert not any("Left out days" in n for n in report.notes)
