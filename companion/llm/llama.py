"""The default backend: llama-cpp-python in-process. The only module that imports llama_cpp."""

from __future__ import annotations

import ctypes
import logging
import os
import sys
import threading
import time
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import Any, Iterator, cast

from companion.errors import GenerationError, GpuLoadError, ModelMemoryError, UnsupportedModelError
from companion.llm.base import CancelFlag, Chunk, GenerationOptions, Message, ModelInfo, estimate_tokens
from companion.llm.catalog import display_name
from companion.llm.control_tokens import ControlTokens
from companion.llm.cpu import (CpuLoad, background_priority, free_threads, missing_cpu_features, physical_cores, ram_bytes,
                               unsupported_cpu_message)
from companion.llm.devices import Registry, device_label, gpu_failure_reason
from companion.llm.gguf import GGUFInfo, read_gguf
from companion.llm import hardware
from companion.llm.hardware import Capabilities, GpuProbe, best_device
from companion.llm.toolparse import ToolTextFilter, prompt_inputs

log = logging.getLogger(__name__)
llama_log = logging.getLogger("companion.llama_cpp")

_CALLBACK: Any = None
_REGISTRY: Registry | None = None
# llama.cpp's OpenMP workers spin between operations before they sleep (libgomp: 300,000 rounds, libomp: 200 ms).
# When a core is taken by another program, spinning burns the time slice the late thread needs;
# a short spin keeps a quiet machine's speed. Read once, when llama.cpp loads; the user's setting wins.
SPIN_ENV = {"GOMP_SPINCOUNT": "10000", "KMP_BLOCKTIME": "1"}
RETUNE_S = 1.0  # how often a long generation looks at the load again


def _llama_cpp() -> Any:
    """The llama_cpp module, imported with the spin-wait settings in place and its backend modules registered."""
    if "llama_cpp" not in sys.modules:
        for name, value in SPIN_ENV.items():
            os.environ.setdefault(name, value)
    import llama_cpp

    _registry(llama_cpp)
    return llama_cpp


def llama_cpp_module() -> Any:
    """llama_cpp ready to load a model, for a `Llama` made outside this module (a GGUF embedder): a GPU build
    registers its backends, the CPU's among them, only here; without them no model loads."""
    return _llama_cpp()


def _registry(llama_cpp: Any) -> Registry:
    """ggml's backend registry, with the CPU and GPU modules of a GGML_BACKEND_DL build loaded (once).

    Its functions are looked up through libllama's handle, so they are those of the libggml that
    libllama uses: a wheel holds libggml.so and libggml.so.0 as two files, which load as two copies
    with a registry each.
    """
    global _REGISTRY
    if _REGISTRY is None:
        _route_llama_logs(llama_cpp)
        registry = Registry(llama_cpp.llama_cpp._lib, Path(llama_cpp.__file__).parent / "lib")
        registry.load_modules()
        _REGISTRY = registry
    return _REGISTRY


MIN_MEASURED_TOKENS = 24  # fewer newly read prompt tokens say more about overheads than about speed


class PromptSpeed:
    """How fast this model reads a prompt here: newly evaluated tokens (past the reused KV cache) over
    the time to the first token, averaged over recent foreground calls."""

    def __init__(self) -> None:
        self.tokens_per_second: float | None = None
        self.last_read: int | None = None  # prompt tokens the last foreground call read past the cache

    def start(self, llm: Any, background: bool) -> "_Reading":
        return _Reading(self, llm, background)

    def note(self, tokens: int, seconds: float) -> None:
        self.last_read = tokens
        if tokens < MIN_MEASURED_TOKENS or seconds <= 0:
            return
        speed = tokens / seconds
        known = self.tokens_per_second
        self.tokens_per_second = speed if known is None else 0.7 * known + 0.3 * speed


class _Reading:
    """One call's prompt reading, timed from the call to its first token."""

    def __init__(self, speed: PromptSpeed, llm: Any, background: bool) -> None:
        self._speed = speed
        self._llm = llm
        self._cached = list(llm.input_ids[: llm.n_tokens]) if not background else None  # background: one thread, not chat's speed
        self._started = time.perf_counter()

    def first_token(self) -> None:
        if self._cached is None:
            return
        seconds = time.perf_counter() - self._started
        cached, self._cached = self._cached, None
        prompt = self._llm.input_ids[: self._llm.n_tokens]
        self._speed.note(len(prompt) - self._llm.longest_token_prefix(cached, prompt), seconds)


