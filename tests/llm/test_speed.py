"""The speed estimate: a benchmark of the built-in model scaled by size and GPU share, and what it lets the offer recommend."""

from __future__ import annotations

from itertools import count
from pathlib import Path

import pytest

from companion.llm import catalog, speed
from companion.llm.catalog import by_key, recommend
from companion.llm.hardware import Capabilities, GpuDevice
from companion.llm.scripted import ScriptedBackend

GB = 10**9
GIB = 2**30
BUILT_IN = 98_000_000
# Two fake machines: a two-core laptop without a GPU, and a desktop with an 8 GB graphics card.
LAPTOP = Capabilities(physical_cores=2, ram_total=16 * GIB, ram_available=12 * GIB)
DESKTOP = Capabilities(gpu_offload=True, gpus=[GpuDevice("Radeon RX 6600", 8 * GIB, int(7.5 * GIB), "Vulkan")],
                       physical_cores=8, ram_total=32 * GIB, ram_available=24 * GIB)


def test_the_estimate_orders_the_two_machines_and_the_models() -> None:
    laptop, desktop = speed.prior(LAPTOP, BUILT_IN), speed.prior(DESKTOP, BUILT_IN)
    big, small = by_key("gemma-4-e4b"), by_key("qwen2.5-1.5b")
    assert big is not None and small is not None
    for model in (big, small):
        assert speed.tokens_per_s(model.size_bytes, desktop, DESKTOP) > speed.tokens_per_s(model.size_bytes, laptop, LAPTOP)
    for bench, caps in ((laptop, LAPTOP), (desktop, DESKTOP)):
        assert speed.tokens_per_s(small.size_bytes, bench, caps) > speed.tokens_per_s(big.size_bytes, bench, caps)
    # the GPU's share: all of a model that fits, none without a GPU, and in between for a model too big for it
    assert speed.gpu_share(big.size_bytes, DESKTOP) == 1.0 and speed.gpu_share(big.size_bytes, LAPTOP) == 0.0
    assert 0 < speed.gpu_share(12 * GB, DESKTOP) < 1
    cpu_only = speed.tokens_per_s(big.size_bytes, desktop, DESKTOP, share=0.0)
    assert speed.tokens_per_s(big.size_bytes, desktop, DESKTOP) > cpu_only * 3


def test_a_two_core_cpu_only_machine_is_not_offered_gemma_4_e4b() -> None:
    bench = speed.prior(LAPTOP, BUILT_IN)
    assert catalog.fits(by_key("gemma-4-e4b"), LAPTOP)  # its RAM would allow it: speed is what rules it out
    for chinese in (False, True):
        chosen = recommend(LAPTOP, chinese, bench)
        assert chosen is not None and chosen.key != "gemma-4-e4b"
        assert speed.comfortable(catalog.speed(chosen, LAPTOP, bench))
        better = [m for m in catalog.CURATED[: catalog.CURATED.index(chosen)] if m.chinese or not chinese]
        assert all(not speed.comfortable(catalog.speed(m, LAPTOP, bench)) for m in better if catalog.fits(m, LAPTOP))
    assert recommend(DESKTOP, False, speed.prior(DESKTOP, BUILT_IN)).key == "gemma-4-e4b"


def test_when_nothing_is_quick_enough_the_quickest_that_fits_is_offered() -> None:
    crawl = speed.Benchmark(model_bytes=BUILT_IN, cpu_tps=5.0)
    chosen = recommend(LAPTOP, False, crawl)
    assert chosen is not None and chosen.size_gb == min(m.size_gb for m in catalog.CURATED)


def test_a_measured_gpu_rate_is_used_and_scaled() -> None:
    bench = speed.Benchmark(model_bytes=BUILT_IN, cpu_tps=100.0, gpu_tps=1000.0, gpu_name="Radeon RX 6600")
    model = by_key("qwen3-4b-instruct-2507")
    assert speed.tokens_per_s(model.size_bytes, bench, DESKTOP) == pytest.approx(1000.0 * BUILT_IN / model.size_bytes)
    assert speed.words_per_s(8.0) == 6.0 and speed.words_per_s(8.0, chinese=True) == 8.0


def test_measure_times_first_to_last_token() -> None:
    ticks = count()
    backend = ScriptedBackend(["one, two, three, four, five, six, seven, eight"])
    rate = speed.measure(backend, clock=lambda: float(next(ticks)))  # one second between chunks
    text = "one, two, three, four, five, six, seven, eight"
    assert rate == pytest.approx((backend.count_tokens(text) - 1) / 7)
    assert backend.options[0].temperature == 0.0 and backend.options[0].max_tokens == speed.BENCH_TOKENS
    with pytest.raises(ValueError):
        speed.measure(ScriptedBackend(["hi"]))


