"""How fast a model would answer on this machine: a short benchmark of the built-in model, scaled by size and GPU share."""

from __future__ import annotations

import json
import logging
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Callable

from companion.atomic import atomic_write
from companion.llm.base import Backend, GenerationOptions
from companion.llm.default_model import default_model_path
from companion.llm.hardware import VRAM_RESERVE, Capabilities

log = logging.getLogger(__name__)

# A comfortable reading pace is about 4 English words a second (240 a minute); at about 0.75 words a token
# that is 5 tokens a second. A model that answers slower than this makes the user wait on every line.
READING_PACE_TPS = 5.0
WORDS_PER_TOKEN = 0.75  # English text in the tokenizers of the curated models
HANZI_PER_TOKEN = 1.0  # Chinese: about one character a token (Qwen and Gemma vocabularies hold many whole words)
# Without a measurement on the GPU itself: how much faster than this CPU a GPU reads the weights
# (memory bandwidth: a dedicated card's 200-1000 GB/s against a desktop's 20-60 GB/s; integrated
# GPUs share the CPU's memory). Conservative ends of those ranges.
GPU_SPEEDUP = 6.0
IGPU_SPEEDUP = 1.5
# Without any measurement: the built-in model's tokens/s per physical core, measured with llama.cpp's
# portable build (SmolLM2-135M Q8_0, 1 and 2 threads on a quiet x86-64 core, 2026); more than 8 cores
# stop helping because memory bandwidth runs out first.
PRIOR_TPS_PER_CORE = 45.0
PRIOR_MAX_CORES = 8
BENCH_PROMPT = "Count from one to forty in words, separated by commas."
BENCH_TOKENS = 32
WARM_UP_TOKENS = 4
CACHE_FILE = "speed.json"
EMBEDDED_BYTES = 98_000_000  # SmolLM2-135M-Instruct Q4_1, when its file cannot be found
SCHEMA_VERSION = 1