def probe_gpus() -> GpuProbe:
    """The GPU devices this llama.cpp can offload to, or why there are none (one line)."""
    try:
        llama_cpp = _llama_cpp()
    except (ImportError, OSError) as exc:
        return GpuProbe(offload=False, note=f"llama.cpp is unavailable ({exc}).")
    return _registry(llama_cpp).probe(gpu_offload_supported())


def machine(gpu_offload: bool | None = None) -> Capabilities:
    """This machine as llama.cpp sees it: cores, RAM and the GPUs it can use (`gpu_offload=False`: no GPU probe)."""
    return hardware.detect(probe_gpus() if gpu_offload is not False else None)


_KNOWN_FAMILIES = ControlTokens.for_server()


def neutralize_special_tokens(text: str) -> str:
    """Break the control tokens of every model family we know (a loaded model breaks its own vocabulary's)."""
    return _KNOWN_FAMILIES.neutralize(text)


def chat_formats() -> list[str]:
    """The chat format names llama-cpp-python accepts (an explicit format wins over the GGUF's template)."""
    from llama_cpp import llama_chat_format

    return sorted(llama_chat_format.LlamaChatCompletionHandlerRegistry()._chat_handlers)


def vocab_control_tokens(vocab: Any) -> list[str]:
    """Every token a loaded vocabulary matches in raw text: control and unknown tokens (matched when the
    prompt is tokenized with special tokens on) and user-defined ones (matched always)."""
    llama_cpp = _llama_cpp()
    wanted = llama_cpp.LLAMA_TOKEN_ATTR_CONTROL | llama_cpp.LLAMA_TOKEN_ATTR_USER_DEFINED | llama_cpp.LLAMA_TOKEN_ATTR_UNKNOWN
    tokens = []
    for token in range(llama_cpp.llama_vocab_n_tokens(vocab)):
        if llama_cpp.llama_vocab_get_attr(vocab, token) & wanted:
            text = llama_cpp.llama_vocab_get_text(vocab, token)
            if text:
                tokens.append(text.decode("utf-8", "replace"))
    return tokens


