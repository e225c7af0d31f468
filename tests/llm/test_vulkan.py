"""The Vulkan build against the CPU build on the built-in model: runs where a Vulkan build and a Vulkan device exist.

Build one with `packaging/vulkan/build.sh --target build/vulkan-site` (or point COMPANION_VULKAN_SITE at one);
on a machine without a GPU, Debian's mesa-vulkan-drivers gives lavapipe, which bench/bench_gpu.py enables.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]
SITE = Path(os.environ.get("COMPANION_VULKAN_SITE", ROOT / "build" / "vulkan-site"))
pytestmark = [pytest.mark.vulkan, pytest.mark.model, pytest.mark.slow]


def bench_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_gpu", ROOT / "bench" / "bench_gpu.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def vulkan_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[ModuleType, dict, Path]:
    if not (SITE / "llama_cpp").is_dir():
        pytest.skip(f"no Vulkan build of llama.cpp in {SITE}")
    bench = bench_module()
    work = tmp_path_factory.mktemp("vulkan")
    report = bench.run_child("vulkan", SITE, work)
    if not report["devices"]:
        pytest.skip(f"no Vulkan device here ({report['gpu_note']})")
    return bench, report, work


def test_the_app_loads_the_built_in_model_on_the_vulkan_device(vulkan_run) -> None:
    _bench, report, _work = vulkan_run
    assert report["gpu_offload"] and report["app_layers"] == 31  # 30 blocks and the output layer
    assert report["app_device"].endswith("· 31/31 layers") and report["app_warnings"] == []


def test_first_greedy_tokens_and_top1_agree_with_the_cpu_build(vulkan_run) -> None:
    bench, report, work = vulkan_run
    cpu = bench.run_child("cpu", None, work)
    assert cpu["text_tokens"] == report["text_tokens"]
    result = bench.compare(cpu, report)
    assert result["greedy_ok"], (cpu["greedy"], report["greedy"])
    assert result["top1_ok"], result["top1_agreement"]


def test_cpu_only_in_the_vulkan_build_stays_off_the_device(vulkan_run) -> None:
    """Settings > Model "CPU only" (and the fallback from a GPU that failed) with a Vulkan device present."""
    bench, _report, work = vulkan_run
    cpu_only = bench.run_child("cpu-only", SITE, work)
    cpu = bench.run_child("cpu", None, work)
    assert cpu_only["app_device"] == "CPU" and cpu_only["app_layers"] == 0
    # After a prompt long enough for llama.cpp to hand its batch to a GPU backend: the same tokens, and in
    # about the CPU build's time (lavapipe took 40 times as long when the batch went to it).
    assert cpu_only["long_greedy"] == cpu["long_greedy"]
    assert cpu_only["long_ttft_s"] < max(5 * cpu["long_ttft_s"], cpu["long_ttft_s"] + 2.0), (cpu_only, cpu)


EMBED_FIRST = """
import dataclasses, time
from companion.llm import embed
from companion.llm.catalog import EMBEDDERS
from companion.llm.default_model import default_model_path
spec = dataclasses.replace(EMBEDDERS[0], pooling="mean", n_ctx=512)
embedder = embed.LlamaEmbedder(default_model_path(), spec)
started = time.perf_counter()
vectors = embedder.passages(["Companion keeps its memory in plain files that the user can read. " * 12])
print(vectors.shape[1], time.perf_counter() - started)
"""


def test_a_gguf_embedder_loads_first_in_the_vulkan_build(vulkan_run) -> None:
    """A GGUF embedder as the first llama.cpp model of a process: the backends get registered, and it stays on the CPU."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(SITE), str(ROOT)]), GGML_VK_VISIBLE_DEVICES="0")
    result = subprocess.run([sys.executable, "-c", EMBED_FIRST], env=env, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-2000:]
    dim, seconds = result.stdout.split()
    assert int(dim) > 0 and float(seconds) < 30  # lavapipe, handed the batch, takes minutes
