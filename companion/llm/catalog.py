"""Recommended small chat models, which one fits this machine, and human names for model files."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from companion.llm.default_model import FILENAME as EMBEDDED_FILENAME
from companion.llm.speed import Benchmark, comfortable, tokens_per_s

if TYPE_CHECKING:  # only a type here: at run time the catalog needs nothing from the hardware probe
    from companion.llm.hardware import Capabilities

_GB = 10**9
RAM_SHARE = 0.6  # a companion runs beside everything else: it may plan on this share of the machine's RAM
UNKNOWN_RAM_BUDGET_GB = 4.0  # when RAM cannot be read, assume a modest 8 GB laptop
VRAM_MARGIN_GB = 1.0  # context cache and compute buffers on top of the weights


@dataclass(frozen=True)
class CuratedModel:
    """A good small chat model; sizes are those of the listed file, the checksum comes from the Hub at download."""

    key: str  # stable id, kept in settings
    label: str  # what people read: status bar, offers, lists
    repo_id: str
    filename: str
    architecture: str  # the GGUF's `general.architecture`; the bundled llama.cpp must know it
    size_gb: float  # download size (decimal GB)
    ram_gb: float  # memory to run it with a 4096-token context
    languages: tuple[str, ...]  # ISO codes it converses well in
    tools: bool  # its chat template supports tool calls (the memory tools need them)
    good_for: str
    quant: str = "Q4_K_M"  # the quantization of `filename`
    known_sizes: tuple[tuple[str, float], ...] = ()  # download sizes (GB) of other quantizations, where listed

    @property
    def chinese(self) -> bool:
        return "zh" in self.languages

    @property
    def size_bytes(self) -> int:
        return int(self.size_gb * _GB)

    def variants(self) -> tuple["CuratedModel", ...]:
        """The same model in the quantizations the library offers, smallest first (this one among them)."""
        overhead = self.ram_gb - self.size_gb
        known = dict(self.known_sizes)
        found = []
        for quant, ratio in QUANT_SIZES.items():
            if quant == self.quant:
                found.append(self)
                continue
            size = known.get(quant) or round(self.size_gb * ratio / QUANT_SIZES[self.quant], 1)
            filename = re.sub(re.escape(self.quant), lambda m: quant if m.group(0).isupper() else quant.lower(),
                              self.filename, flags=re.IGNORECASE)
            found.append(replace(self, quant=quant, filename=filename, size_gb=size, ram_gb=round(size + overhead, 1)))
        return tuple(found)

    def describe(self) -> str:
        return f"{self.label}: {self.size_gb:.1f} GB download, needs about {math.ceil(self.ram_gb)} GB RAM. {self.good_for}"


# The quantizations offered for each model, with their size against Q4_K_M (bits per weight: 3.9, 4.9, 8.5):
# a smaller file for machines short of memory, the balanced default, and near-lossless quality.
QUANT_SIZES = {"Q3_K_M": 0.80, "Q4_K_M": 1.0, "Q8_0": 1.74}
QUANT_NOTES = {"Q3_K_M": "smaller, a little less accurate", "Q4_K_M": "balanced (recommended)",
               "Q8_0": "best quality, about twice the size"}

# Ordered best first: the first entry that fits a machine is the one offered. All are instruct models that answer
# directly (no hidden "thinking" phase), so the first reply is not delayed by a long reasoning trace.
CURATED: tuple[CuratedModel, ...] = (
    # Gemma 4 (2026): function calling and 140+ languages. Repository and file name as listed for
    # https://huggingface.co/unsloth/gemma-4-E4B-it-GGUF (Q4_K_M: 4,977,169,568 bytes).
    CuratedModel("gemma-4-e4b", "Gemma 4 E4B", "unsloth/gemma-4-E4B-it-GGUF", "gemma-4-E4B-it-Q4_K_M.gguf",
                 "gemma4", 5.0, 6.5, ("en", "zh"), True,
                 "The most capable here: warm, thoughtful conversation in English, Chinese and many more.",
                 known_sizes=(("Q8_0", 8.2),)),  # Q8_0: 8.2 GB as listed for the same repository
    # Qwen3-4B-Instruct-2507: the non-thinking update of Qwen3 4B, tool calling, Chinese and English.
    # https://huggingface.co/bartowski/Qwen_Qwen3-4B-Instruct-2507-GGUF (Q4_K_M: 2,497,280,736 bytes).
    CuratedModel("qwen3-4b-instruct-2507", "Qwen3 4B Instruct", "bartowski/Qwen_Qwen3-4B-Instruct-2507-GGUF",
                 "Qwen_Qwen3-4B-Instruct-2507-Q4_K_M.gguf", "qwen3", 2.5, 3.5, ("en", "zh"), True,
                 "Best for 8 GB machines: quick, sharp and fluent in Chinese and English."),
    # Gemma 4 E2B: the small Gemma 4. https://huggingface.co/unsloth/gemma-4-E2B-it-GGUF
    # (Q4_K_M of gemma-4-E2B-it: about 3.4 GB, per https://huggingface.co/Asystemoffields/gemma-4-E2B-it-PMRA-GGUF).
    CuratedModel("gemma-4-e2b", "Gemma 4 E2B", "unsloth/gemma-4-E2B-it-GGUF", "gemma-4-E2B-it-Q4_K_M.gguf",
                 "gemma4", 3.4, 4.5, ("en", "zh"), True,
                 "Gemma 4's small edition: natural conversation in many languages."),
    # Phi-4-mini-instruct (3.8B, 128K context, tool-enabled chat format, architecture phi3).
    # https://huggingface.co/bartowski/microsoft_Phi-4-mini-instruct-GGUF (Q4_K_M: about 2.5 GB).
    CuratedModel("phi-4-mini", "Phi-4 mini Instruct", "bartowski/microsoft_Phi-4-mini-instruct-GGUF",
                 "microsoft_Phi-4-mini-instruct-Q4_K_M.gguf", "phi3", 2.5, 3.5, ("en",), True,
                 "Careful reasoning and tidy answers in English."),
    # Llama 3.2 3B Instruct (tool calling in its template). https://huggingface.co/bartowski/Llama-3.2-3B-Instruct-GGUF
    CuratedModel("llama-3.2-3b", "Llama 3.2 3B Instruct", "bartowski/Llama-3.2-3B-Instruct-GGUF",
                 "Llama-3.2-3B-Instruct-Q4_K_M.gguf", "llama", 2.0, 3.0, ("en",), True,
                 "Friendly everyday English conversation on modest laptops."),
    # Qwen2.5 1.5B Instruct, official GGUF. https://huggingface.co/Qwen/Qwen2.5-1.5B-Instruct-GGUF
    CuratedModel("qwen2.5-1.5b", "Qwen2.5 1.5B Instruct", "Qwen/Qwen2.5-1.5B-Instruct-GGUF",
                 "qwen2.5-1.5b-instruct-q4_k_m.gguf", "qwen2", 1.1, 2, ("en", "zh"), True,
                 "Small and quick, in Chinese and English; for 4 GB machines."),
    # Llama 3.2 1B Instruct. https://huggingface.co/bartowski/Llama-3.2-1B-Instruct-GGUF
    CuratedModel("llama-3.2-1b", "Llama 3.2 1B Instruct", "bartowski/Llama-3.2-1B-Instruct-GGUF",
                 "Llama-3.2-1B-Instruct-Q4_K_M.gguf", "llama", 0.8, 1.5, ("en",), True,
                 "Fast replies on old or small machines (English)."),
    # Gemma 3 1B it (no tool calls in its template). https://huggingface.co/bartowski/google_gemma-3-1b-it-GGUF
    # (Q4_K_M: 806,058,496 bytes).
    CuratedModel("gemma-3-1b", "Gemma 3 1B", "bartowski/google_gemma-3-1b-it-GGUF", "google_gemma-3-1b-it-Q4_K_M.gguf",
                 "gemma3", 0.8, 1.5, ("en", "zh"), False,
                 "Tiny multilingual chat for machines with little memory."),
    # Larger, older choices for 16 GB machines or a GPU.
    # https://huggingface.co/bartowski/Meta-Llama-3.1-8B-Instruct-GGUF
    CuratedModel("llama-3.1-8b", "Llama 3.1 8B Instruct", "bartowski/Meta-Llama-3.1-8B-Instruct-GGUF",
                 "Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf", "llama", 4.9, 6.5, ("en",), True,
                 "A larger English model; best with a GPU or 16 GB RAM."),
    # https://huggingface.co/bartowski/Qwen2.5-7B-Instruct-GGUF
    CuratedModel("qwen2.5-7b", "Qwen2.5 7B Instruct", "bartowski/Qwen2.5-7B-Instruct-GGUF",
                 "Qwen2.5-7B-Instruct-Q4_K_M.gguf", "qwen2", 4.7, 6.0, ("en", "zh"), True,
                 "A larger model for Chinese and English; best with a GPU or 16 GB RAM."),
)

EMBEDDED_LABEL = "SmolLM2 135M (built-in)"


@dataclass(frozen=True)
class EmbedderModel:
    """A GGUF embedding model recall can use once downloaded: how to run it (pooling, the prefixes its
    training used) and where it comes from."""

    key: str  # stable id; also names its vector store
    label: str
    repo_id: str
    filename: str
    size_gb: float
    pooling: str  # "last" | "mean" | "cls": set per model (forcing LAST on a BERT-type model aborts llama.cpp)
    query_prefix: str = ""
    passage_prefix: str = ""
    n_ctx: int = 512
    floor: float = 0.4  # cosine below which a text is unrelated to a query, on this model's scale

    def describe(self) -> str:
        return f"{self.label}: {self.size_gb:.1f} GB download. Finds memories by meaning in 100+ languages."


# Stronger than the built-in encoder, offered in the model library. Qwen3-Embedding-0.6B, official GGUF:
# https://huggingface.co/Qwen/Qwen3-Embedding-0.6B-GGUF (Q8_0, about 0.64 GB). Its GGUF carries no pooling key
# (last-token pooling), and queries take an instruction prefix while passages take none.
EMBEDDERS: tuple[EmbedderModel, ...] = (
    EmbedderModel("qwen3-embedding-0.6b", "Qwen3 Embedding 0.6B", "Qwen/Qwen3-Embedding-0.6B-GGUF",
                  "Qwen3-Embedding-0.6B-Q8_0.gguf", 0.64, "last",
                  query_prefix="Instruct: Given a question, retrieve past messages and notes that answer it\nQuery: "),
)


def embedder_by_filename(filename: str) -> EmbedderModel | None:
    lowered = filename.lower()
    return next((model for model in EMBEDDERS if model.filename.lower() == lowered), None)


def by_key(key: str) -> CuratedModel | None:
    return next((model for model in CURATED if model.key == key), None)


def by_filename(filename: str) -> CuratedModel | None:
    lowered = filename.lower()
    return next((model for model in CURATED if model.filename.lower() == lowered), None)


def ram_budget_gb(caps: Capabilities) -> float:
    if caps.ram_total is None:
        return UNKNOWN_RAM_BUDGET_GB
    return caps.ram_total / _GB * RAM_SHARE


def fits(model: CuratedModel, caps: Capabilities) -> bool:
    """It fits this machine's RAM share, or a GPU with room for all of it."""
    if model.ram_gb <= ram_budget_gb(caps):
        return True
    vram = caps.vram_free
    return bool(caps.gpu_offload and not caps.unified_memory and vram is not None
                and model.size_gb + VRAM_MARGIN_GB <= vram / _GB)


