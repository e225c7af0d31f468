"""`companion eval DATASET.json`: measure how well memory recalls a dated conversation (in a temporary home)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from companion.evaluation.harness import evaluate, format_table, load_dataset
from companion.errors import CompanionError


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("eval", help="measure memory recall on a dated conversation dataset")
    parser.add_argument("dataset", type=Path, help="dataset JSON: days of turns and questions with evidence")
    parser.add_argument("--budget", type=int, action="append", help="memory budget in tokens (repeatable; default 1024)")
    parser.add_argument("--sleep", action="store_true", help="run the sleep job after each day, as at night")
    parser.add_argument("--baseline", action="store_true", help="also report plain BM25 over raw turns (the floor)")
    parser.add_argument("--model", metavar="PATH", help="GGUF model: count tokens with it (and sleep with it)")
    parser.add_argument("--json", metavar="FILE", type=Path, help="also write the results, with each question's hits, as JSON to FILE ('-': stdout)")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    dataset = load_dataset(args.dataset)
    budgets = args.budget or [1024]
    if any(b < 64 for b in budgets):
        raise CompanionError("--budget must be at least 64 tokens.")
    backend = None
    if args.model:
        from companion.llm.loader import load_backend
        from companion.settings import ModelSettings

        backend = load_backend(ModelSettings(), args.model)
    progress = lambda message: print(message, file=sys.stderr, flush=True)  # noqa: E731
    reports = []
    try:
        for budget in budgets:
            reports.append(evaluate(dataset, budget=budget, sleep=args.sleep, backend=backend, progress=progress))
            if args.baseline:
                reports.append(evaluate(dataset, budget=budget, baseline=True, backend=backend))
    finally:
        if backend is not None:
            backend.close()
    counting = "the model's tokenizer" if backend is not None else "an estimate (1 per CJK character, 4 characters otherwise)"
    print(f"Tokens counted with {counting}.", file=sys.stderr)
    print(format_table(reports))
    if args.json:
        text = json.dumps([r.to_dict(questions=True) for r in reports], ensure_ascii=False, indent=2)
        if str(args.json) == "-":
            print(text)
        else:
            args.json.write_text(text + "\n", encoding="utf-8")
    return 0
