"""The devices llama.cpp can run a model on (its ggml backend registry, read with ctypes), and why a GPU is missing."""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import logging
import sys
from pathlib import Path
from typing import Any, Callable

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


VK_PHYSICAL_DEVICE_TYPE_CPU = 4  # VkPhysicalDeviceType
_VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO = 1
_VK_NAME_OFFSET, _VK_NAME_SIZE, _VK_TYPE_OFFSET = 20, 256, 16  # in VkPhysicalDeviceProperties
_VK_PROPERTIES_SIZE = 4096  # more than sizeof(VkPhysicalDeviceProperties) (824) on every platform


class _VkInstanceCreateInfo(ctypes.Structure):
    _fields_ = [("sType", ctypes.c_int), ("pNext", ctypes.c_void_p), ("flags", ctypes.c_uint32),
                ("pApplicationInfo", ctypes.c_void_p), ("enabledLayerCount", ctypes.c_uint32),
                ("ppEnabledLayerNames", ctypes.c_void_p), ("enabledExtensionCount", ctypes.c_uint32),
                ("ppEnabledExtensionNames", ctypes.c_void_p)]


def _vulkan_library() -> Any:
    names = {"win32": ["vulkan-1.dll"], "darwin": ["libvulkan.1.dylib", "libMoltenVK.dylib"]}.get(
        sys.platform, ["libvulkan.so.1"])
    found = ctypes.util.find_library("vulkan")
    for name in names + ([found] if found else []):
        try:
            return ctypes.CDLL(name)
        except OSError:
            continue
    return None


@functools.cache
def vulkan_cpu_devices() -> frozenset[str]:
    """The names of the Vulkan devices whose driver says they are a CPU (lavapipe/llvmpipe, SwiftShader):
    ggml reports every Vulkan device as a GPU, the Vulkan loader reports its real type. Empty without Vulkan."""
    vk = _vulkan_library()
    if vk is None:
        return frozenset()
    try:
        vk.vkCreateInstance.restype = ctypes.c_int
        vk.vkCreateInstance.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p)]
        vk.vkEnumeratePhysicalDevices.restype = ctypes.c_int
        vk.vkEnumeratePhysicalDevices.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_uint32), ctypes.c_void_p]
        vk.vkGetPhysicalDeviceProperties.restype = None
        vk.vkGetPhysicalDeviceProperties.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
        vk.vkDestroyInstance.restype = None
        vk.vkDestroyInstance.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
    except AttributeError:
        return frozenset()
    info = _VkInstanceCreateInfo(sType=_VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO)
    instance = ctypes.c_void_p()
    if vk.vkCreateInstance(ctypes.byref(info), None, ctypes.byref(instance)) != 0:
        return frozenset()
    try:
        count = ctypes.c_uint32(0)
        if vk.vkEnumeratePhysicalDevices(instance, ctypes.byref(count), None) != 0 or not count.value:
            return frozenset()
        handles = (ctypes.c_void_p * count.value)()
        if vk.vkEnumeratePhysicalDevices(instance, ctypes.byref(count), handles) not in (0, 5):  # 5: VK_INCOMPLETE
            return frozenset()
        names = set()
        for handle in handles[:count.value]:
            props = ctypes.create_string_buffer(_VK_PROPERTIES_SIZE)
            vk.vkGetPhysicalDeviceProperties(handle, props)
            kind = int.from_bytes(props.raw[_VK_TYPE_OFFSET:_VK_TYPE_OFFSET + 4], sys.byteorder, signed=True)
            if kind == VK_PHYSICAL_DEVICE_TYPE_CPU:
                raw = props.raw[_VK_NAME_OFFSET:_VK_NAME_OFFSET + _VK_NAME_SIZE]
                names.add(raw.split(b"\0", 1)[0].decode("utf-8", "replace"))
        return frozenset(names)
    finally:
        vk.vkDestroyInstance(instance, None)


class Registry:
    """ggml's backend registry in the loaded llama.cpp (`ggml` is the libggml CDLL, `lib_dir` its folder);
    `vulkan_cpus` names the Vulkan devices that are really a CPU."""

    def __init__(self, ggml: Any, lib_dir: Path, vulkan_cpus: Callable[[], frozenset[str]] = vulkan_cpu_devices) -> None:
        self.lib_dir = lib_dir
        self._vulkan_cpus = vulkan_cpus
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
            name = _text(self._fn["ggml_backend_dev_description"](device)) or _text(self._fn["ggml_backend_dev_name"](device))
            found.append(GpuDevice(
                name=name,
                total_bytes=total.value or None,
                free_bytes=free.value or None,
                backend=backend,
                device_id=_text(self._fn["ggml_backend_dev_name"](device)),
                integrated=kind == DEV_IGPU,
                cpu_type=backend.lower() == "vulkan" and name in self._vulkan_cpus(),
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
