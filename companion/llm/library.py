"""The model library: the embedded model, GGUFs in models/, and files added from elsewhere."""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from companion.errors import CompanionError, ModelError, ModelNotFoundError, StorageError
from companion.llm.catalog import EMBEDDERS, EmbedderModel, display_name, embedder_by_filename
from companion.llm.default_model import default_model_path
from companion.llm.gguf import GGUFInfo, read_gguf
from companion.atomic import TEMP_PREFIX, describe_os_error
from companion.paths import Home
from companion.settings import ModelSettings

if TYPE_CHECKING:
    from companion.llm.download import Downloader

EMBEDDED, IN_MODELS, EXTERNAL = "embedded", "models", "external"
ADD_MODES = ("copy", "link", "reference")
_COPY_CHUNK = 8 * 2**20

# Architectures whose usual instruct format is known, for GGUFs that carry no chat template.
_FORMAT_BY_ARCH = {
    "qwen": "chatml", "qwen2": "chatml", "qwen3": "chatml", "qwen2moe": "chatml", "phi3": "chatml",
    "gemma": "gemma", "gemma2": "gemma", "gemma3": "gemma", "chatglm": "chatglm3", "baichuan": "baichuan-2",
    "mistral": "mistral-instruct",
}


def suggest_chat_format(meta: GGUFInfo) -> str:
    """A llama-cpp-python chat format for a GGUF without a template (never the silent llama-2 default)."""
    arch = meta.architecture
    if arch == "llama":
        vocab = meta.arch_int("vocab_size") or 0
        if vocab >= 128000:
            return "llama-3"
        if "mistral" in meta.name.lower():
            return "mistral-instruct"
        return "chatml"
    return _FORMAT_BY_ARCH.get(arch, "chatml")


@dataclass
class ModelEntry:
    path: Path
    source: str  # EMBEDDED | IN_MODELS | EXTERNAL
    info: GGUFInfo | None = None
    error: str = ""  # why it cannot be used (missing, not a GGUF, truncated...)
    active: bool = False

    @property
    def embedder(self) -> EmbedderModel | None:
        """The embedding model this file is (recall uses it to find memories by meaning; it cannot chat)."""
        return embedder_by_filename(self.path.name)

    @property
    def usable(self) -> bool:
        return self.info is not None and not self.error

    @property
    def name(self) -> str:
        return display_name(self.path, self.info.metadata.get("general.name") if self.info else None)

    @property
    def file_name(self) -> str:
        return self.path.name

    @property
    def warning(self) -> str:
        if self.embedder is not None:
            return "Embedding model: recall uses it to find memories by meaning (it does not chat)."
        if self.info is None or self.info.chat_template is not None:
            return ""
        return (
            f"No chat template in this file: Companion will use the '{suggest_chat_format(self.info)}' format. "
            "If replies look odd, pick another format in Settings > Model."
        )

    def summary(self) -> dict[str, str]:
        """Display strings for a table row or `companion models list`."""
        info = self.info
        return {
            "name": self.name,
            "file": self.file_name,
            "source": self.source,
            "architecture": info.architecture if info else "",
            "parameters": info.size_label if info else "",
            "quantization": info.quantization if info else "",
            "size": format_bytes(info.file_size) if info else "",
            "context": str(info.context_length or "") if info else "",
            "template": ("yes" if info.chat_template else "no") if info else "",
            "status": self.error or self.warning or "ok",
        }


def format_bytes(size: int) -> str:
    if size >= 2**30:
        return f"{size / 2**30:.1f} GB"
    return f"{size / 2**20:.0f} MB"


def inspect(path: Path, source: str = EXTERNAL) -> ModelEntry:
    """Read a file's GGUF header; problems become the entry's error instead of raising."""
    try:
        return ModelEntry(path=path, source=source, info=read_gguf(path))
    except ModelError as exc:
        return ModelEntry(path=path, source=source, error=str(exc))
    except OSError as exc:
        return ModelEntry(path=path, source=source, error=f"Cannot read {path.name}: {exc.strerror or exc}")