def valid_unicode(text: str) -> str:
    """Text the tokenizer can encode: bytes that were not UTF-8 in a file (kept as U+DCxx escapes
    so the file round-trips) and lone surrogates become U+FFFD for the model."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-8", "replace").decode("utf-8")


def _route_llama_logs(llama_cpp: Any = None) -> None:
    """Send llama.cpp's own log lines (and ggml's) to Python logging instead of the terminal."""
    global _CALLBACK
    if _CALLBACK is not None:
        return
    llama_cpp = llama_cpp or _llama_cpp()

    @llama_cpp.llama_log_callback
    def callback(level: int, text: bytes, user_data: ctypes.c_void_p) -> None:
        llama_log.debug("%s", text.decode("utf-8", "replace").rstrip())

    _CALLBACK = callback
    llama_cpp.llama_log_set(callback, ctypes.c_void_p(0))


def _patch_failed_load_cleanup() -> None:
    """llama-cpp-python 0.3.x: a LlamaModel whose load failed raises AttributeError in __del__
    (it reads `sampler` before setting it). A class default makes that cleanup a no-op."""
    from llama_cpp import _internals

    if not hasattr(_internals.LlamaModel, "sampler"):
        _internals.LlamaModel.sampler = None


def available_memory_bytes() -> int | None:
    """Available RAM (free plus reclaimable cache); None where it cannot be read."""
    return ram_bytes()[1]


def gpu_offload_supported() -> bool:
    llama_cpp = _llama_cpp()

    try:
        return bool(llama_cpp.llama_supports_gpu_offload())
    except AttributeError:
        return False


def probe_model(path: Path) -> None:
    """Load only the vocabulary (no weights): raises UnsupportedModelError if this llama.cpp cannot run the file."""
    Vocabulary(path).close()


class Vocabulary:
    """A model file's tokenizer alone, without its weights: which tokens are control tokens, and how
    llama.cpp tokenizes text. Raises UnsupportedModelError if this llama.cpp cannot read the file."""

    def __init__(self, path: Path) -> None:
        meta = read_gguf(path)
        _route_llama_logs()
        llama_cpp = _llama_cpp()
        params = llama_cpp.llama_model_default_params()
        params.vocab_only = True
        self._model = llama_cpp.llama_model_load_from_file(str(path).encode("utf-8"), params)
        if not self._model:
            raise UnsupportedModelError(
                f"This version of Companion's llama.cpp cannot run {path.name} (architecture '{meta.architecture}'): "
                "the architecture is too new or unknown, or the file's vocabulary is damaged. "
                "Choose another model, or update Companion."
            )
        self.vocab = llama_cpp.llama_model_get_vocab(self._model)

    def control_tokens(self) -> ControlTokens:
        return ControlTokens(vocab_control_tokens(self.vocab))

    def tokenize(self, text: str, special: bool) -> list[int]:
        """Token ids of `text`; with `special`, control tokens written in it are parsed, as in a rendered prompt."""
        llama_cpp = _llama_cpp()
        data = valid_unicode(text).encode("utf-8")
        size = len(data) + 8
        buffer = (llama_cpp.llama_token * size)()
        count = llama_cpp.llama_tokenize(self.vocab, data, len(data), buffer, size, False, special)
        return list(buffer[:count])

    def is_control(self, token: int) -> bool:
        llama_cpp = _llama_cpp()
        attr = llama_cpp.llama_vocab_get_attr(self.vocab, token)
        return bool(attr & (llama_cpp.LLAMA_TOKEN_ATTR_CONTROL | llama_cpp.LLAMA_TOKEN_ATTR_USER_DEFINED))

    def close(self) -> None:
        if self._model:
            _llama_cpp().llama_model_free(self._model)
            self._model = None


def engine_version() -> str:
    """"llama-cpp-python X (llama.cpp Y)": the inference engine this build runs (also when frozen,
    where package metadata is not bundled)."""
    try:
        llama_cpp = _llama_cpp()
    except (ImportError, OSError) as exc:  # missing, or a native library that will not load
        return f"llama-cpp-python unavailable ({exc})"
    binding = getattr(llama_cpp, "__version__", "unknown")
    try:
        native = llama_cpp.llama_version().decode("utf-8", "replace")
    except (AttributeError, OSError):  # an older binding without llama_version()
        return f"llama-cpp-python {binding}"
    return f"llama-cpp-python {binding} (llama.cpp {native})"


def architecture_known(name: str) -> bool:
    """Whether this llama.cpp knows the GGUF architecture `name`: it opens a weightless GGUF that names it
    and reports whether loading stopped at "unknown model architecture" (nothing is downloaded)."""
    import tempfile

    from companion.llm.gguf import minimal_gguf

    _route_llama_logs()
    llama_cpp = _llama_cpp()
    lines: list[str] = []
    with _captured_log(lines), tempfile.TemporaryDirectory(prefix="companion-arch-") as folder:
        path = Path(folder) / "probe.gguf"
        path.write_bytes(minimal_gguf({"general.architecture": name}))
        params = llama_cpp.llama_model_default_params()
        params.vocab_only = True
        model = llama_cpp.llama_model_load_from_file(str(path).encode("utf-8"), params)
        if model:
            llama_cpp.llama_model_free(model)
    return not any("unknown model architecture" in line for line in lines)


@contextmanager
def _captured_log(lines: list[str]) -> Iterator[None]:
    """llama.cpp's log lines, collected while the block runs (also at debug level)."""
    handler = _ListHandler(lines)
    llama_log.addHandler(handler)
    previous = llama_log.level
    llama_log.setLevel(logging.DEBUG)
    try:
        yield
    finally:
        llama_log.removeHandler(handler)
        llama_log.setLevel(previous)


class _ListHandler(logging.Handler):
    def __init__(self, lines: list[str]) -> None:
        super().__init__(logging.DEBUG)
        self.lines = lines

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())


