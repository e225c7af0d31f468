"""Device detection from ggml's registry and the reasons for no GPU, with a fake device list instead of real GPUs."""

from __future__ import annotations

import ctypes
import ctypes.util
from pathlib import Path
from typing import Any

import pytest

from companion.llm import devices, hardware
from companion.llm.devices import DEV_CPU, DEV_GPU, DEV_IGPU, Registry, why_no_gpu
from companion.llm.gguf import read_gguf
from companion.llm.hardware import GPU_LAYERS_ALL, GpuProbe

GIB = 2**30


class FakeGgml:
    """Stands in for libggml: a backend registry holding `devices` (name, description, type, free, total, backend)."""

    def __init__(self, devs: list[tuple[str, str, int, int, int, str]], backends: list[str] | None = None) -> None:
        self.devs = devs
        self.backends = backends if backends is not None else sorted({d[5] for d in devs})
        self.loaded_from: list[bytes] = []
        handles = {i + 1: d for i, d in enumerate(devs)}
        regs = {100 + i: name for i, name in enumerate(self.backends)}
        names = {v: k for k, v in regs.items()}

        def fn(body: Any) -> Any:
            def call(*args: Any) -> Any:
                return body(*args)
            return call  # a plain function takes restype/argtypes like a ctypes one

        def memory(handle: int, free: Any, total: Any) -> None:
            free._obj.value, total._obj.value = handles[handle][3], handles[handle][4]

        self.ggml_backend_reg_count = fn(lambda: len(regs))
        self.ggml_backend_reg_get = fn(lambda i: 100 + i)
        self.ggml_backend_reg_name = fn(lambda r: regs[r].encode())
        self.ggml_backend_dev_count = fn(lambda: len(handles))
        self.ggml_backend_dev_get = fn(lambda i: i + 1)
        self.ggml_backend_dev_name = fn(lambda h: handles[h][0].encode())
        self.ggml_backend_dev_description = fn(lambda h: handles[h][1].encode())
        self.ggml_backend_dev_memory = fn(memory)
        self.ggml_backend_dev_type = fn(lambda h: handles[h][2])
        self.ggml_backend_dev_backend_reg = fn(lambda h: names[handles[h][5]])
        self.ggml_backend_load_all_from_path = fn(lambda path: self.loaded_from.append(path))


CPU = ("CPU", "AMD Ryzen 5 5600", DEV_CPU, 30 * GIB, 32 * GIB, "CPU")
RTX = ("Vulkan0", "NVIDIA GeForce RTX 3060", DEV_GPU, 11 * GIB, 12 * GIB, "Vulkan")
IRIS = ("Vulkan1", "Intel(R) Iris(R) Xe Graphics", DEV_IGPU, 7 * GIB, 16 * GIB, "Vulkan")


def test_the_registry_lists_gpus_with_memory_and_backend(tmp_path: Path) -> None:
    registry = Registry(FakeGgml([CPU, RTX, IRIS]), tmp_path)
    probe = registry.probe(offload=True)
    assert [(g.name, g.free_bytes, g.total_bytes, g.backend, g.integrated) for g in probe.devices] == [
        ("NVIDIA GeForce RTX 3060", 11 * GIB, 12 * GIB, "Vulkan", False),
        ("Intel(R) Iris(R) Xe Graphics", 7 * GIB, 16 * GIB, "Vulkan", True),
    ]
    caps = hardware.detect(probe)
    assert caps.gpu_offload and caps.best_gpu is not None and caps.best_gpu.name == "NVIDIA GeForce RTX 3060"
    assert caps.describe_gpu().startswith("NVIDIA GeForce RTX 3060 (Vulkan, 11.0 of 12.0 GB free)")


def test_auto_offloads_all_layers_that_fit_the_detected_device(tmp_path: Path, tiny_model_path: Path) -> None:
    meta = read_gguf(tiny_model_path)
    caps = hardware.detect(Registry(FakeGgml([CPU, RTX]), tmp_path).probe(offload=True))
    assert hardware.resolve_gpu_layers(hardware.GPU_LAYERS_AUTO, meta, 2048, caps) == GPU_LAYERS_ALL
    small = ("Vulkan0", "Tiny GPU", DEV_GPU, 550 * 2**20, GIB, "Vulkan")
    caps = hardware.detect(Registry(FakeGgml([CPU, small]), tmp_path).probe(offload=True))
    assert hardware.resolve_gpu_layers(hardware.GPU_LAYERS_AUTO, meta, 2048, caps) == 0  # nothing fits beside the reserve


def test_modules_are_loaded_from_the_package_folder_only_when_nothing_is_registered(tmp_path: Path) -> None:
    empty = FakeGgml([], backends=[])
    Registry(empty, tmp_path).load_modules()
    assert empty.loaded_from == [str(tmp_path).encode()]
    built_in = FakeGgml([CPU])
    Registry(built_in, tmp_path).load_modules()
    assert built_in.loaded_from == []


def test_no_gpu_support_in_the_build(tmp_path: Path) -> None:
    probe = Registry(FakeGgml([CPU]), tmp_path).probe(offload=False)
    assert probe == GpuProbe(offload=False, devices=[], note="This llama.cpp build has no GPU support; running on the CPU.",
                             reason=devices.NO_GPU_BUILD)
    assert hardware.detect(probe).describe_gpu() == probe.note


