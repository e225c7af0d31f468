"""What this machine offers a model (cores, RAM, GPU/VRAM) and how much a model will need of it."""

from __future__ import annotations

import platform
import shutil
import subprocess
import sys
from dataclasses import dataclass, field

from companion.errors import ModelMemoryError
from companion.llm.cpu import physical_cores, ram_bytes
from companion.llm.gguf import GGUFInfo

GPU_LAYERS_AUTO = -2  # ModelSettings.n_gpu_layers: as many layers as fit
GPU_LAYERS_ALL = -1
_MIB = 2**20
_GIB = 2**30
VRAM_RESERVE = 512 * _MIB  # left free for the desktop and the driver
RAM_RESERVE = 256 * _MIB


@dataclass
class GpuDevice:
    name: str
    total_bytes: int | None = None
    free_bytes: int | None = None
    backend: str = ""  # the llama.cpp backend that drives it: Vulkan, CUDA, Metal...
    device_id: str = ""  # llama.cpp's name for it ("Vulkan0")
    integrated: bool = False  # shares the system's RAM
    cpu_type: bool = False  # a CPU behind a GPU interface (lavapipe, SwiftShader): never faster than the CPU

    def describe(self) -> str:
        """"NVIDIA GeForce RTX 3060 (Vulkan, 11.2 of 12.0 GB free)"."""
        details = [self.backend] if self.backend else []
        if self.free_bytes is not None and self.total_bytes:
            details.append(f"{self.free_bytes / _GIB:.1f} of {self.total_bytes / _GIB:.1f} GB free")
        elif self.free_bytes is not None:
            details.append(f"{self.free_bytes / _GIB:.1f} GB free")
        return f"{self.name} ({', '.join(details)})" if details else self.name


def best_device(devices: list[GpuDevice]) -> GpuDevice | None:
    """The device llama.cpp fills first: a dedicated GPU before an integrated one, then the most free memory."""
    return max(devices, key=lambda g: (not g.integrated, g.free_bytes or 0)) if devices else None


@dataclass
class GpuProbe:
    """What the installed llama.cpp can use: its GPU devices, or one line saying why there are none."""

    offload: bool
    devices: list[GpuDevice] = field(default_factory=list)
    note: str = ""
    reason: str = ""  # which kind of "none" (llm/devices.py), for a translated note
    backend: str = ""  # the GPU backend the note is about
    detail: str = ""  # the system's own words (a dynamic loader's message)


@dataclass
class Capabilities:
    """A snapshot of the machine; tests build one by hand instead of probing."""

    gpu_offload: bool = False  # the installed llama.cpp build can offload layers to a GPU
    gpus: list[GpuDevice] = field(default_factory=list)
    physical_cores: int = 1
    ram_total: int | None = None
    ram_available: int | None = None
    unified_memory: bool = False  # Apple silicon: the GPU uses system RAM
    gpu_note: str = ""  # why no GPU is used, when there is none
    gpu_reason: GpuProbe | None = None  # the same, for a translated note

    @property
    def real_gpus(self) -> list[GpuDevice]:
        """The devices worth offloading to: a CPU-type device only does the CPU's work, more slowly."""
        return [g for g in self.gpus if not g.cpu_type]

    @property
    def vram_free(self) -> int | None:
        if self.unified_memory and self.ram_available is not None:
            return self.ram_available
        known = [g.free_bytes for g in self.real_gpus if g.free_bytes is not None]
        return max(known) if known else None

    @property
    def best_gpu(self) -> GpuDevice | None:
        return best_device(self.real_gpus) if self.gpu_offload else None

    def describe_gpu(self) -> str:
        if not self.gpu_offload:
            return self.gpu_note or "CPU only (this llama.cpp build has no GPU support)"
        if not self.gpus:
            return "GPU build; no GPU details available"
        return "; ".join(gpu.describe() for gpu in self.gpus)


@dataclass
class MemoryEstimate:
    weights: int
    kv_cache: int
    compute: int
    gpu_layers: int  # resolved: 0..block_count+1
    total_layers: int
    ram: int  # bytes of system RAM the model will take
    vram: int  # bytes of GPU memory

    def describe(self) -> str:
        if self.vram:
            return f"about {self.ram / _GIB:.1f} GB RAM + {self.vram / _GIB:.1f} GB VRAM"
        return f"about {self.ram / _GIB:.1f} GB RAM"


def detect(probe: GpuProbe | None = None) -> Capabilities:
    """This machine: cores, RAM, and the GPUs in `probe` (what llama.cpp found: `llama.machine()` asks it)."""
    probe = probe or GpuProbe(offload=False)
    total, available = ram_bytes()
    apple = sys.platform == "darwin" and platform.machine() == "arm64"
    gpus = list(probe.devices)
    if probe.offload and not gpus and not apple:
        gpus = _nvidia_gpus()  # a GPU build whose llama.cpp cannot list its devices
    if apple and probe.offload:
        gpus = [GpuDevice(g.name, total, available, g.backend or "Metal", g.device_id, True) for g in gpus] or \
            [GpuDevice("Apple GPU", total, available, "Metal", integrated=True)]
    return Capabilities(
        gpu_offload=probe.offload,
        gpus=gpus,
        physical_cores=physical_cores(),
        ram_total=total,
        ram_available=available,
        unified_memory=apple,
        gpu_note=probe.note,
        gpu_reason=probe if probe.reason else None,
    )


