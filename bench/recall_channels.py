"""Recall by channel: words only, meaning only, and both fused, per category, at several budgets.

    python bench/recall_channels.py DATASET.json [DATASET.json ...] [--budgets 512,1024,2048]
        [--modes lexical,semantic,fused,bm25] [--json OUT.json]

Each dataset is a `companion eval` file (bench/locomo_to_eval.py makes them). "bm25" is the plain
BM25 floor over raw turns. The meaning channel uses the built-in multilingual embedder; the table
shows EvR, AnsHit and the recall block's mean size in tokens.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from companion.evaluation.harness import Report, evaluate_grid, format_table, load_dataset  # noqa: E402
from companion.llm.embed import BuiltinEmbedder  # noqa: E402
from companion.memory.search import RankSettings  # noqa: E402

MODES = {
    "lexical": RankSettings(semantic=False),
    "semantic": RankSettings(lexical=False),
    "fused": RankSettings(),
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("datasets", nargs="+", type=Path)
    parser.add_argument("--budgets", default="512,1024,2048")
    parser.add_argument("--modes", default="lexical,semantic,fused,bm25")
    parser.add_argument("--set", action="append", default=[], help="RankSettings field=value for every mode")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    embedder = BuiltinEmbedder()
    overrides = {}
    for pair in args.set:
        name, _, value = pair.partition("=")
        default = getattr(RankSettings(), name)
        overrides[name] = float(value) if default is None else type(default)(value)
    reports: list[Report] = []
    modes = {m: (None if m == "bm25" else dataclasses.replace(MODES[m], **overrides)) for m in args.modes.split(",")}
    budgets = [int(b) for b in args.budgets.split(",")]
    for path in args.datasets:
        started = time.perf_counter()
        reports.extend(evaluate_grid(load_dataset(path), budgets, modes, embedder=embedder,
                                     progress=lambda line: print(line, file=sys.stderr, flush=True)))
        print(f"{path.name}: {time.perf_counter() - started:.0f} s", file=sys.stderr, flush=True)
    print(format_table(reports))
    if args.json:
        args.json.write_text(json.dumps([r.to_dict(questions=True) for r in reports], ensure_ascii=False, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
