"""The whole job with the scripted backend: idempotent, dry-run, chunked, reported, undoable, crash-safe."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from datetime import date
from pathlib import Path

import pytest

from companion.curate.gate import MemoryWriter
from companion.errors import SleepBusyError
from companion.memory.history import Actor
from companion.llm.scripted import ScriptedBackend
from companion.memory.daylog import DayLog
from companion.memory.document import parse_document
from companion.memory.longterm import LongTermStore
from companion.paths import Home
from companion.memory import entries as E
from companion.sleep.cursor import Cursor
from companion.sleep.job import SleepJob
from companion.sleep.report import ReportStore, undo_entry, undo_run
from tests.sleep.conftest import Writer


def _snapshot(home: Home) -> dict[str, str]:
    """Every file's content, except the lock files the job takes (they hold no data)."""
    files = (p for p in sorted(home.root.rglob("*")) if p.is_file() and p.suffix != ".lock")
    return {p.relative_to(home.root).as_posix(): p.read_text(encoding="utf-8") for p in files}


def _all_cited_ids_exist(home: Home) -> None:
    log = DayLog(home.days)
    known = {r.id for d in log.days() for r in log.read_day(d).records}
    for name in ("USER.md", "MEMORY.md", "SOUL.md"):
        doc = parse_document(name, (home.memory / name).read_text(encoding="utf-8"))
        for line in doc.body.splitlines():
            if E.is_entry(line):
                ids = E.cited_ids(line)
                assert ids and set(ids) <= known, line


def _two_days(writer: Writer) -> None:
    writer.at(2024, 5, 13).chat("I'm allergic to shellfish.", "I have a dentist appointment tomorrow.", "I live in Paris.")
    writer.at(2024, 5, 14, 20).chat("I moved to Berlin.", "Please be more concise.")


def test_rules_only_run_then_second_run_is_a_no_op(home: Home, writer: Writer) -> None:
    _two_days(writer)
    writer.at(2024, 5, 15, 3)
    report = SleepJob(home, None, clock=writer.clock).run()
    assert report.days == ["2024-05-13", "2024-05-14"] and not report.cancelled
    user = (home.memory / "USER.md").read_text(encoding="utf-8")
    assert "- Allergic to shellfish (2024-05-13#1)" in user
    assert "~~Lives in Paris~~ (2024-05-13#5) — superseded 2024-05-15" in user and "- Lives in Berlin (2024-05-14#1)" in user
    memory = (home.memory / "MEMORY.md").read_text(encoding="utf-8")
    timeline = memory.split("## Timeline")[1].split("## Upcoming")[0]
    assert "2024-05-14: Dentist appointment (2024-05-13#3)" in timeline  # its date has passed
    assert "- Be more concise (2024-05-14#3)" in (home.memory / "SOUL.md").read_text(encoding="utf-8")
    _all_cited_ids_exist(home)
    assert sorted(p.name for p in (home.digests / "day").iterdir()) == ["2024-05-13.md", "2024-05-14.md"]
    cursor = Cursor.load(home.state / "sleep_cursor.json")
    assert cursor.mark(date(2024, 5, 14)).seq == 4 and cursor.last_run is not None
    # the report is in the day log and in state/
    event = [r for r in DayLog(home.days).read_day(date(2024, 5, 15)).records if r.role == "event"]
    assert event and event[0].extra["sleep_report"]["id"] == report.id
    assert ReportStore(home).latest_unseen().id == report.id  # type: ignore[union-attr]

    before = _snapshot(home)
    again = SleepJob(home, None, clock=writer.clock).run()
    assert again.records == 0 and again.applied() == [] and again.digests == []
    assert _snapshot(home) == before


def test_dry_run_writes_nothing(home: Home, writer: Writer) -> None:
    _two_days(writer)
    writer.at(2024, 5, 15, 3)
    before = _snapshot(home)
    report = SleepJob(home, ScriptedBackend(), clock=writer.clock).run(dry_run=True)
    assert report.dry_run and len(report.applied()) >= 5 and "day/2024-05-13" in report.digests
    assert _snapshot(home) == before