def _nvidia_gpus() -> list[GpuDevice]:
    tool = shutil.which("nvidia-smi")
    if tool is None:
        return []
    try:
        out = subprocess.run(
            [tool, "--query-gpu=name,memory.total,memory.free", "--format=csv,noheader,nounits"],
            capture_output=True, text=True, timeout=3, check=True,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    return parse_nvidia_smi(out)


def parse_nvidia_smi(text: str) -> list[GpuDevice]:
    """Rows of `name, total MiB, free MiB`."""
    gpus = []
    for line in text.strip().splitlines():
        parts = [p.strip() for p in line.split(",")]
        if len(parts) != 3:
            continue
        try:
            gpus.append(GpuDevice(parts[0], int(float(parts[1]) * _MIB), int(float(parts[2]) * _MIB)))
        except ValueError:
            continue
    return gpus


# -- estimates ------------------------------------------------------------------


def kv_cache_bytes(meta: GGUFInfo, n_ctx: int) -> int:
    """f16 K and V for every layer; falls back to a rough share of the weights when the header lacks sizes."""
    layers = meta.block_count or 0
    embd = meta.arch_int("embedding_length")
    heads = meta.arch_int("attention.head_count")
    if not (layers and embd and heads):
        return max(64 * _MIB, meta.file_size // 8) * n_ctx // 4096
    kv_heads = meta.arch_int("attention.head_count_kv") or heads
    key_len = meta.arch_int("attention.key_length") or embd // heads
    value_len = meta.arch_int("attention.value_length") or embd // heads
    return layers * n_ctx * kv_heads * (key_len + value_len) * 2


def estimate(meta: GGUFInfo, n_ctx: int, gpu_layers: int) -> MemoryEstimate:
    """Memory for these weights at this context with `gpu_layers` resolved (0..block_count+1, or -1 = all)."""
    total_layers = (meta.block_count or 0) + 1  # llama.cpp counts the output layer as one more
    layers = total_layers if gpu_layers < 0 else min(gpu_layers, total_layers)
    weights = meta.file_size
    kv = kv_cache_bytes(meta, n_ctx)
    embd = meta.arch_int("embedding_length") or 2048
    compute = 64 * _MIB + n_ctx * embd * 4 * 4
    share = layers / total_layers if total_layers else 0.0
    vram = int((weights + kv) * share + compute) if layers else 0
    ram = int((weights + kv) * (1 - share)) + (compute if not layers else 64 * _MIB)
    return MemoryEstimate(weights, kv, compute, layers, total_layers, ram, vram)


def auto_gpu_layers(meta: GGUFInfo, n_ctx: int, caps: Capabilities) -> int:
    """As many layers as fit in free VRAM; all if VRAM cannot be read; 0 without GPU support or when the
    only devices are CPU-type ones."""
    if not caps.gpu_offload or (caps.gpus and caps.best_gpu is None):
        return 0
    free = caps.vram_free
    if free is None:
        return GPU_LAYERS_ALL
    full = estimate(meta, n_ctx, GPU_LAYERS_ALL)
    budget = free - VRAM_RESERVE - full.compute
    if budget <= 0:
        return 0
    per_layer = (full.weights + full.kv_cache) / max(1, full.total_layers)
    layers = int(budget // per_layer)
    return GPU_LAYERS_ALL if layers >= full.total_layers else max(0, layers)


def resolve_gpu_layers(requested: int, meta: GGUFInfo, n_ctx: int, caps: Capabilities) -> int:
    if not caps.gpu_offload:
        return 0
    if requested == GPU_LAYERS_AUTO:
        return auto_gpu_layers(meta, n_ctx, caps)
    return requested


def check_fits(meta: GGUFInfo, n_ctx: int, gpu_layers: int, caps: Capabilities) -> MemoryEstimate:
    """The estimate, or ModelMemoryError saying what to change when it clearly cannot fit."""
    need = estimate(meta, n_ctx, gpu_layers)
    name = meta.path.name
    ram_free = caps.ram_available
    if ram_free is not None and need.ram > ram_free + RAM_RESERVE and not caps.unified_memory:
        raise ModelMemoryError(
            f"{name} with a {n_ctx}-token context needs {need.describe()}, but only {ram_free / _GIB:.1f} GB RAM "
            "is free. Close other programs, lower the context size, choose a smaller model "
            "(or a smaller quantization), or use a model server in Settings > Model."
        )
    vram_free = caps.vram_free
    total_need = need.ram + need.vram if caps.unified_memory else need.vram
    if vram_free is not None and need.vram and total_need > vram_free:
        raise ModelMemoryError(
            f"{name} with {need.gpu_layers} layers on the GPU needs {need.vram / _GIB:.1f} GB VRAM, but only "
            f"{vram_free / _GIB:.1f} GB is free. Set GPU layers to Auto or a lower number, or lower the context size."
        )
    return need