@dataclass(frozen=True)
class Benchmark:
    """Tokens a second of the built-in model on this machine: all on the CPU, and all on the GPU when there is one."""

    model_bytes: int
    cpu_tps: float
    gpu_tps: float | None = None
    gpu_name: str = ""
    measured: bool = True  # False: a guess from the table above, before any measurement
    machine: str = ""  # what it was measured on (cores, GPU, llama.cpp): a change means measure again

    def to_dict(self) -> dict[str, object]:
        return {"schema_version": SCHEMA_VERSION, **asdict(self)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Benchmark":
        gpu = data.get("gpu_tps")
        return cls(
            model_bytes=int(data["model_bytes"]),
            cpu_tps=float(data["cpu_tps"]),
            gpu_tps=float(gpu) if gpu is not None else None,
            gpu_name=str(data.get("gpu_name", "")),
            measured=bool(data.get("measured", True)),
            machine=str(data.get("machine", "")),
        )


def machine_key(caps: Capabilities, engine: str = "") -> str:
    gpu = caps.best_gpu
    return f"{caps.physical_cores} cores; {gpu.name if gpu else 'no GPU'}; {engine}"


def prior(caps: Capabilities, model_bytes: int) -> Benchmark:
    """The table's guess for this machine, used until a benchmark has run."""
    cores = max(1, min(caps.physical_cores, PRIOR_MAX_CORES))
    return Benchmark(model_bytes=model_bytes, cpu_tps=PRIOR_TPS_PER_CORE * cores, measured=False,
                     machine=machine_key(caps))


def embedded_bytes() -> int:
    """The built-in model's file size (what the benchmark measures), or its usual size where it is missing."""
    path = default_model_path()
    return path.stat().st_size if path is not None else EMBEDDED_BYTES


def first_guess(caps: Capabilities) -> Benchmark:
    """The table's speed for this machine, before the built-in model has been measured here."""
    return prior(caps, embedded_bytes())


def known(state: Path, caps: Capabilities) -> Benchmark:
    """The last measurement on this machine, else the table's guess."""
    return load_cached(state, caps) or first_guess(caps)


def gpu_share(size_bytes: int, caps: Capabilities) -> float:
    """The share of a model's layers that the best GPU holds (what Auto would offload)."""
    gpu = caps.best_gpu
    if gpu is None:
        return 0.0
    free = caps.vram_free
    if free is None:
        return 1.0
    room = free - VRAM_RESERVE - 256 * 2**20  # the context cache and compute buffers of a 4096-token context
    return max(0.0, min(1.0, room / (size_bytes * 1.1))) if size_bytes else 1.0


def tokens_per_s(size_bytes: int, bench: Benchmark, caps: Capabilities, share: float | None = None) -> float:
    """Estimated generation speed of a `size_bytes` model here, with `share` of its layers on the GPU (default: Auto).

    Generating a token reads every weight once, so the time per token grows with the file's size;
    layers on the GPU and on the CPU take their turns, so their times add up.
    """
    scale = bench.model_bytes / max(1, size_bytes)
    cpu = bench.cpu_tps * scale
    share = gpu_share(size_bytes, caps) if share is None else share
    if share <= 0:
        return cpu
    gpu_device = caps.best_gpu
    if bench.gpu_tps:
        gpu = bench.gpu_tps * scale
    else:
        gpu = cpu * (IGPU_SPEEDUP if gpu_device is None or gpu_device.integrated or caps.unified_memory else GPU_SPEEDUP)
    return 1.0 / ((1.0 - share) / cpu + share / gpu)


def comfortable(tps: float) -> bool:
    return tps >= READING_PACE_TPS


def words_per_s(tps: float, chinese: bool = False) -> float:
    """Words (or, for Chinese, characters) a second that people would see appear."""
    return tps * (HANZI_PER_TOKEN if chinese else WORDS_PER_TOKEN)


def measure(backend: Backend, clock: Callable[[], float] = time.perf_counter, tokens: int = BENCH_TOKENS) -> float:
    """Tokens a second of a short greedy answer (first token to last: the prompt's evaluation is left out)."""
    options = GenerationOptions(max_tokens=tokens, temperature=0.0, seed=1)
    first: float | None = None
    last = 0.0
    text = ""
    for chunk in backend.stream_chat([{"role": "user", "content": BENCH_PROMPT}], options):
        if chunk.text:
            now = clock()
            first = now if first is None else first
            last = now
            text += chunk.text
    tokens = backend.count_tokens(text)
    if first is None or tokens < 2 or last <= first:
        raise ValueError("The benchmark answer was too short to time.")
    return (tokens - 1) / (last - first)


def _warm_up(backend: Backend) -> None:
    """A few tokens first: caches, and the GPU's pipelines, are ready before the timing starts."""
    for _chunk in backend.stream_chat([{"role": "user", "content": BENCH_PROMPT}],
                                      GenerationOptions(max_tokens=WARM_UP_TOKENS, temperature=0.0, seed=1)):
        pass


def benchmark(load: Callable[[int], Backend], caps: Capabilities, model_bytes: int, engine: str = "") -> Benchmark:
    """Measure the built-in model: `load(gpu_layers)` gives a backend (the loader's), closed here after use."""
    rates: dict[bool, float] = {}
    for on_gpu in ((False, True) if caps.best_gpu is not None else (False,)):
        backend = load(-1 if on_gpu else 0)
        try:
            if on_gpu and not backend.info.n_gpu_layers:  # it fell back to the CPU
                continue
            _warm_up(backend)
            rates[on_gpu] = measure(backend)
        finally:
            backend.close()
    gpu = caps.best_gpu
    return Benchmark(model_bytes=model_bytes, cpu_tps=rates[False], gpu_tps=rates.get(True),
                     gpu_name=gpu.name if gpu and True in rates else "", machine=machine_key(caps, engine))


def fastest(old: Benchmark | None, new: Benchmark) -> Benchmark:
    """Each rate at its best of two measurements of the same machine (a busy moment only slows one down)."""
    if old is None or old.machine != new.machine or old.model_bytes != new.model_bytes:
        return new
    gpu = max((r for r in (old.gpu_tps, new.gpu_tps) if r), default=None)
    return Benchmark(model_bytes=new.model_bytes, cpu_tps=max(old.cpu_tps, new.cpu_tps), gpu_tps=gpu,
                     gpu_name=new.gpu_name or old.gpu_name, measured=True, machine=new.machine)


def load_cached(state: Path, caps: Capabilities, engine: str = "") -> Benchmark | None:
    """The last benchmark, if it was made on this machine as it is now."""
    try:
        data = json.loads((state / CACHE_FILE).read_text(encoding="utf-8"))
        if data.get("schema_version") != SCHEMA_VERSION:
            return None
        bench = Benchmark.from_dict(data)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        log.debug("No usable speed measurement: %s", exc)
        return None
    return bench if bench.machine == machine_key(caps, engine) else None


def save(state: Path, bench: Benchmark) -> None:
    state.mkdir(parents=True, exist_ok=True)
    atomic_write(state / CACHE_FILE, json.dumps(bench.to_dict(), indent=2) + "\n")
