"""Recall@k on a dataset for several rankings: no decay, decay as a multiplier, the final blend.

    python bench/recall_harness.py [tests/data/recall_long.json] [--show-misses]

Recall@k: the share of a question's evidence turns among the top k results (mean over questions
that have evidence). Then the harness figures (EvR/Full/AnsHit) at budgets 512/1024/2048.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from companion.evaluation.harness import _Clock, evaluate, format_table, ingest, load_dataset  # noqa: E402
from companion.memory.search import RankSettings, SearchQuery, open_index, search  # noqa: E402
from companion.memory.setup import ensure_home  # noqa: E402
from companion.paths import Home  # noqa: E402

RANKINGS = {
    "bm25 only": RankSettings(decay="none", hit_weight=0, same_day_penalty=1.0, typo_terms=0, entry_boost=1.0),
    "decay x (30d)": RankSettings(decay="multiply", half_life_days=30),
    "decay x (7d)": RankSettings(decay="multiply", half_life_days=7),
    "no decay": RankSettings(decay="none"),
    "final (blend)": RankSettings(),
}
KS = (1, 3, 5, 10, 20)


def main() -> None:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    path = Path(args[0] if args else "tests/data/recall_long.json")
    dataset = load_dataset(path)
    with tempfile.TemporaryDirectory() as folder:
        home = Home(Path(folder))
        ensure_home(home)
        ids = ingest(home, dataset, _Clock())
        index = open_index(home)
        questions = [q for q in dataset.questions if q.evidence]
        print(f"{dataset.name}: {len(questions)} questions with evidence, {index.count()} items")
        print(f"{'ranking':<16}" + "".join(f"{'R@' + str(k):>8}" for k in KS))
        for name, settings in RANKINGS.items():
            scores = {k: [] for k in KS}
            for question in questions:
                hits = search(index, SearchQuery(question.question, k=max(KS), today=question.asked_on), settings)
                found = [h.item.locator for h in hits]
                wanted = {ids[r] for r in question.evidence}
                for k in KS:
                    scores[k].append(len(wanted & set(found[:k])) / len(wanted))
                if "--show-misses" in sys.argv and name == "final (blend)" and not wanted <= set(found[:10]):
                    print(f"   miss: {question.question} -> {[h.item.text[:40] for h in hits[:3]]}")
            print(f"{name:<16}" + "".join(f"{statistics.fmean(scores[k]):>8.3f}" for k in KS))
        index.close()
    reports = []
    for budget in (512, 1024, 2048):
        reports.append(evaluate(dataset, budget=budget))
        reports.append(evaluate(dataset, budget=budget, baseline=True))
    print()
    print("\n".join(line for line in format_table(reports).splitlines() if " ALL " in line or line.startswith(("dataset", "-"))))


if __name__ == "__main__":
    main()