def test_the_measurement_is_kept_per_machine(tmp_path: Path) -> None:
    bench = speed.Benchmark(model_bytes=BUILT_IN, cpu_tps=88.0, machine=speed.machine_key(LAPTOP))
    speed.save(tmp_path, bench)
    assert speed.load_cached(tmp_path, LAPTOP) == bench
    assert speed.load_cached(tmp_path, DESKTOP) is None  # another machine (or a new GPU): measure again
    (tmp_path / speed.CACHE_FILE).write_text("{broken", encoding="utf-8")
    assert speed.load_cached(tmp_path, LAPTOP) is None


def test_a_busy_moment_does_not_lower_the_kept_speed() -> None:
    key = speed.machine_key(LAPTOP)
    quiet = speed.Benchmark(model_bytes=BUILT_IN, cpu_tps=90.0, machine=key)
    busy = speed.Benchmark(model_bytes=BUILT_IN, cpu_tps=30.0, machine=key)
    assert speed.fastest(quiet, busy).cpu_tps == 90.0 and speed.fastest(None, busy) == busy
    other = speed.Benchmark(model_bytes=BUILT_IN, cpu_tps=30.0, machine=speed.machine_key(DESKTOP))
    assert speed.fastest(quiet, other) == other


def test_each_model_comes_in_three_quantizations() -> None:
    for model in catalog.CURATED:
        variants = model.variants()
        assert [v.quant for v in variants] == ["Q3_K_M", "Q4_K_M", "Q8_0"] and model in variants
        assert [v.size_gb for v in variants] == sorted(v.size_gb for v in variants)
        assert len({v.filename for v in variants}) == 3 and all(v.filename.endswith(".gguf") for v in variants)
        assert all(v.key == model.key and v.repo_id == model.repo_id for v in variants)
    qwen = by_key("qwen2.5-1.5b").variants()
    assert [v.filename for v in qwen] == ["qwen2.5-1.5b-instruct-q3_k_m.gguf", "qwen2.5-1.5b-instruct-q4_k_m.gguf",
                                         "qwen2.5-1.5b-instruct-q8_0.gguf"]
    assert by_key("gemma-4-e4b").variants()[2].filename == "gemma-4-E4B-it-Q8_0.gguf"
    assert by_key("gemma-4-e4b").variants()[2].size_gb == 8.2


@pytest.mark.model
def test_benchmark_of_the_built_in_model_through_the_loader(tiny_model_path: Path) -> None:
    from companion.llm.loader import load_backend
    from companion.settings import ModelSettings

    caps = Capabilities(physical_cores=1, ram_total=16 * GIB, ram_available=8 * GIB)
    bench = speed.benchmark(lambda layers: load_backend(ModelSettings(n_ctx=512, n_threads=1, n_gpu_layers=layers), caps=caps),
                            caps, tiny_model_path.stat().st_size)
    assert bench.measured and bench.cpu_tps > 1 and bench.gpu_tps is None
    assert bench.machine == speed.machine_key(caps)


def test_a_cpu_type_vulkan_device_is_estimated_at_the_cpu_speed() -> None:
    lavapipe = GpuDevice("llvmpipe (LLVM 15.0.6, 256 bits)", 32 * GIB, 30 * GIB, "Vulkan", cpu_type=True)
    caps = Capabilities(gpu_offload=True, gpus=[lavapipe], physical_cores=2, ram_total=16 * GIB, ram_available=12 * GIB)
    model = by_key("qwen2.5-1.5b")
    assert model is not None
    bench = speed.prior(caps, BUILT_IN)
    cpu = speed.tokens_per_s(model.size_bytes, bench, caps, share=0.0)
    assert speed.gpu_share(model.size_bytes, caps) == 0.0
    assert speed.tokens_per_s(model.size_bytes, bench, caps) == cpu == speed.tokens_per_s(model.size_bytes, bench, LAPTOP)
    assert speed.prior(caps, BUILT_IN).machine == speed.prior(LAPTOP, BUILT_IN).machine  # no GPU to measure on
    as_gpu = Capabilities(gpu_offload=True, gpus=[GpuDevice(lavapipe.name, 32 * GIB, 30 * GIB, "Vulkan")], physical_cores=2)
    assert speed.tokens_per_s(model.size_bytes, bench, as_gpu) > cpu * 3  # what it was taken for before
