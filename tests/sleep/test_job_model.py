"""End to end on the real embedded model: files stay valid, entries cite real ids, the cursor advances."""

from __future__ import annotations

from datetime import date

import pytest

from companion.memory.daylog import DayLog
from companion.memory.document import parse_document
from companion.paths import Home
from companion.memory import entries as E
from companion.sleep.cursor import Cursor
from companion.sleep import distill
from companion.sleep.job import SleepJob
from tests.sleep.conftest import Writer


@pytest.mark.model
def test_real_model_night(home: Home, writer: Writer, tiny_backend: object, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(distill, "REPLY_TOKENS", 48)  # short answers (often cut off: the job must cope with that too)
    writer.at(2024, 5, 13, 9).chat(
        "I'm allergic to shellfish.",
        "My cat Miso is twelve years old and loves the balcony.",
        "I have a dentist appointment tomorrow.",
        reply="Thanks for telling me!",
    )
    writer.at(2024, 5, 14, 3)
    # The embedded model is too weak for the nightly model path; run it anyway to test that path end to end.
    report = SleepJob(home, tiny_backend, clock=writer.clock, check_model=False).run()  # type: ignore[arg-type]
    assert report.stats["calls"] >= 3 and not report.cancelled
    known = {r.id for r in DayLog(home.days).read_day(date(2024, 5, 13)).records}
    for name in ("USER.md", "MEMORY.md", "SOUL.md"):
        doc = parse_document(name, (home.memory / name).read_text(encoding="utf-8"))
        for line in E.active_entries(doc.body):
            assert set(E.cited_ids(line)) <= known and E.cited_ids(line), line
    user = (home.memory / "USER.md").read_text(encoding="utf-8")
    assert "- Allergic to shellfish (2024-05-13#1)" in user  # the rule path works whatever the model says
    assert "2024-05-14: Dentist appointment (2024-05-13#5)" in (home.memory / "MEMORY.md").read_text(encoding="utf-8")
    digest = parse_document("d.md", (home.digests / "day" / "2024-05-13.md").read_text(encoding="utf-8"))
    assert digest.meta["sources"] == ["days/2024-05/2024-05-13.jsonl"]
    timeline = [l for l in digest.body.splitlines() if l.startswith("- ")]
    assert timeline and all(set(E.cited_ids(l)) <= known and E.cited_ids(l) for l in timeline)
    assert Cursor.load(home.state / "sleep_cursor.json").mark(date(2024, 5, 13)).seq == 6

    again = SleepJob(home, tiny_backend, clock=writer.clock, check_model=False).run()  # type: ignore[arg-type]
    assert again.records == 0 and again.applied() == [] and again.stats["calls"] == 0