def test_a_vulkan_module_whose_loader_is_missing_says_why_in_one_line(tmp_path: Path) -> None:
    (tmp_path / "libggml-vulkan.so").write_bytes(b"not a library")  # what dlopen makes of a broken or absent libvulkan
    probe = Registry(FakeGgml([CPU]), tmp_path).probe(offload=False)
    note = probe.note
    assert note.startswith("No Vulkan GPU: its driver library could not be loaded (") and note.endswith("running on the CPU.")
    assert "\n" not in note and str(tmp_path) not in note
    assert (probe.reason, probe.backend) == (devices.DRIVER_MISSING, "Vulkan") and probe.detail in note


def test_vulkan_without_a_device_says_so(tmp_path: Path) -> None:
    (tmp_path / "libggml-vulkan.so").write_bytes(b"")
    lavapipe_hidden = FakeGgml([CPU], backends=["CPU", "Vulkan"])  # ggml skips CPU-type Vulkan devices
    assert Registry(lavapipe_hidden, tmp_path).probe(offload=False).note == (
        "Vulkan found no usable graphics device (no driver, or one too old); running on the CPU.")


def test_load_error_names_the_missing_library(tmp_path: Path) -> None:
    assert devices.load_error(tmp_path / "libnothing.so")
    assert devices.load_error(Path(ctypes.util.find_library("c") or "libc.so.6")) == ""


def test_load_error_in_a_frozen_app_gives_the_loaders_own_message(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    broken = tmp_path / "libggml-vulkan.so"
    broken.write_bytes(b"not a library")

    class FrozenCDLL(ctypes.CDLL):  # what PyInstaller's runtime puts in place of ctypes.CDLL
        def __init__(self, name: str, *args: Any, **kwargs: Any) -> None:
            try:
                super().__init__(name, *args, **kwargs)
            except Exception as base_error:
                raise OSError(f"Failed to load dynlib/dll {name!r}. Most likely this dynlib/dll was not found "
                              "when the application was frozen.") from base_error

    plain = devices.load_error(broken)
    monkeypatch.setattr(devices.ctypes, "CDLL", FrozenCDLL)
    frozen = devices.load_error(broken)
    assert frozen == plain and "frozen" not in frozen and frozen


def test_device_label_and_failure_reason() -> None:
    assert devices.device_label(0, 31, "RTX") == "CPU"
    assert devices.device_label(31, 31, "NVIDIA GeForce RTX 3060") == "NVIDIA GeForce RTX 3060 · 31/31 layers"
    lines = ["llama_model_load: loading", "ggml_vulkan: Device memory allocation of size 1 failed.", "done"]
    assert devices.gpu_failure_reason(lines, "fallback") == "ggml_vulkan: Device memory allocation of size 1 failed."
    assert devices.gpu_failure_reason(["all fine"], "fallback") == "fallback"


@pytest.mark.model
def test_this_cpu_build_reports_no_gpu_and_why() -> None:
    from companion.llm.llama import machine, probe_gpus

    probe = probe_gpus()
    if probe.devices:
        pytest.skip("this llama.cpp has a usable GPU")
    assert not probe.offload and probe.note.endswith("running on the CPU.")
    assert machine().gpu_note == probe.note



LAVAPIPE = ("Vulkan0", "llvmpipe (LLVM 15.0.6, 256 bits)", DEV_GPU, 30 * GIB, 32 * GIB, "Vulkan")  # ggml says GPU


def test_a_cpu_type_vulkan_device_is_never_the_gpu_to_offload_to(tmp_path: Path, tiny_model_path: Path) -> None:
    meta = read_gguf(tiny_model_path)
    is_cpu = lambda: frozenset({LAVAPIPE[1]})  # noqa: E731 (what the Vulkan loader reports for lavapipe)
    probe = Registry(FakeGgml([CPU, LAVAPIPE]), tmp_path, vulkan_cpus=is_cpu).probe(offload=True)
    assert [(g.name, g.cpu_type) for g in probe.devices] == [(LAVAPIPE[1], True)]
    caps = hardware.detect(probe)
    assert caps.best_gpu is None and caps.vram_free is None and "llvmpipe" in caps.describe_gpu()
    assert hardware.resolve_gpu_layers(hardware.GPU_LAYERS_AUTO, meta, 2048, caps) == 0
    beside = hardware.detect(Registry(FakeGgml([CPU, LAVAPIPE, RTX]), tmp_path, vulkan_cpus=is_cpu).probe(offload=True))
    assert beside.best_gpu is not None and beside.best_gpu.name == RTX[1] and beside.vram_free == 11 * GIB


def test_the_vulkan_loader_reports_lavapipe_as_a_cpu() -> None:
    """The real Vulkan loader on this machine (Debian's mesa-vulkan-drivers gives lavapipe)."""
    if devices._vulkan_library() is None or not any(Path(d, "lvp_icd.x86_64.json").exists()
                                                     for d in ("/usr/share/vulkan/icd.d", "/etc/vulkan/icd.d")):
        pytest.skip("no Vulkan loader with lavapipe here")
    assert any(name.startswith("llvmpipe") for name in devices.vulkan_cpu_devices())