def test_model_ops_are_validated_and_merged_with_rules(home: Home, writer: Writer) -> None:
    ids = writer.at(2024, 5, 13).chat("My cat is very old and sleeps all day", "what is my password? it is hunter22")
    writer.at(2024, 5, 14, 3)
    backend = ScriptedBackend()
    backend.queue(
        {"ops": [{"op": "add", "section": "Profile", "text": "Has an old cat", "sources": [ids[0]]},
                 {"op": "add", "section": "Profile", "text": "Password is hunter22", "sources": [ids[1]]}]},
        {"ops": [{"op": "add", "section": "Facts", "text": ids[0], "sources": [ids[0]]},
                 {"op": "none", "section": "Facts", "text": "", "sources": [ids[0]]}]},
        {"events": [{"time": "09:00", "text": "The user talked about their old cat", "sources": [ids[0]]}]},
    )
    report = SleepJob(home, backend, clock=writer.clock, check_model=False).run()
    statuses = [(o.op.origin, o.status) for o in report.outcomes if o.status != "skipped"]
    assert statuses == [("model", "added"), ("model", "refused"), ("model", "refused")]
    assert "Has an old cat (2024-05-13#1)" in (home.memory / "USER.md").read_text(encoding="utf-8")
    schema = backend.options[0].json_schema
    assert schema is not None and schema["properties"]["ops"]["items"]["properties"]["sources"]["items"]["enum"] == [
        "2024-05-13#1", "2024-05-13#2", "2024-05-13#3", "2024-05-13#4"]
    assert len(backend.prompts) == 3  # USER, MEMORY, day digest (no persona request: SOUL is left alone)
    day = (home.digests / "day" / "2024-05-13.md").read_text(encoding="utf-8")
    assert "generator: model" in day and "- 09:00 The user talked about their old cat (2024-05-13#1)" in day
    assert report.stats["calls"] == 3


def test_long_days_are_chunked_to_fit_the_context(home: Home, writer: Writer) -> None:
    writer.at(2024, 5, 13).chat(*[f"Message number {n} " + "blah " * 60 for n in range(12)])
    writer.at(2024, 5, 14, 3)
    backend = ScriptedBackend(n_ctx=1024, default='{"ops": []}')
    SleepJob(home, backend, clock=writer.clock, check_model=False).run()
    distill_prompts = [p for p in backend.prompts if "New conversation lines" in p[-1]["content"]]
    assert len(distill_prompts) >= 4  # several chunks x (USER, MEMORY)
    for prompt in distill_prompts:
        assert sum(backend.count_tokens(m["content"]) for m in prompt) < 1024 - 256
    seen = {line.split("]")[0] for p in distill_prompts for line in p[-1]["content"].splitlines() if line.startswith("[2024")}
    assert len(seen) == 24  # every record was read


def test_bad_model_digest_falls_back_to_extractive(home: Home, writer: Writer) -> None:
    ids = writer.at(2024, 5, 13).chat("I finally finished the marathon in Berlin", "ok")
    writer.at(2024, 5, 14, 3)
    backend = ScriptedBackend(['{"ops": []}', '{"ops": []}', {"events": [{"time": "09:00", "text": ids[0], "sources": [ids[0]]}]}])
    SleepJob(home, backend, clock=writer.clock, check_model=False).run()
    day = (home.digests / "day" / "2024-05-13.md").read_text(encoding="utf-8")
    assert "generator: extractive" in day and f"I finally finished the marathon in Berlin ({ids[0]})" in day