def speed(model: CuratedModel, caps: Capabilities, bench: Benchmark) -> float:
    """Estimated tokens a second of this model here (with as many layers on the GPU as fit)."""
    return tokens_per_s(model.size_bytes, bench, caps)


def recommend(caps: Capabilities, chinese: bool = False, bench: Benchmark | None = None) -> CuratedModel | None:
    """The best curated model that fits; for a Chinese speaker, the best that also speaks Chinese.

    With a speed measurement, the best that also answers at a comfortable reading pace; when none
    does, the quickest that fits (never a slow big model while a smaller one fits).
    """
    fitting = [m for m in CURATED if (m.chinese or not chinese) and fits(m, caps)]
    if not fitting:
        return None
    if bench is None:
        return fitting[0]
    quick = [m for m in fitting if comfortable(speed(m, caps, bench))]
    return quick[0] if quick else min(fitting, key=lambda m: m.size_gb)


_RUN_CODE = re.compile(r"(?i)^(?:\d+k|lc\d+k?|mix\d+|ep\d+|step\d+|ckpt\d*|v\d+(?:\.\d+)*|gguf|q\d\w*|f16|bf16|f32)$")
_SIZE = re.compile(r"(?i)^\d+(?:\.\d+)?[mbk]$")
_FAMILIES = {"smollm": "SmolLM", "qwen": "Qwen", "llama": "Llama", "gemma": "Gemma", "phi": "Phi",
             "mistral": "Mistral", "olmo": "OLMo", "glm": "GLM", "deepseek": "DeepSeek", "granite": "Granite"}


