"""`companion search` and `companion eval` from the command line."""

from __future__ import annotations

import pytest

import json
from datetime import datetime, timezone
from pathlib import Path

from companion.cli import main
from companion.memory.daylog import DayLog

DATA = Path(__file__).resolve().parent.parent / "data"


def test_search_prints_dated_hits_and_json(home, capsys):
    log = DayLog(home.days, lambda: datetime(2024, 3, 1, 9, tzinfo=timezone.utc))
    log.append("user", "我今天喝了一杯咖啡")
    log.append("user", "Coffee with Anna in Lisbon")
    assert main(["search", "咖啡"]) == 0
    out = capsys.readouterr().out
    assert "2024-03-01" in out and "days/2024-03/2024-03-01.jsonl  2024-03-01#1" in out and "咖啡" in out
    assert main(["search", "lisbon", "--json", "--kind", "turn", "--since", "2024-03-01"]) == 0
    hits = json.loads(capsys.readouterr().out)
    assert hits[0]["id"] == "2024-03-01#2" and hits[0]["score"] > 0
    assert main(["search", "nothing-like-this"]) == 1
    assert main(["search", "lisbon", "--until", "2024-02-01", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == []


@pytest.mark.slow
def test_eval_command_writes_a_table_and_json(tmp_path, capsys):
    out = tmp_path / "result.json"
    assert main(["eval", str(DATA / "recall_weeks.json"), "--budget", "512", "--baseline", "--json", str(out)]) == 0
    table = capsys.readouterr().out
    assert "recall" in table and "baseline" in table and "EvR" in table
    results = json.loads(out.read_text(encoding="utf-8"))
    assert [r["mode"] for r in results] == ["recall", "baseline"]
    assert results[0]["overall"]["questions"] >= 30
    assert results[0]["overall"]["EvR"] >= results[1]["overall"]["EvR"]


def test_eval_of_a_missing_dataset_is_a_clear_error(tmp_path, capsys):
    assert main(["eval", str(tmp_path / "missing.json")]) == 1
    assert "does not exist" in capsys.readouterr().err


def test_stored_text_cannot_drive_the_terminal(home, capsys):
    log = DayLog(home.days, lambda: datetime(2024, 3, 1, 9, tzinfo=timezone.utc))
    log.append("user", "clipboard \x1b]52;c;cm0gLXJmIH4=\x07 and \x1b[2J\x9b1m screen")
    for argv in (["search", "clipboard"], ["search", "clipboard", "--json"]):
        assert main(argv) == 0
        captured = capsys.readouterr()
        assert "clipboard" in captured.out
        assert not any(ch in captured.out + captured.err for ch in "\x1b\x07\x9b")
