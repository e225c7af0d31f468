"""The memory-quality harness, checked on a dataset small enough to compute by hand."""

from __future__ import annotations

import json

import pytest

from companion.evaluation.harness import evaluate, format_table, load_dataset, normalize
from companion.errors import DatasetError

TINY = {
    "name": "tiny",
    "days": [
        {"date": "2024-03-01", "turns": [
            {"ref": "a", "role": "user", "text": "My sister Anna lives in Lisbon.", "time": "09:00"},
            {"role": "assistant", "text": "Nice city!"},
        ]},
        {"date": "2024-03-02", "turns": [
            {"ref": "b", "role": "user", "text": "Our dog is called Biscuit.", "time": "10:00"},
        ]},
        {"date": "2024-03-03", "turns": [
            {"ref": "c", "role": "user", "text": "我最喜欢的茶是铁观音。", "time": "10:05"},
        ]},
    ],
    "questions": [
        # found: evidence a, answer in the context
        {"question": "Where does my sister live?", "answer": "Lisbon", "evidence": ["a"], "asked_on": "2024-04-01",
         "category": "single"},
        # half found: b matches 'dog', c (about tea) matches nothing; the answer is in b
        {"question": "What are my dog and my hamster called?", "answer": "Biscuit", "evidence": ["b", "c"],
         "asked_on": "2024-04-01", "category": "multi"},
        # nothing matches at all
        {"question": "Which football team do I support?", "answer": "", "evidence": [], "asked_on": "2024-04-01",
         "category": "absent"},
    ],
}


@pytest.fixture
def tiny(tmp_path):
    path = tmp_path / "tiny.json"
    path.write_text(json.dumps(TINY, ensure_ascii=False), encoding="utf-8")
    return load_dataset(path)


def test_metrics_match_the_hand_computed_values(tiny):
    report = evaluate(tiny, budget=512)
    data = report.to_dict()
    overall = data["overall"]
    assert overall["questions"] == 3
    assert overall["EvR"] == pytest.approx((1.0 + 0.5) / 2)  # the absent question has no evidence
    assert overall["Full"] == pytest.approx(0.5)
    assert overall["AnsHit"] == pytest.approx(1.0)
    assert data["categories"]["multi"]["EvR"] == pytest.approx(0.5)
    assert overall["context_tokens"] <= 512 and overall["p95_ms"] is not None
    assert data["coverage"] is None and data["memory_tokens"] > 0
    table = format_table([report])
    assert "single" in table and "ALL" in table


def test_baseline_runs_on_the_same_dataset(tiny):
    report = evaluate(tiny, budget=512, baseline=True)
    assert report.mode == "baseline"
    assert report.to_dict()["overall"]["EvR"] == pytest.approx(0.75)


def test_a_tight_budget_leaves_things_out(tiny):
    report = evaluate(tiny, budget=64)
    assert all(a.tokens <= 64 for a in report.answers)


def test_answers_compare_normalized():
    assert normalize("Le  Guin!") == "le guin" and normalize("2024-03-01") == "2024 03 01"


def test_bad_datasets_are_clear_errors(tmp_path):
    with pytest.raises(DatasetError, match="does not exist"):
        load_dataset(tmp_path / "none.json")
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({**TINY, "questions": [{**TINY["questions"][0], "evidence": ["zzz"]}]}), encoding="utf-8")
    with pytest.raises(DatasetError, match="unknown evidence refs"):
        load_dataset(bad)
