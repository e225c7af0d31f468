"""One ledger for day and night: what daytime learning handled is neither proposed again at night nor
reported as refused; what the day missed (beyond its three facts) the night still learns."""

from __future__ import annotations

from companion.agent.learn import DaytimeLearner
from companion.curate.gate import MemoryWriter
from companion.memory.history import Actor
from companion.memory import entries as E
from companion.memory.ledger import Ledger
from companion.memory.longterm import LongTermStore
from companion.memory.setup import ensure_home
from companion.paths import Home
from companion.sleep.job import SleepJob
from tests.sleep.conftest import Writer


def _learn_by_day(home: Home, writer: Writer, *texts: str) -> LongTermStore:
    store = LongTermStore(home)
    learner = DaytimeLearner(store, lambda: None, writer.clock)
    for text in texts:
        record = writer.log.append("user", text)
        learner.after_turn(record, None, False)
    return store


def test_a_fact_learned_by_day_is_not_proposed_or_refused_at_night(home: Home, writer: Writer) -> None:
    ensure_home(home, "en")
    writer.at(2024, 5, 13)
    store = _learn_by_day(home, writer, "I live in Leeds and I'm allergic to peanuts.")
    assert {"Lives in Leeds", "Allergic to peanuts"} <= {E.entry_text(l) for l in E.active_entries(store.read("USER.md").body)}
    writer.at(2024, 5, 14, 3)
    report = SleepJob(home, None, clock=writer.clock, store=store).run()
    assert not report.refused()
    assert not [o for o in report.outcomes if o.op.file == "USER.md"]  # nothing proposed again
    assert report.already_known() == 2
    assert "2 already known" in report.summary() and "refused" not in report.summary()


def test_the_night_learns_what_the_day_left_out(home: Home, writer: Writer) -> None:
    ensure_home(home, "en")
    writer.at(2024, 5, 13)
    store = _learn_by_day(home, writer, "I live in Leeds, I'm a nurse, I have two cats, I'm allergic to peanuts and I speak Welsh.")
    by_day = {E.entry_text(l) for l in E.active_entries(store.read("USER.md").body)}
    assert len(by_day) == 3  # daytime learning keeps at most three facts a message
    writer.at(2024, 5, 14, 3)
    report = SleepJob(home, None, clock=writer.clock, store=store).run()
    after = {E.entry_text(l) for l in E.active_entries(store.read("USER.md").body)}
    assert len(after - by_day) == 2 and report.already_known() == 3 and not report.refused()


def test_a_remembered_fact_is_already_known_not_refused(home: Home, writer: Writer) -> None:
    ensure_home(home, "en")
    store = LongTermStore(home)
    writer.at(2024, 5, 13)
    record = writer.log.append("user", "I'm allergic to shellfish.")
    MemoryWriter(store).append("USER.md", E.format_entry("Allergic to shellfish", [record.id]), "## Profile", actor=Actor.REMEMBER)
    writer.at(2024, 5, 14, 3)
    report = SleepJob(home, None, clock=writer.clock, store=store).run()
    assert report.already_known() == 1 and not report.refused()
    assert "refused:" not in report.render()


def test_a_torn_ledger_line_is_skipped(tmp_path) -> None:
    ledger = Ledger(tmp_path)
    ledger.note("2024-05-13#1", ["USER.md|add|likes tea"])
    with open(ledger.path, "a", encoding="utf-8") as handle:
        handle.write('{"id": "2024-05-13#2", "ke')
    assert Ledger(tmp_path).handled("2024-05-13#1") == {"USER.md|add|likes tea"}
    assert Ledger(tmp_path).handled("2024-05-13#2") == set()