class LlamaBackend:
    """One llama.cpp model; calls are serialized on an internal lock (Llama is not thread-safe)."""

    def __init__(
        self,
        model_path: str | os.PathLike[str],
        *,
        n_ctx: int = 4096,
        n_threads: int | None = None,
        n_gpu_layers: int = 0,
        chat_format: str | None = None,
    ) -> None:
        path = Path(model_path)
        meta = read_gguf(path)  # ModelNotFoundError / NotAGGUFError before llama.cpp sees it
        missing = missing_cpu_features()
        if missing:  # llama.cpp would die on an illegal instruction: say why instead
            raise UnsupportedModelError(unsupported_cpu_message(missing))
        if n_gpu_layers == 0:  # with offload the loader checks RAM and VRAM separately
            self._check_memory(meta, n_ctx)
        _route_llama_logs()
        _patch_failed_load_cleanup()
        llama_cpp = _llama_cpp()

        probe = _registry(llama_cpp).probe(gpu_offload_supported())
        layers = n_gpu_layers if probe.offload else 0
        warnings: list[str] = []
        if chat_format and chat_format not in chat_formats():  # a hand-edited or hostile settings.toml
            warnings.append(
                f"The chat format '{chat_format[:40]}' in the settings is not one this llama.cpp knows; using the model's "
                "own template. Pick a format in Settings > Model."
            )
            chat_format = None
        if n_gpu_layers and not probe.offload:
            warnings.append(probe.note or "This llama.cpp build cannot use a GPU; running on the CPU.")
        if chat_format is None and meta.chat_template is None:
            chat_format = "chatml"
            warnings.append(
                f"{path.name} has no chat template; using ChatML. Pick the right format in Settings if replies look odd."
            )
        train_ctx = meta.context_length
        if train_ctx:
            n_ctx = min(n_ctx, train_ctx)
        # At most this many threads; each generation takes only the cores that are free when it starts.
        self.max_threads = max(1, n_threads or physical_cores())
        log_lines: list[str] = []
        with _captured_log(log_lines) if layers else nullcontext():
            try:
                self._llm = llama_cpp.Llama(
                    model_path=str(path),
                    n_ctx=n_ctx,
                    n_threads=self.max_threads,
                    # llama-cpp-python evaluates prompts on every logical core by default; hyperthreads do
                    # not help and make the first token slower on a busy machine.
                    n_threads_batch=self.max_threads,
                    n_gpu_layers=layers,
                    # On the CPU, llama.cpp would still hand big batches to a GPU backend it found (op offload):
                    # CPU only, or the fallback from a GPU that failed, must not touch the GPU at all.
                    op_offload=layers != 0,
                    chat_format=chat_format,
                    verbose=False,
                )
            except ValueError as exc:
                if layers:
                    raise GpuLoadError(gpu_failure_reason(log_lines, str(exc))) from exc
                raise self._translate_load_error(exc, meta, n_ctx) from exc
        self._lock = threading.RLock()
        self.control_tokens = ControlTokens(vocab_control_tokens(self._llm._model.vocab))
        self._load = CpuLoad().start()
        self._threads = self.max_threads
        self._cancel = CancelFlag()
        self._speed = PromptSpeed()
        template = meta.chat_template or ""
        total_layers = (meta.block_count or 0) + 1  # llama.cpp counts the output layer as one more
        on_gpu = min(total_layers, layers) if layers >= 0 else total_layers
        gpu = best_device(probe.devices) if on_gpu else None
        self.info = ModelInfo(
            name=display_name(path, meta.metadata.get("general.name")),
            path=str(path),
            n_ctx=self._llm.n_ctx(),
            n_gpu_layers=on_gpu,
            gpu_offload_supported=probe.offload,
            device=device_label(on_gpu, total_layers, gpu.name if gpu else ""),
            gpu_name=gpu.name if gpu else "",
            total_layers=total_layers,
            device_note=probe.note,
            chat_format=self._llm.chat_format or "",
            has_chat_template=meta.chat_template is not None,
            supports_tools="tools" in template and "tool_call" in template,
            warnings=warnings,
        )
        self._closed = False

    @staticmethod
    def _check_memory(meta: GGUFInfo, n_ctx: int) -> None:
        free = available_memory_bytes()
        needed = meta.file_size + n_ctx * 64 * 1024  # weights + a rough KV-cache allowance
        if free is not None and needed > free * 1.5 + 512 * 1024 * 1024:
            raise ModelMemoryError(
                f"{meta.path.name} needs about {needed / 2**30:.1f} GB of memory but only {free / 2**30:.1f} GB is free. "
                "Close other programs, lower the context size, or choose a smaller model."
            )

    @staticmethod
    def _translate_load_error(exc: ValueError, meta: GGUFInfo, n_ctx: int) -> Exception:
        text = str(exc)
        if "context" in text:
            return ModelMemoryError(
                f"Not enough memory for a {n_ctx}-token context with {meta.path.name}. "
                "Lower the context size or the GPU layers in Settings > Model."
            )
        return UnsupportedModelError(
            f"llama.cpp could not load {meta.path.name} (architecture '{meta.architecture}'). "
            "It may be damaged, or too new for this version of Companion; try another GGUF."
        )

    # -- Backend protocol ----------------------------------------------------

    def _prepare(self, messages: list[Message]) -> list[dict[str, Any]]:
        """Messages whose text cannot become a control token: the template alone writes those."""
        prepared = []
        for message in messages:
            item = dict(message)
            if isinstance(item.get("content"), str):
                item["content"] = valid_unicode(item["content"])
            prepared.append(self.control_tokens.message(item))
        return prepared

    def stream_chat(self, messages: list[Message], options: GenerationOptions) -> Iterator[Chunk]:
        cancelled = self._cancel.reset()
        kwargs: dict[str, Any] = dict(
            messages=self._prepare(messages),
            max_tokens=options.max_tokens,
            temperature=options.temperature,
            top_p=options.top_p,
            stop=options.stop or None,
            stream=True,
        )
        if options.seed is not None:
            kwargs["seed"] = options.seed
        if options.json_schema is not None:
            kwargs["response_format"] = {"type": "json_object", "schema": options.json_schema}
        if options.tools and self.info.supports_tools:
            kwargs["tools"] = options.tools
        known = {t["function"]["name"] for t in options.tools or []}
        filter_ = ToolTextFilter(known, prompt_inputs(messages) if known else None)
        with self._lock:
            if self._closed:
                raise GenerationError("The model was closed.")
            reason: str | None = None
            self._use_threads(options.background)
            retune_at = time.monotonic() + RETUNE_S
            reading = self._speed.start(self._llm, options.background)
            try:
                with background_priority() if options.background else nullcontext():
                    for event in cast(Iterator[dict[str, Any]], self._llm.create_chat_completion(**kwargs)):
                        reading.first_token()
                        if cancelled.is_set():
                            reason = "cancelled"
                            break
                        choice = event["choices"][0]
                        piece = filter_.feed(choice["delta"].get("content") or "")
                        if piece:
                            yield Chunk(text=piece)
                        reason = choice.get("finish_reason") or reason
                        if not options.background and time.monotonic() >= retune_at:
                            self._use_threads(False)  # another program started or stopped meanwhile
                            retune_at = time.monotonic() + RETUNE_S
            except (RuntimeError, ValueError) as exc:
                raise GenerationError(f"The model failed while generating: {exc}") from exc
            rest, calls = filter_.finish()
            if rest:
                yield Chunk(text=rest)
            if calls and reason != "cancelled":
                yield Chunk(tool_calls=calls, finish_reason="tool_calls")
                return
            yield Chunk(finish_reason=reason or "stop")

    def threads_now(self, background: bool = False) -> int:
        """Threads a generation starting now gets: one for background work, else the cores other programs leave free."""
        if background:
            return 1
        return free_threads(self.max_threads, self._load.others_busy())

    def _use_threads(self, background: bool) -> None:
        threads = self.threads_now(background)
        if threads != self._threads:
            self._threads = threads
            _llama_cpp().llama_set_n_threads(self._llm.ctx, threads, threads)
            log.debug("llama.cpp now uses %d thread(s)", threads)

    def count_tokens(self, text: str) -> int:
        if not text:
            return 0
        with self._lock:
            if self._closed:  # the tokenizer lives in the freed model: touching it would crash the process
                return estimate_tokens(text)
            return len(self._llm.tokenize(valid_unicode(text).encode("utf-8"), add_bos=False, special=False))

    def cancel(self) -> None:
        self._cancel.set()

    def prefill(self, messages: list[Message]) -> None:
        """Evaluate the prompt (one token generated) so the next call reuses its KV cache."""
        with self._lock:
            if self._closed:
                return
            self._use_threads(False)
            reading = self._speed.start(self._llm, False)
            try:
                self._llm.create_chat_completion(messages=cast(Any, self._prepare(messages)), max_tokens=1, temperature=0.0)
            except (RuntimeError, ValueError) as exc:
                raise GenerationError(f"The model failed while reading the conversation: {exc}") from exc
            reading.first_token()

    def prompt_speed(self) -> float | None:
        return self._speed.tokens_per_second

    @property
    def prompt_tokens_read(self) -> int | None:
        """Prompt tokens the last chat call or prefill read past the reused KV cache (None before any)."""
        return self._speed.last_read

    def close(self) -> None:
        with self._lock:
            if not self._closed:
                self._closed = True
                self._load.stop()
                self._llm.close()