class ModelLibrary:
    """Lists and changes the models the user can choose; edits `settings` in place (the caller saves)."""

    def __init__(self, home: Home, settings: ModelSettings, embedded: Path | None | bool = True) -> None:
        self.home = home
        self.settings = settings
        self.embedded = default_model_path() if embedded is True else (embedded or None)

    def entries(self) -> list[ModelEntry]:
        found: list[ModelEntry] = []
        seen: set[str] = set()

        def take(path: Path, source: str) -> None:
            key = _key(path)
            if key in seen:
                return
            seen.add(key)
            found.append(inspect(path, source))

        if self.embedded is not None:
            take(self.embedded, EMBEDDED)
        if self.home.models.is_dir():
            for path in sorted(self.home.models.iterdir(), key=lambda p: p.name.lower()):
                if path.suffix.lower() == ".gguf" and not path.name.startswith((".", TEMP_PREFIX)):
                    take(path, IN_MODELS)
        for name in self.settings.library:
            take(Path(name).expanduser(), EXTERNAL)
        if self.settings.path:
            take(Path(self.settings.path).expanduser(), EXTERNAL)
        active = self.active_path()
        for entry in found:
            entry.active = active is not None and _key(entry.path) == _key(active)
        return found

    def active_path(self) -> Path | None:
        return Path(self.settings.path).expanduser() if self.settings.path else self.embedded

    def find(self, query: str) -> ModelEntry:
        """By list number (1-based), file name, stem, model name or path."""
        entries = self.entries()
        if query.isdigit() and 1 <= int(query) <= len(entries):
            return entries[int(query) - 1]
        lowered = query.lower()
        for entry in entries:
            if lowered in (entry.file_name.lower(), entry.path.stem.lower(), entry.name.lower()):
                return entry
        candidate = Path(query).expanduser()
        for entry in entries:
            if _key(entry.path) == _key(candidate):
                return entry
        if lowered == EMBEDDED and self.embedded is not None:
            return entries[0]
        raise ModelNotFoundError(f"No model '{query}' in the library. `companion models list` shows what is there.")

    def add(self, source: Path, mode: str = "copy", progress: Callable[[int, int], None] | None = None) -> ModelEntry:
        """Check the file, then copy or link it into models/, or just remember where it is ("reference")."""
        if mode not in ADD_MODES:
            raise CompanionError(f"Unknown way to add a model: {mode!r} (use {', '.join(ADD_MODES)}).")
        source = source.expanduser().resolve()
        info = read_gguf(source)  # refuses missing, non-GGUF and truncated files before anything is copied
        if mode == "reference":
            if str(source) not in self.settings.library and not _inside(source, self.home.models):
                self.settings.library.append(str(source))
            return self._entry_for(source)
        target = self.home.models / source.name
        if target.exists():
            if _key(target) == _key(source) or target.stat().st_size == info.file_size:
                return self._entry_for(target)
            raise CompanionError(f"models/ already has a different file named {source.name}. Rename one of them first.")
        self.home.models.mkdir(parents=True, exist_ok=True)
        try:
            if mode == "link":
                _link(source, target)
            else:
                _copy(source, target, progress)
        except OSError as exc:
            raise StorageError(describe_os_error(exc, target)) from exc
        return self._entry_for(target)

    def remove(self, path: Path, delete_file: bool = False) -> None:
        """Forget a model; a file inside models/ is deleted only with delete_file=True."""
        if self.embedded is not None and _key(path) == _key(self.embedded):
            raise CompanionError("The embedded model is part of Companion and cannot be removed.")
        stored = _inside(path, self.home.models)
        if stored and not delete_file:
            raise CompanionError(f"{path.name} is stored in models/; removing it deletes the file. Confirm to delete.")
        was_active = bool(self.settings.path) and _key(Path(self.settings.path).expanduser()) == _key(path)
        self.settings.library = [p for p in self.settings.library if _key(Path(p).expanduser()) != _key(path)]
        if stored:
            try:
                path.unlink(missing_ok=True)
            except OSError as exc:
                raise StorageError(describe_os_error(exc, path)) from exc
        if was_active:
            self.settings.path = ""

    def set_active(self, path: Path, probe: bool = False) -> ModelEntry:
        """Make `path` the model to load; `probe` also asks llama.cpp whether it can run it (no weights read)."""
        entry = inspect(path)
        if not entry.usable:
            raise ModelError(entry.error)
        if entry.embedder is not None:
            raise ModelError(f"{entry.name} is an embedding model: recall uses it by itself; it cannot be the chat model.")
        if probe:
            from companion.llm.llama import probe_model

            probe_model(path)
        if self.embedded is not None and _key(path) == _key(self.embedded):
            self.settings.path = ""
        else:
            self.settings.path = str(path)
            if not _inside(path, self.home.models) and str(path) not in self.settings.library:
                self.settings.library.append(str(path))
        return self._entry_for(path)

    def embedders(self) -> list[tuple[EmbedderModel, Path | None]]:
        """The embedding models on offer and, for each, its file in models/ once downloaded."""
        out: list[tuple[EmbedderModel, Path | None]] = []
        for model in EMBEDDERS:
            path = self.home.models / model.filename
            out.append((model, path if path.is_file() else None))
        return out

    def download_embedder(self, model: EmbedderModel, downloader: "Downloader",
                          progress: Callable[[int, int], None] | None = None) -> Path:
        """Fetch an embedding model into models/ (resumable, checked); recall switches to it in the background."""
        return downloader.download(model.repo_id, model.filename, progress=progress)

    def _entry_for(self, path: Path) -> ModelEntry:
        for entry in self.entries():
            if _key(entry.path) == _key(path):
                return entry
        return inspect(path)


def _key(path: Path) -> str:
    try:
        return os.path.normcase(str(path.expanduser().resolve()))
    except OSError:
        return os.path.normcase(str(path))


def _inside(path: Path, folder: Path) -> bool:
    try:
        path.expanduser().resolve().relative_to(folder.resolve())
        return True
    except (ValueError, OSError):
        return False


def _link(source: Path, target: Path) -> None:
    try:
        os.link(source, target)  # a hard link costs no space and survives the original being moved
    except OSError:
        target.symlink_to(source)


def _copy(source: Path, target: Path, progress: Callable[[int, int], None] | None) -> None:
    """Copy under a temp name, then rename: an interrupted copy never looks like a model."""
    temp = target.with_name(f"{TEMP_PREFIX}{target.name}")
    total = source.stat().st_size
    free = shutil.disk_usage(target.parent).free
    if free < total:
        raise StorageError(
            f"Not enough disk space to copy {source.name}: it needs {format_bytes(total)}, "
            f"{format_bytes(free)} is free. Free some space or add it as a reference instead."
        )
    done = 0
    try:
        with open(source, "rb") as src, open(temp, "wb") as dst:
            while chunk := src.read(_COPY_CHUNK):
                dst.write(chunk)
                done += len(chunk)
                if progress is not None:
                    progress(done, total)
            dst.flush()
            os.fsync(dst.fileno())
        os.replace(temp, target)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise
