"""The devices llama.cpp can run a model on (its ggml backend registry, read with ctypes), and why a GPU is missing."""

from __future__ import annotations

import ctypes
import logging
from pathlib import Path
from typing import Any

from companion.llm.hardware import GpuDevice, GpuProbe

log = logging.getLogger(__name__)

# enum ggml_backend_dev_type
DEV_CPU, DEV_GPU, DEV_IGPU, DEV_ACCEL = 0, 1, 2, 3
# The GPU backends an installer may ship as run-time modules (GGML_BACKEND_DL), with their people's names.
GPU_BACKENDS = {"vulkan": "Vulkan", "cuda": "CUDA", "hip": "ROCm", "metal": "Metal", "sycl": "SYCL", "opencl": "OpenCL"}
_SIGNATURES: dict[str, tuple[Any, list[Any]]] = {
    "ggml_backend_reg_count": (ctypes.c_size_t, []),
    "ggml_backend_reg_get": (ctypes.c_void_p, [ctypes.c_size_t]),
    "ggml_backend_reg_name": (ctypes.c_char_p, [ctypes.c_void_p]),
    "ggml_backend_dev_count": (ctypes.c_size_t, []),
    "ggml_backend_dev_get": (ctypes.c_void_p, [ctypes.c_size_t]),
    "ggml_backend_dev_name": (ctypes.c_char_p, [ctypes.c_void_p]),
    "ggml_backend_dev_description": (ctypes.c_char_p, [ctypes.c_void_p]),
    "ggml_backend_dev_memory": (None, [ctypes.c_void_p, ctypes.POINTER(ctypes.c_size_t), ctypes.POINTER(ctypes.c_size_t)]),
    "ggml_backend_dev_type": (ctypes.c_int, [ctypes.c_void_p]),
    "ggml_backend_dev_backend_reg": (ctypes.c_void_p, [ctypes.c_void_p]),
    "ggml_backend_load_all_from_path": (None, [ctypes.c_char_p]),
}


class Registry:
    """ggml's backend registry in the loaded llama.cpp (`ggml` is the libggml CDLL, `lib_dir` its folder)."""

    def __init__(self, ggml: Any, lib_dir: Path) -> None:
        self.lib_dir = lib_dir
        self._fn: dict[str, Any] = {}
        for name, (restype, argtypes) in _SIGNATURES.items():
            try:
                function = getattr(ggml, name)
            except AttributeError:  # an old llama.cpp without the device API
                continue
            function.restype, function.argtypes = restype, argtypes
            self._fn[name] = function

    @property
    def usable(self) -> bool:
        return "ggml_backend_dev_count" in self._fn and "ggml_backend_reg_count" in self._fn

    def load_modules(self) -> None:
        """Register the backend modules beside llama.cpp (a GGML_BACKEND_DL build registers nothing by itself).

        Done before llama.cpp's own fallback, which would search the current folder and the Python
        executable's folder: only the package's own folder is ever searched.
        """
        if not self.usable or "ggml_backend_load_all_from_path" not in self._fn:
            return
        if self._fn["ggml_backend_reg_count"]() == 0:
            self._fn["ggml_backend_load_all_from_path"](str(self.lib_dir).encode("utf-8"))

    def backends(self) -> list[str]:
        if not self.usable:
            return []
        return [_text(self._fn["ggml_backend_reg_name"](self._fn["ggml_backend_reg_get"](i)))
                for i in range(self._fn["ggml_backend_reg_count"]())]

    def gpus(self) -> list[GpuDevice]:
        """The GPU and integrated-GPU devices, with the memory each reports."""
        if not self.usable:
            return []
        found = []
        for index in range(self._fn["ggml_backend_dev_count"]()):
            device = self._fn["ggml_backend_dev_get"](index)
            kind = self._fn["ggml_backend_dev_type"](device)
            if kind not in (DEV_GPU, DEV_IGPU):
                continue
            free, total = ctypes.c_size_t(0), ctypes.c_size_t(0)
            self._fn["ggml_backend_dev_memory"](device, ctypes.byref(free), ctypes.byref(total))
            backend = _text(self._fn["ggml_backend_reg_name"](self._fn["ggml_backend_dev_backend_reg"](device)))
            found.append(GpuDevice(
                name=_text(self._fn["ggml_backend_dev_description"](device)) or _text(self._fn["ggml_backend_dev_name"](device)),
                total_bytes=total.value or None,
                free_bytes=free.value or None,
                backend=backend,
                device_id=_text(self._fn["ggml_backend_dev_name"](device)),
                integrated=kind == DEV_IGPU,
            ))
        return found

    def probe(self, offload: bool) -> GpuProbe:
        gpus = self.gpus()
        if gpus:
            return GpuProbe(offload=offload, devices=gpus)
        return why_no_gpu(self.lib_dir, self.backends())


def module_files(lib_dir: Path) -> dict[str, Path]:
    """The GPU backend modules shipped beside llama.cpp, by backend: {"vulkan": .../libggml-vulkan.so}."""
    found: dict[str, Path] = {}
    for key in GPU_BACKENDS:
        for name in (f"libggml-{key}.so", f"ggml-{key}.dll", f"libggml-{key}.dylib"):
            if (lib_dir / name).is_file():
                found[key] = lib_dir / name
    return found


NO_GPU_BUILD, DRIVER_MISSING, NO_DEVICE = "no-gpu-build", "driver-missing", "no-device"


def why_no_gpu(lib_dir: Path, registered: list[str]) -> GpuProbe:
    """Why llama.cpp offers no GPU here (a build without one, a driver that will not load, no device), in one line."""
    modules = module_files(lib_dir)
    if not modules and not any(name.lower() in GPU_BACKENDS for name in registered):
        return GpuProbe(False, note="This llama.cpp build has no GPU support; running on the CPU.", reason=NO_GPU_BUILD)
    for key, path in modules.items():
        label = GPU_BACKENDS[key]
        if any(name.lower() == key for name in registered):
            continue
        reason = load_error(path)
        if reason:
            return GpuProbe(False, note=f"No {label} GPU: its driver library could not be loaded ({reason}); running on the CPU.",
                            reason=DRIVER_MISSING, backend=label, detail=reason)
    names = ", ".join(GPU_BACKENDS.get(n.lower(), n) for n in registered if n.lower() in GPU_BACKENDS) or \
        ", ".join(GPU_BACKENDS[k] for k in modules)
    return GpuProbe(False, note=f"{names} found no usable graphics device (no driver, or one too old); running on the CPU.",
                    reason=NO_DEVICE, backend=names)


def load_error(path: Path) -> str:
    """Why the system cannot load this library ("" if it loads): the dynamic loader's own message, shortened."""
    try:
        handle = ctypes.CDLL(str(path))
    except OSError as exc:
        # A frozen app's ctypes (PyInstaller) replaces the loader's message with a guess about the build;
        # the loader's own error is the cause it chains.
        cause = exc.__cause__
        text = str(cause if isinstance(cause, OSError) else exc)
        if text.startswith(str(path)):
            text = text[len(str(path)):].lstrip(": ")
        return text.strip() or type(exc).__name__
    del handle
    return ""


def device_label(on_gpu: int, total_layers: int, gpu_name: str) -> str:
    """"CPU", or "NVIDIA GeForce RTX 3060 · 29/29 layers" (the status bar and `companion chat`)."""
    if on_gpu <= 0:
        return "CPU"
    return f"{gpu_name or 'GPU'} · {on_gpu}/{total_layers} layers"


def gpu_failure_reason(log_lines: list[str], fallback: str) -> str:
    """One line from llama.cpp's log that says why loading on the GPU failed (its last error), else `fallback`."""
    keys = ("out of memory", "outofdevicememory", "failed", "error", "unsupported")
    for line in reversed(log_lines):
        text = line.strip()
        if text and any(key in text.lower() for key in keys):
            return text[:200]
    return fallback


def _text(value: bytes | None) -> str:
    return value.decode("utf-8", "replace") if value else ""
