"""Reliability figures: crash-loop iterations and violations, race writes and lost writes,
fuzz examples per target, hostile-corpus cases and failures.

    .venv/bin/python bench/reliability_report.py [--seconds 30] [--examples 500] [--model]

Longer than the test suite's bounded runs; every figure should read 0 violations / 0 lost / 0 failures.
"""

from __future__ import annotations

import argparse
import importlib
import json
import logging
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TESTS = ROOT / "tests" / "reliability"
HARNESS = TESTS / "reliability_harness.py"


def harness(*args: str) -> dict:
    done = subprocess.run([sys.executable, str(HARNESS), *args], capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def crash_loops(seconds: float, scratch: Path) -> int:
    bad = 0
    print(f"{'crash loop':<22}{'iterations':>11}{'violations':>11}  details")
    for target in ("daylog", "longterm", "sleep", "export", "import"):
        result = harness("crash", target, str(scratch / f"crash-{target}" / "home"), "--iterations", "100000",
                         "--seconds", str(seconds))
        bad += result["violations"]
        details = {k: v for k, v in result["details"].items() if k != "seed"}
        print(f"{target:<22}{result['iterations']:>11}{result['violations']:>11}  {details}")
        for problem in result["problems"]:
            print(f"    {problem}")
    return bad


def races(count: int, scratch: Path) -> int:
    bad = 0
    print(f"\n{'race':<22}{'writes':>11}{'lost':>11}  details")
    for kind in ("threads", "processes"):
        result = harness("race", kind, str(scratch / f"race-{kind}" / "home"), "--iterations", str(count))
        lost = result["details"]["lost writes"]
        bad += lost + result["violations"]
        extra = {k: v for k, v in result["details"].items() if k not in ("seed", "writes", "lost writes")}
        print(f"{kind:<22}{result['details']['writes']:>11}{lost:>11}  {extra}")
    return bad


def fuzz(examples: int) -> int:
    os.environ["COMPANION_FUZZ_EXAMPLES"] = str(examples)
    sys.path.insert(0, str(TESTS))
    failures = 0
    print(f"\n{'fuzz target':<32}{'examples':>9}{'failed':>8}")
    for module_name in ("test_fuzz_parsers", "test_fuzz_importers"):
        failures += _fuzz_module(importlib.import_module(module_name))
    return failures


def _fuzz_module(module: object) -> int:
    failures = 0
    for name in sorted(n for n in dir(module) if n.startswith("test_")):
        before = dict(module.EXAMPLES)
        failed = 0
        try:
            getattr(module, name)()
        except Exception as exc:  # noqa: BLE001 - reported, counted
            failed = 1
            print(f"    {name}: {type(exc).__name__}: {str(exc)[:300]}")
        failures += failed
        for target, total in module.EXAMPLES.items():
            if total != before.get(target, 0):
                print(f"{target:<32}{total - before.get(target, 0):>9}{failed:>8}")
    return failures


def _real_model_cases(clock_cls: type) -> list:
    """(label, run) pairs on the embedded model: the corpus, then a night's sleep over it."""
    from hostile_corpus import REAL_MODEL_MESSAGES, CorpusResult, run_corpus

    from companion.llm.default_model import default_model_path
    from companion.llm.llama import LlamaBackend
    from companion.curate.sensitive import find_sensitive
    from companion.settings import Settings
    from companion.sleep.job import SleepJob

    backend = LlamaBackend(default_model_path(), n_ctx=2048)
    settings = Settings()
    settings.model.max_reply_tokens = 8

    def sleep_run(home):  # noqa: ANN001, ANN202
        clock = clock_cls()
        try:
            corpus = run_corpus(home, lambda: backend, clock, messages=REAL_MODEL_MESSAGES, settings=settings)
            soul = home.long_term("SOUL.md").read_bytes()
            clock.advance(days=1)
            SleepJob(home, backend, clock=clock).run()
        finally:
            backend.close()
        result = CorpusResult(cases=corpus.cases + 1, failures=list(corpus.failures))
        if home.long_term("SOUL.md").read_bytes() != soul:
            result.fail("sleep", "SOUL.md changed")
        for name in ("SOUL.md", "USER.md", "MEMORY.md"):
            if find_sensitive(home.long_term(name).read_text(encoding="utf-8", errors="replace")):
                result.fail("sleep", f"{name} holds a secret")
        return result

    return [("messages + sleep, real model", sleep_run)]


def hostile(scratch: Path, with_model: bool) -> int:
    sys.path.insert(0, str(TESTS))
    sys.path.insert(0, str(ROOT / "tests"))
    from conftest import FakeClock
    from hostile_corpus import run_corpus, run_escape_calls

    from companion.llm.scripted import ScriptedBackend
    from companion.memory.setup import ensure_home
    from companion.paths import Home

    print(f"\n{'hostile corpus':<28}{'cases':>9}{'failures':>10}{'seconds':>9}")
    bad = 0
    cases = [
        ("messages, scripted model", lambda h: run_corpus(h, lambda: ScriptedBackend(supports_tools=True), FakeClock())),
        ("obedient escaping calls", lambda h: run_escape_calls(h, FakeClock())),
    ]
    if with_model:
        cases += _real_model_cases(FakeClock)
    for label, run in cases:
        home = Home(scratch / label.replace(" ", "-").replace(",", "") / "home")
        ensure_home(home)
        started = time.perf_counter()
        result = run(home)
        bad += len(result.failures)
        print(f"{label:<28}{result.cases:>9}{len(result.failures):>10}{time.perf_counter() - started:>9.1f}")
        for failure in result.failures:
            print(f"    {failure}")
    return bad


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=30.0, help="per crash loop")
    parser.add_argument("--races", type=int, default=50, help="writes per writer in the races")
    parser.add_argument("--examples", type=int, default=500, help="Hypothesis examples per fuzz target")
    parser.add_argument("--model", action="store_true", help="also run the hostile corpus and a sleep on the embedded model (minutes)")
    args = parser.parse_args()
    logging.disable(logging.WARNING)
    with tempfile.TemporaryDirectory(prefix="companion-reliability-") as folder:
        scratch = Path(folder)
        bad = crash_loops(args.seconds, scratch)
        bad += races(args.races, scratch)
        bad += fuzz(args.examples)
        bad += hostile(scratch, args.model)
    print(f"\ntotal violations, lost writes and failures: {bad}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
