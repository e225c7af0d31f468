"""Convert one LoCoMo conversation (data/locomo10.json of snap-research/LoCoMo) to the `companion eval` format.

    python bench/locomo_to_eval.py /tmp/locomo10.json conv-26 > /tmp/conv-26.json

speaker_a speaks as the user, speaker_b as the assistant; each session's date is its day (two
sessions on one day share it); `dia_id` becomes the turn's `ref`; a shared photo is kept as its
caption. Questions are asked the day after the last session. Categories: 1 multi-hop, 2 temporal,
3 open-domain, 4 single-hop, 5 adversarial (no answer: the evidence still counts). The speakers'
names go to `names`, which the harness writes to USER.md and SOUL.md as the app's settings would.
LoCoMo is CC BY-NC: keep converted files out of the repository.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
_SESSION = re.compile(r"^session_(\d+)$")


def session_start(stamp: str) -> datetime:
    """'1:56 pm on 8 May, 2023' -> a datetime."""
    return datetime.strptime(" ".join(stamp.replace(",", "").split()), "%I:%M %p on %d %B %Y")


def turn_text(turn: dict[str, Any]) -> str:
    text = str(turn.get("text", "")).strip()
    caption = turn.get("blip_caption")
    if caption:
        text = f"{text} [shares a photo: {caption}]".strip()
    return text


def convert(sample: dict[str, Any]) -> dict[str, Any]:
    conversation = sample["conversation"]
    roles = {conversation["speaker_a"]: "user", conversation["speaker_b"]: "assistant"}
    numbers = sorted(int(m.group(1)) for k in conversation if (m := _SESSION.match(k)))
    days: dict[str, list[dict[str, Any]]] = {}
    last = None
    for number in numbers:
        start = session_start(conversation[f"session_{number}_date_time"])
        last = start if last is None or start > last else last
        turns = days.setdefault(start.date().isoformat(), [])
        for offset, turn in enumerate(conversation[f"session_{number}"]):
            at = start + timedelta(minutes=offset)
            turns.append({
                "role": roles[turn["speaker"]],
                "text": turn_text(turn),
                "time": at.strftime("%H:%M") if at.date() == start.date() else "23:59",
                "ref": turn["dia_id"],
            })
    if last is None:
        raise ValueError(f"{sample.get('sample_id')} has no sessions")
    asked = (last.date() + timedelta(days=1)).isoformat()
    refs = {t["ref"] for turns in days.values() for t in turns}
    questions = []
    for qa in sample["qa"]:
        evidence = [r for r in _refs(qa.get("evidence", [])) if r in refs]
        questions.append({
            "question": qa["question"],
            "answer": str(qa.get("answer", "")),
            "evidence": evidence,
            "asked_on": asked,
            "category": CATEGORIES.get(int(qa["category"]), str(qa["category"])),
        })
    return {
        "name": f"locomo-{sample['sample_id']}",
        "names": {"user": conversation["speaker_a"], "assistant": conversation["speaker_b"]},
        "days": [{"date": day, "turns": turns} for day, turns in sorted(days.items())],
        "questions": questions,
    }


def _refs(raw: list[str]) -> list[str]:
    """Evidence ids, split where the source joins several in one string ('D8:6; D9:17')."""
    found: list[str] = []
    for entry in raw:
        found.extend(r for r in re.findall(r"D\d+:\d+", str(entry)) if r not in found)
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("source", type=Path, help="locomo10.json")
    parser.add_argument("sample", help="the conversation's sample_id, e.g. conv-26")
    args = parser.parse_args()
    samples = json.loads(args.source.read_text(encoding="utf-8"))
    chosen = [s for s in samples if s.get("sample_id") == args.sample]
    if not chosen:
        print(f"{args.sample} is not in {args.source}", file=sys.stderr)
        return 1
    json.dump(convert(chosen[0]), sys.stdout, ensure_ascii=False, indent=1)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