def clean_model_name(raw: str) -> str:
    """A GGUF's `general.name` for people: family spelled right, size kept, training-run codes dropped
    ("Smollm2 135M 8k Lc100K Mix1 Ep2" -> "SmolLM2 135M")."""
    words = raw.replace("_", " ").replace("-", " ").split()
    kept: list[str] = []
    for word in words:
        if kept and _RUN_CODE.match(word):
            continue
        if _SIZE.match(word):
            word = word[:-1] + word[-1].upper()
        kept.append(_family_case(word))
    return " ".join(kept)


def _family_case(word: str) -> str:
    lowered = word.lower()
    for family, spelled in _FAMILIES.items():
        if lowered.startswith(family):
            return spelled + word[len(family):]
    return word


def display_name(path: Path, general_name: object = None) -> str:
    """The curated label, else the file's own name cleaned up, else the file name."""
    if path.name == EMBEDDED_FILENAME:
        return EMBEDDED_LABEL
    embedder = embedder_by_filename(path.name)
    if embedder is not None:
        return embedder.label
    curated = by_filename(path.name)
    if curated is not None:
        return curated.label
    if isinstance(general_name, str) and general_name.strip():
        cleaned = clean_model_name(general_name.strip())
        if cleaned:
            return cleaned
    return path.stem
