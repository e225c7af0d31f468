"""Print, per category, how the rule path treats the labelled statements: correct, wrongly stored, wrongly missed.

    python bench/curation_report.py [tests/data/curation_statements.json] [--failures]
"""

from __future__ import annotations

import sys
from pathlib import Path

from companion.evaluation.curation import by_category, load, run_all

DEFAULT = Path(__file__).resolve().parents[1] / "tests" / "data" / "curation_statements.json"


def main(argv: list[str]) -> int:
    paths = [Path(a) for a in argv if not a.startswith("--")]
    results = run_all(load(paths[0] if paths else DEFAULT))
    table = by_category(results)
    print(f"{'category':<14}{'total':>6}{'correct':>9}{'%':>6}{'wrongly stored':>16}{'wrongly missed':>16}")
    for category in sorted(table):
        row = table[category]
        share = 100 * row["correct"] / row["total"]
        print(f"{category:<14}{row['total']:>6}{row['correct']:>9}{share:>6.0f}{row['wrongly_stored']:>16}{row['wrongly_missed']:>16}")
    total = sum(r["total"] for r in table.values())
    correct = sum(r["correct"] for r in table.values())
    print(f"{'all':<14}{total:>6}{correct:>9}{100 * correct / total:>6.0f}")
    if "--failures" in argv:
        for result in results:
            if not result.correct:
                s = result.statement
                print(f"\n[{s.category}/{s.lang}] {s.text!r}\n  new: {result.new}\n  wrongly stored: {result.wrongly_stored}\n  missed: {result.missed}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
