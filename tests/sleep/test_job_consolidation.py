"""The night audits memory: with the scripted model proposing a near-duplicate and a contradicting
fact, the job merges and supersedes, reports each change, and undo brings the old entry back."""

from __future__ import annotations

from companion.llm.scripted import ScriptedBackend
from companion.memory import entries as E
from companion.memory.longterm import LongTermStore
from companion.paths import Home
from companion.sleep.job import SleepJob
from companion.sleep.report import ReportStore, undo_entry
from companion.curate.gate import MemoryWriter
from companion.memory.history import Actor
from tests.sleep.conftest import Writer


def test_duplicates_merge_contradictions_supersede_and_undo(home: Home, writer: Writer) -> None:
    store = LongTermStore(home)
    MemoryWriter(store).append("USER.md", "- Likes hiking in the mountains (2024-05-01#1)", "## Preferences", actor=Actor.EDITOR)
    MemoryWriter(store).append("USER.md", "- Eats meat (2024-05-01#2)", "## Preferences", actor=Actor.EDITOR)
    ids = writer.at(2024, 5, 13).chat("Mountain hiking is my thing.", "No more meat for me, ever.")
    writer.at(2024, 5, 14, 3)
    backend = ScriptedBackend()
    backend.queue(
        {"ops": [{"op": "add", "section": "Preferences", "text": "Likes mountain hiking", "sources": [ids[0]]},
                 {"op": "add", "section": "Preferences", "text": "Does not eat meat", "sources": [ids[1]]}]},
        {"ops": []},
        {"events": [{"time": "09:00", "text": "Talked about hiking and food", "sources": [ids[0]]}]},
    )
    report = SleepJob(home, backend, clock=writer.clock, check_model=False).run()
    by_status = {o.status: o for o in report.outcomes if o.status in ("merged", "retired")}
    assert E.entry_text(by_status["merged"].old_line) == "Likes mountain hiking"
    assert by_status["merged"].reason == "same as: Likes hiking in the mountains"  # the fuller wording stays
    assert E.entry_text(by_status["retired"].old_line) == "Eats meat"
    assert by_status["retired"].reason == "contradicted by: Does not eat meat"
    body = store.read("USER.md").body
    assert [E.entry_text(l) for l in E.active_entries(body)] == ["Likes hiking in the mountains", "Does not eat meat"]
    rendered = report.render()
    assert "- retired: Eats meat (contradicted by: Does not eat meat)" in rendered

    saved = ReportStore(home).load(report.id)
    index = next(i for i, o in enumerate(saved.outcomes) if o.status == "retired")
    assert "is active again" in undo_entry(store, saved, index)
    assert "- Eats meat (2024-05-01#2)" in store.read("USER.md").body.splitlines()
