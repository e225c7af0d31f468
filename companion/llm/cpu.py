"""Processor features the built-in llama.cpp needs (a portable build still assumes AVX2/FMA/F16C)."""

from __future__ import annotations

import platform
from pathlib import Path

REQUIRED_X86_FEATURES = ("avx2", "fma", "f16c")


def cpu_flags() -> set[str] | None:
    """The processor's feature flags (Linux only; None where they cannot be read)."""
    try:
        text = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    for line in text.splitlines():
        if line.startswith("flags"):
            return set(line.partition(":")[2].split())
    return None


def missing_cpu_features() -> list[str]:
    """Required features this x86-64 processor lacks (empty elsewhere or when unknown)."""
    if platform.machine().lower() not in ("x86_64", "amd64"):
        return []
    flags = cpu_flags()
    if flags is None:
        return []
    return [name.upper() for name in REQUIRED_X86_FEATURES if name not in flags]


def unsupported_cpu_message(missing: list[str]) -> str:
    return (
        f"This processor lacks {', '.join(missing)}, which Companion's built-in llama.cpp needs "
        "(Intel processors from 2013 and AMD from 2015 on have them). Use a model server instead "
        "(Settings > Model > On a model server)."
    )