def test_undo_single_entry_and_whole_run(home: Home, writer: Writer) -> None:
    writer.at(2024, 5, 13).chat("I live in Paris.")
    writer.at(2024, 5, 14).chat("I moved to Berlin.", "I'm allergic to cats.", "I prefer tea over coffee.")
    writer.at(2024, 5, 15, 3)
    store = LongTermStore(home)
    SleepJob(home, None, clock=writer.clock).run(day=date(2024, 5, 13))
    report = SleepJob(home, None, clock=writer.clock).run()
    index = next(i for i, o in report.applied() if o.op.text == "Allergic to cats")
    assert "Undone" in undo_entry(store, report, index)
    assert "Allergic to cats" not in store.read("USER.md").body
    MemoryWriter(store).append("USER.md", "- Typed by hand", "## Profile", actor=Actor.EDITOR)  # a later edit survives the whole-run undo
    undo_run(store, report)
    body = store.read("USER.md").body
    assert "- Lives in Paris (2024-05-13#1)" in body and "Berlin" not in body and "~~" not in body
    assert "Typed by hand" in body and "Prefers tea" not in body
    assert undo_entry(store, report, index) == "Already undone."


def test_only_one_job_at_a_time(home: Home, writer: Writer, tmp_path: Path) -> None:
    writer.at(2024, 5, 13).chat("I live in Paris.", "I'm allergic to cats.")
    script = tmp_path / "hold.py"
    script.write_text(textwrap.dedent(f"""
        import sys, time
        from pathlib import Path
        from companion.paths import Home
        from companion.llm.scripted import ScriptedBackend
        from companion.sleep.job import SleepJob
        backend = ScriptedBackend(default='{{"ops": []}}', delay=0.2)
        SleepJob(Home(Path({str(home.root)!r})), backend, progress=lambda m: print(m, flush=True), check_model=False).run()
    """))
    with subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True) as proc:
        assert proc.stdout is not None and "Distilling" in proc.stdout.readline()
        with pytest.raises(SleepBusyError, match="already running"):
            SleepJob(home, None).run()
        proc.stdout.read()
        proc.wait(timeout=60)
    assert proc.returncode == 0
    assert "Lives in Paris" in (home.memory / "USER.md").read_text(encoding="utf-8")


KILL_SCRIPT = """
import os, signal, sys
from pathlib import Path
from datetime import datetime, timedelta, timezone
from companion.paths import Home
from companion.memory.longterm import LongTermStore
from companion.sleep.job import SleepJob
home = Home(Path(sys.argv[1]))
store = LongTermStore(home)
writes = []
def die(name, doc):
    writes.append(name)
    if len(writes) == int(sys.argv[2]):
        os.kill(os.getpid(), signal.SIGKILL)
store.subscribe(die)
clock = lambda: datetime(2024, 5, 16, 3, 0, tzinfo=timezone(timedelta(hours=1)))
SleepJob(home, None, clock=clock, store=store).run()
"""


@pytest.mark.parametrize("die_after_writes", [1, 2, 4])
def test_kill_9_mid_run_then_resume_without_duplicates(home: Home, writer: Writer, tmp_path: Path, die_after_writes: int) -> None:
    writer.at(2024, 5, 13).chat("I'm allergic to shellfish.", "I have a dentist appointment tomorrow.")
    writer.at(2024, 5, 14).chat("I live in Paris.", "Please be more concise.", "I've decided to learn Spanish.")
    writer.at(2024, 5, 15).chat("My sister is called Lea.", "I love hiking.")
    script = tmp_path / "kill.py"
    script.write_text(KILL_SCRIPT)
    proc = subprocess.run([sys.executable, str(script), str(home.root), str(die_after_writes)], timeout=120)
    assert proc.returncode == -signal.SIGKILL
    for name in ("USER.md", "MEMORY.md", "SOUL.md"):
        parse_document(name, (home.memory / name).read_text(encoding="utf-8"))  # still valid
    Cursor.load(home.state / "sleep_cursor.json")

    writer.at(2024, 5, 16, 3)
    SleepJob(home, None, clock=writer.clock).run()
    _all_cited_ids_exist(home)
    for name in ("USER.md", "MEMORY.md", "SOUL.md"):
        lines = [E.entry_text(l) for l in E.active_entries((home.memory / name).read_text(encoding="utf-8"))]
        assert len(lines) == len(set(lines)), name
    user = (home.memory / "USER.md").read_text(encoding="utf-8")
    for expected in ("Allergic to shellfish", "Lives in Paris", "Sister: Lea", "Likes hiking"):
        assert user.count(expected) == 1
    assert Cursor.load(home.state / "sleep_cursor.json").mark(date(2024, 5, 15)).seq == 4
    assert not list(home.memory.rglob(".tmp-*"))


