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


def test_each_question_lists_its_hits(tiny):
    questions = evaluate(tiny, budget=512).to_dict(questions=True)["questions"]
    first = questions[0]
    assert first["question"] == "Where does my sister live?" and first["found"] == ["a"] and first["answer_hit"] is True
    assert first["shown"][0] == "a" and first["tokens"] > 0 and first["ms"] >= 0
    assert questions[1]["found"] == ["b"] and questions[2]["found"] == [] and questions[2]["answer_hit"] is None


def test_speaker_names_go_where_preferences_put_them(tmp_path):
    data = dict(TINY, names={"user": "Anna", "assistant": "Rosa"})
    path = tmp_path / "named.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    dataset = load_dataset(path)
    assert dataset.names == {"user": "Anna", "assistant": "Rosa"}
    assert evaluate(dataset, budget=512).to_dict()["overall"]["EvR"] == pytest.approx(0.75)
    path.write_text(json.dumps(dict(TINY, names={"narrator": "X"})), encoding="utf-8")
    with pytest.raises(DatasetError, match="names"):
        load_dataset(path)


def test_a_locomo_shaped_conversation_converts(tmp_path):
    """bench/locomo_to_eval.py on a made-up sample with LoCoMo's field names."""
    import importlib.util
    from pathlib import Path

    spec = importlib.util.spec_from_file_location("locomo_to_eval", Path(__file__).parents[2] / "bench" / "locomo_to_eval.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    sample = {
        "sample_id": "made-up",
        "conversation": {
            "speaker_a": "Ivo", "speaker_b": "Mara",
            "session_1_date_time": "9:05 am on 3 March, 2024",
            "session_1": [
                {"speaker": "Ivo", "dia_id": "D1:1", "text": "Planted tomatoes yesterday."},
                {"speaker": "Mara", "dia_id": "D1:2", "text": "Lovely! Which kind?", "blip_caption": "a photo of seedlings"},
            ],
            "session_2_date_time": "6:40 pm on 3 March, 2024",
            "session_2": [{"speaker": "Ivo", "dia_id": "D2:1", "text": "San Marzano, from my aunt."}],
        },
        "qa": [
            {"question": "When did Ivo plant tomatoes?", "answer": "2 March 2024", "evidence": ["D1:1"], "category": 2},
            {"question": "What kind did Ivo plant?", "answer": "San Marzano", "evidence": ["D1:2; D2:1"], "category": 1},
            {"question": "What did Mara plant?", "evidence": ["D1:2"], "category": 5, "adversarial_answer": "tomatoes"},
        ],
    }
    converted = module.convert(sample)
    assert converted["names"] == {"user": "Ivo", "assistant": "Mara"}
    [day] = converted["days"]  # two sessions on one day share it
    assert day["date"] == "2024-03-03" and [t["ref"] for t in day["turns"]] == ["D1:1", "D1:2", "D2:1"]
    assert [t["time"] for t in day["turns"]] == ["09:05", "09:06", "18:40"]
    assert day["turns"][1] == {"role": "assistant", "text": "Lovely! Which kind? [shares a photo: a photo of seedlings]",
                               "time": "09:06", "ref": "D1:2"}
    questions = converted["questions"]
    assert [q["category"] for q in questions] == ["temporal", "multi-hop", "adversarial"]
    assert questions[1]["evidence"] == ["D1:2", "D2:1"] and questions[2]["answer"] == ""
    assert {q["asked_on"] for q in questions} == {"2024-03-04"}
    path = tmp_path / "made-up.json"
    path.write_text(json.dumps(converted), encoding="utf-8")
    assert evaluate(load_dataset(path), budget=512).to_dict()["overall"]["questions"] == 3
