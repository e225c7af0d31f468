"""Convert LongMemEval question files (one question and its haystack each) to `companion eval` datasets.

    python bench/lme_to_eval.py OUT_DIR QUESTION.json [QUESTION.json ...]

Each haystack session becomes the turns of its day (sessions on one day share it, in order); a turn
marked `has_answer` is the question's evidence; the question is asked on its `question_date`.
Use LongMemEval_S files (38-58 sessions): the oracle-sized ones hold only the answer sessions.
The data is not ours to redistribute: keep converted files out of the repository.
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import datetime
from pathlib import Path
from typing import Any


def stamp(text: str) -> datetime:
    """'2023/05/21 (Sun) 19:50' -> a datetime."""
    day, _, rest = text.partition(" (")
    clock = rest.partition(") ")[2] or "00:00"
    return datetime.strptime(f"{day} {clock}", "%Y/%m/%d %H:%M")


def convert(data: dict[str, Any]) -> dict[str, Any]:
    days: dict[str, list[dict[str, Any]]] = {}
    evidence: list[str] = []
    sessions = sorted(zip(data["haystack_dates"], data["haystack_session_ids"], data["haystack_sessions"]),
                      key=lambda s: stamp(s[0]))
    for when, session_id, turns in sessions:
        start = stamp(when)
        day = days.setdefault(start.date().isoformat(), [])
        for number, turn in enumerate(turns):
            if turn.get("role") not in ("user", "assistant") or not str(turn.get("content", "")).strip():
                continue
            ref = f"{session_id}:{number}"
            day.append({"role": turn["role"], "text": str(turn["content"]), "time": start.strftime("%H:%M"), "ref": ref})
            if turn.get("has_answer"):
                evidence.append(ref)
    asked = stamp(data["question_date"]).date().isoformat()
    return {
        "name": f"lme-{data['question_id']}",
        "days": [{"date": d, "turns": t} for d, t in sorted(days.items())],
        "questions": [{"question": data["question"], "answer": str(data["answer"]), "evidence": evidence,
                       "asked_on": asked, "category": data["question_type"]}],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", type=Path)
    parser.add_argument("files", nargs="+", type=Path)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    for path in args.files:
        converted = convert(json.loads(path.read_text(encoding="utf-8")))
        target = args.out / f"{converted['name']}.json"
        target.write_text(json.dumps(converted, ensure_ascii=False), encoding="utf-8")
        print(target, len(converted["questions"][0]["evidence"]), "evidence turns", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