def test_cancel_keeps_finished_days(home: Home, writer: Writer) -> None:
    writer.at(2024, 5, 13).chat("I'm allergic to shellfish.")
    writer.at(2024, 5, 14).chat("I live in Paris.")
    writer.at(2024, 5, 15, 3)
    job = SleepJob(home, None, clock=writer.clock)
    job.progress = lambda m: job.cancel() if "2024-05-14" in m else None
    report = job.run()
    assert report.cancelled and report.days == ["2024-05-13"]
    cursor = Cursor.load(home.state / "sleep_cursor.json")
    assert cursor.mark(date(2024, 5, 13)).seq == 2 and cursor.mark(date(2024, 5, 14)).seq == 0
    assert cursor.last_run is None  # not complete: the catch-up runs again at the next start
    assert json.loads((home.state / "sleep_cursor.json").read_text())["schema_version"] == 1
    finished = SleepJob(home, None, clock=writer.clock).run()
    assert finished.days == ["2024-05-14"]


def test_records_added_later_to_an_already_distilled_day_are_distilled_next_time(home: Home, clock) -> None:
    """An import appends older records to past days; the per-day cursor still finds them."""
    day_clock = lambda: clock.now  # noqa: E731 - the day the records belong to
    log = DayLog(home.days, day_clock)
    log.append("user", "I'm allergic to shellfish.")
    first_day = clock.now
    clock.advance(days=1)
    SleepJob(home, None, clock=clock).run()
    assert "shellfish" in LongTermStore(home).read("USER.md").body
    DayLog(home.days, lambda: first_day).append("user", "I work as a carpenter.", ref="other#7")
    SleepJob(home, None, clock=clock).run()
    assert "carpenter" in LongTermStore(home).read("USER.md").body


def test_a_read_only_file_is_skipped_and_the_rest_of_the_night_runs(home: Home, writer: Writer) -> None:
    import stat

    _two_days(writer)
    writer.at(2024, 5, 15, 3)
    user = home.memory / "USER.md"
    before = user.read_bytes()
    user.chmod(stat.S_IRUSR)
    try:
        report = SleepJob(home, None, clock=writer.clock).run()
    finally:
        user.chmod(stat.S_IRUSR | stat.S_IWUSR)
    assert user.read_bytes() == before
    assert any(o.op.file == "USER.md" and o.reason == "USER.md is read-only" for o in report.refused())
    assert "- Be more concise (2024-05-14#3)" in (home.memory / "SOUL.md").read_text(encoding="utf-8")


def test_a_reply_that_regenerate_replaced_is_not_distilled(home: Home, writer: Writer) -> None:
    writer.at(2024, 5, 13)
    writer.log.append("user", "Which wine goes with fish?")
    old = writer.log.append("assistant", "The user loves Château Margaux and drinks it daily.")
    writer.log.append("assistant", "A dry white such as Chablis.", replaces=old.id)
    writer.at(2024, 5, 14, 3)
    backend = ScriptedBackend(default='{"ops": []}')
    SleepJob(home, backend, clock=writer.clock, check_model=False).run()
    seen = "\n".join(m["content"] for prompt in backend.prompts for m in prompt)
    assert "Chablis" in seen and "Margaux" not in seen  # what the user kept is read, the replaced reply is not


def test_what_the_user_forgot_that_day_is_not_learned_again_at_night(home: Home, writer: Writer) -> None:
    writer.at(2024, 5, 13).chat("I live in Lyon.", "I play the cello.", "forget Lyon")
    writer.at(2024, 5, 14, 3)
    report = SleepJob(home, None, clock=writer.clock).run()
    body = LongTermStore(home).read("USER.md").body
    assert "Lyon" not in body and "Plays the cello" in body
    assert "Lyon" not in json.dumps([o.to_dict() for o in report.outcomes])
