"""GPU layer choice and memory estimates, with hand-made capability reports instead of real GPUs."""

from __future__ import annotations

import pytest

from companion.errors import ModelMemoryError
from companion.llm import hardware
from companion.llm.gguf import read_gguf
from companion.llm.hardware import GPU_LAYERS_ALL, GPU_LAYERS_AUTO, Capabilities, GpuDevice

GIB = 2**30


def caps(vram_free: float | None = None, offload: bool = True, ram: float = 32) -> Capabilities:
    gpus = [GpuDevice("Test GPU", 24 * GIB, int(vram_free * GIB))] if vram_free is not None else []
    return Capabilities(gpu_offload=offload, gpus=gpus, physical_cores=4, ram_total=64 * GIB, ram_available=int(ram * GIB))


@pytest.fixture
def tiny_meta(tiny_model_path):
    return read_gguf(tiny_model_path)


def test_kv_cache_follows_the_header(tiny_meta):
    # 30 layers x 2048 tokens x 3 kv heads x (64 + 64) dims x 2 bytes
    assert hardware.kv_cache_bytes(tiny_meta, 2048) == 30 * 2048 * 3 * 128 * 2
    assert hardware.kv_cache_bytes(tiny_meta, 4096) == 2 * hardware.kv_cache_bytes(tiny_meta, 2048)


def test_estimate_splits_between_ram_and_vram(tiny_meta):
    cpu = hardware.estimate(tiny_meta, 2048, 0)
    gpu = hardware.estimate(tiny_meta, 2048, GPU_LAYERS_ALL)
    half = hardware.estimate(tiny_meta, 2048, 15)
    assert cpu.vram == 0 and cpu.ram > tiny_meta.file_size
    assert gpu.gpu_layers == gpu.total_layers == 31 and gpu.vram > tiny_meta.file_size
    assert 0 < half.vram < gpu.vram and cpu.ram > half.ram > gpu.ram
    assert "VRAM" in gpu.describe() and "VRAM" not in cpu.describe()


def test_auto_layers_with_fake_capabilities(tiny_meta):
    assert hardware.resolve_gpu_layers(GPU_LAYERS_AUTO, tiny_meta, 2048, caps(offload=False)) == 0
    assert hardware.resolve_gpu_layers(GPU_LAYERS_AUTO, tiny_meta, 2048, caps(vram_free=None)) == GPU_LAYERS_ALL
    assert hardware.resolve_gpu_layers(GPU_LAYERS_AUTO, tiny_meta, 2048, caps(vram_free=8)) == GPU_LAYERS_ALL
    assert hardware.resolve_gpu_layers(GPU_LAYERS_AUTO, tiny_meta, 2048, caps(vram_free=0.3)) == 0
    assert hardware.resolve_gpu_layers(7, tiny_meta, 2048, caps(vram_free=8)) == 7
    assert hardware.resolve_gpu_layers(7, tiny_meta, 2048, caps(offload=False)) == 0


def test_auto_layers_take_what_fits_of_a_big_model(make_gguf):
    # A header-only "8B" model: 32 layers, 4096 wide, 4.6 GB of weights (file_size is faked below).
    meta = read_gguf(make_gguf(metadata={
        "general.architecture": "llama", "llama.block_count": 32, "llama.embedding_length": 4096,
        "llama.attention.head_count": 32, "llama.attention.head_count_kv": 8,
    }))
    meta.file_size = int(4.6 * GIB)
    layers = hardware.auto_gpu_layers(meta, 4096, caps(vram_free=3))
    assert 0 < layers < 33
    fits = hardware.estimate(meta, 4096, layers)
    assert fits.vram <= 3 * GIB - hardware.VRAM_RESERVE + fits.compute
    assert hardware.auto_gpu_layers(meta, 4096, caps(vram_free=12)) == GPU_LAYERS_ALL


def test_refuses_with_a_message_when_it_cannot_fit(make_gguf, tiny_meta):
    meta = read_gguf(make_gguf(metadata={"general.architecture": "llama", "llama.block_count": 32}))
    meta.file_size = 40 * GIB
    with pytest.raises(ModelMemoryError, match="RAM.*smaller model"):
        hardware.check_fits(meta, 4096, 0, caps(ram=8))
    with pytest.raises(ModelMemoryError, match="VRAM.*GPU layers"):
        hardware.check_fits(meta, 4096, GPU_LAYERS_ALL, caps(vram_free=4, ram=64))
    assert hardware.check_fits(tiny_meta, 2048, 0, caps(ram=8)).ram < GIB


def test_nvidia_smi_output_parses():
    gpus = hardware.parse_nvidia_smi("NVIDIA GeForce RTX 4090, 24564, 20111\nbroken line\n")
    assert [(g.name, g.total_bytes, g.free_bytes) for g in gpus] == [("NVIDIA GeForce RTX 4090", 24564 * 2**20, 20111 * 2**20)]


def test_detect_reports_this_machine():
    report = hardware.detect()
    assert report.physical_cores >= 1
    assert report.ram_total is None or report.ram_total > 0
    assert isinstance(report.gpu_offload, bool)
    assert report.describe_gpu()
