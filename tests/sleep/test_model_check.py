"""The night's model path runs only where it adds something: weak models and failed probes fall back to rules, said in the report."""

from __future__ import annotations

import pytest

from companion.llm.scripted import ScriptedBackend
from companion.paths import Home
from companion.sleep.job import SleepJob
from companion.sleep.model_check import PROBE_DAY, known_too_weak, skip_reason
from companion.sleep.distill import ModelStats
from companion.sleep.report import ReportStore, SleepReport
from tests.sleep.conftest import Writer

GOOD_PROBE_ANSWER = {"ops": [{"op": "add", "section": "Profile", "text": "Allergic to peanuts", "sources": [f"{PROBE_DAY}#3"]}]}


def _night(home: Home, writer: Writer, backend: ScriptedBackend) -> SleepReport:
    writer.at(2024, 5, 13).chat("I'm allergic to shellfish.", "My sister is called Lea.")
    writer.at(2024, 5, 14, 3)
    return SleepJob(home, backend, clock=writer.clock).run()


def test_a_model_on_the_too_weak_list_is_not_asked_at_all(home: Home, writer: Writer) -> None:
    backend = ScriptedBackend()
    backend.info.name = "SmolLM2 135M Instruct"
    report = _night(home, writer, backend)
    assert backend.prompts == []
    assert report.notes == ["Rules only: SmolLM2 135M Instruct is too small to distill memory reliably."]
    assert "Allergic to shellfish" in (home.memory / "USER.md").read_text(encoding="utf-8")  # the rules did the work
    rendered = report.render()
    assert "## Cost\n- Rules only: SmolLM2 135M Instruct is too small" in rendered and "Whole run:" in rendered
    assert ReportStore(home).load(report.id).notes == report.notes


@pytest.mark.parametrize(
    ("answer", "why"),
    [("Sure! Here are the facts.", "not valid JSON"), ({"ops": []}, "named none of the facts"),
     ({"ops": [{"op": "add", "section": "Profile", "text": "Likes the weather", "sources": [f"{PROBE_DAY}#1"]}]}, "named none")],
)
def test_a_model_that_fails_the_probe_is_skipped_after_one_call(home: Home, writer: Writer, answer: object, why: str) -> None:
    backend = ScriptedBackend([answer], default='{"ops": []}')
    report = _night(home, writer, backend)
    assert len(backend.prompts) == 1  # the probe only
    assert len(report.notes) == 1 and why in report.notes[0] and report.notes[0].startswith("Rules only: scripted failed")
    assert set(report.stats["per_file"]) == {"check"}
    assert "Allergic to shellfish" in (home.memory / "USER.md").read_text(encoding="utf-8")


def test_a_model_that_passes_gets_the_night_and_the_cost_per_file_is_reported(home: Home, writer: Writer) -> None:
    backend = ScriptedBackend([GOOD_PROBE_ANSWER], default='{"ops": []}')
    report = _night(home, writer, backend)
    assert report.notes == []
    per_file = report.stats["per_file"]
    assert set(per_file) == {"check", "USER.md", "MEMORY.md", "digests"}
    assert per_file["USER.md"]["calls"] == 1 and per_file["USER.md"]["prompt_tokens"] > 50
    assert report.stats["calls"] == 4 and report.stats["seconds_total"] >= report.stats["seconds"]
    rendered = report.render()
    assert "- USER.md: " in rendered and " prompt + " in rendered and "- Model check: " in rendered


def test_no_conversation_no_probe(home: Home, writer: Writer) -> None:
    writer.log.append("event", "The app started.")
    writer.at(2024, 5, 14, 3)
    backend = ScriptedBackend()
    report = SleepJob(home, backend, clock=writer.clock).run()
    assert backend.prompts == [] and report.notes == []


def test_a_usable_probe_answer_passes_and_is_counted() -> None:
    backend = ScriptedBackend([GOOD_PROBE_ANSWER])
    stats = ModelStats()
    assert skip_reason(backend, stats) is None
    assert stats.calls == 1 and stats.generated_tokens > 0
    assert backend.options[0].json_schema is not None


@pytest.mark.model
def test_the_embedded_model_is_known_too_weak(tiny_backend: object) -> None:
    assert known_too_weak(tiny_backend)  # type: ignore[arg-type]
    assert not known_too_weak(ScriptedBackend())
