"""The Vulkan build against the CPU build on the built-in model: runs where a Vulkan build and a Vulkan device exist.

Build one with `packaging/vulkan/build.sh --target build/vulkan-site` (or point COMPANION_VULKAN_SITE at one);
on a machine without a GPU, Debian's mesa-vulkan-drivers gives lavapipe, which bench/bench_gpu.py enables.
"""

from __future__ import annotations

import importlib.util
import os
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
