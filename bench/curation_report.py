"""Print, per category, how the rule path treats the labelled statements: correct, wrongly stored, wrongly missed.

    python bench/curation_report.py [tests/data/curation_statements.json ...] [--failures] [--by-language]

`--by-language`: per category and language, the expected entries (facts and supersessions) learned and
missed, the entries wrongly stored, and the statements that must store nothing kept out.
"""

from __future__ import annotations

import sys
from pathlib import Path

from companion.evaluation.curation import Result, by_category, by_category_language, load, run_all

DEFAULT = Path(__file__).resolve().parents[1] / "tests" / "data" / "curation_statements.json"


def _print_categories(results: list[Result]) -> None:
    table = by_category(results)
    print(f"{'category':<14}{'total':>6}{'correct':>9}{'%':>6}{'wrongly stored':>16}{'wrongly missed':>16}")
    for category in sorted(table):
        row = table[category]
        share = 100 * row["correct"] / row["total"]
        print(f"{category:<14}{row['total']:>6}{row['correct']:>9}{share:>6.0f}{row['wrongly_stored']:>16}{row['wrongly_missed']:>16}")
    total = sum(r["total"] for r in table.values())
    correct = sum(r["correct"] for r in table.values())
    print(f"{'all':<14}{total:>6}{correct:>9}{100 * correct / total:>6.0f}")


def _print_languages(results: list[Result]) -> None:
    table = by_category_language(results)
    print(f"{'category/lang':<18}{'stmts':>6}{'facts':>6}{'learned':>8}{'missed':>7}{'wrong':>6}{'keep-out':>9}{'kept':>5}")
    sums = {k: 0 for k in ("statements", "facts", "learned", "missed", "wrongly_stored", "keep_out", "kept_out")}
    for (category, lang), row in sorted(table.items()):
        for key in sums:
            sums[key] += row[key]
        print(f"{category + '/' + lang:<18}{row['statements']:>6}{row['facts']:>6}{row['learned']:>8}{row['missed']:>7}"
              f"{row['wrongly_stored']:>6}{row['keep_out']:>9}{row['kept_out']:>5}")
    facts, keep = max(sums["facts"], 1), max(sums["keep_out"], 1)
    print(f"{'all':<18}{sums['statements']:>6}{sums['facts']:>6}{sums['learned']:>8}{sums['missed']:>7}"
          f"{sums['wrongly_stored']:>6}{sums['keep_out']:>9}{sums['kept_out']:>5}")
    print(f"facts learned {100 * sums['learned'] / facts:.0f}%, must-store-nothing kept out {100 * sums['kept_out'] / keep:.0f}%,"
          f" {sums['wrongly_stored']} entries wrongly stored")


def main(argv: list[str]) -> int:
    paths = [Path(a) for a in argv if not a.startswith("--")] or [DEFAULT]
    results = run_all([s for path in paths for s in load(path)])
    (_print_languages if "--by-language" in argv else _print_categories)(results)
    if "--failures" in argv:
        for result in results:
            if not result.correct:
                s = result.statement
                print(f"\n[{s.category}/{s.lang}] {s.text!r}\n  new: {result.new}\n  wrongly stored: {result.wrongly_stored}\n  missed: {result.missed}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
