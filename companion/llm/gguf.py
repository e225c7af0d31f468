"""Read a GGUF file's header and metadata without loading its weights."""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from companion.errors import ModelNotFoundError, NotAGGUFError

MAGIC = b"GGUF"
_SCALARS = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f", 7: "<?", 10: "<Q", 11: "<q", 12: "<d"}
_STRING, _ARRAY = 8, 9
_MAX_STRING = 64 * 1024 * 1024
_FILE_TYPES = {
    0: "F32", 1: "F16", 2: "Q4_0", 3: "Q4_1", 7: "Q8_0", 8: "Q5_0", 9: "Q5_1", 10: "Q2_K", 11: "Q3_K_S",
    12: "Q3_K_M", 13: "Q3_K_L", 14: "Q4_K_S", 15: "Q4_K_M", 16: "Q5_K_S", 17: "Q5_K_M", 18: "Q6_K",
    19: "IQ2_XXS", 20: "IQ2_XS", 21: "Q2_K_S", 22: "IQ3_XS", 23: "IQ3_XXS", 24: "IQ1_S", 25: "IQ4_NL",
    26: "IQ3_S", 27: "IQ3_M", 28: "IQ2_S", 29: "IQ2_M", 30: "IQ4_XS", 31: "IQ1_M", 32: "BF16",
}
# ggml tensor type -> (elements per block, bytes per block); used to find where the data must end.
_TENSOR_BLOCKS = {
    0: (1, 4), 1: (1, 2), 2: (32, 18), 3: (32, 20), 6: (32, 22), 7: (32, 24), 8: (32, 34), 9: (32, 36),
    10: (256, 84), 11: (256, 110), 12: (256, 144), 13: (256, 176), 14: (256, 210), 15: (256, 292),
    16: (256, 66), 17: (256, 74), 18: (256, 98), 19: (256, 50), 20: (32, 18), 21: (256, 110), 22: (256, 82),
    23: (256, 136), 24: (1, 1), 25: (1, 2), 26: (1, 4), 27: (1, 8), 28: (1, 8), 29: (256, 56), 30: (1, 2),
}
_MAX_TENSORS = 1_000_000
_MAX_DIMS = 8
_MAX_KEYS = 65_536  # metadata entries; real models have a few dozen
_MAX_DEPTH = 2  # an array of arrays at most (llama.cpp reads no deeper)


@dataclass
class GGUFInfo:
    path: Path
    version: int
    tensor_count: int
    file_size: int
    metadata: dict[str, Any] = field(default_factory=dict)
    parameter_count: int = 0  # sum of all tensor elements
    data_end: int = 0  # the byte offset where the last tensor's data ends (0: unknown)

    @property
    def architecture(self) -> str:
        return str(self.metadata.get("general.architecture", "unknown"))

    @property
    def name(self) -> str:
        return str(self.metadata.get("general.name") or self.path.stem)

    @property
    def context_length(self) -> int | None:
        value = self.metadata.get(f"{self.architecture}.context_length")
        return int(value) if isinstance(value, int) else None

    @property
    def chat_template(self) -> str | None:
        value = self.metadata.get("tokenizer.chat_template")
        return value if isinstance(value, str) and value.strip() else None

    @property
    def quantization(self) -> str:
        file_type = self.metadata.get("general.file_type")
        return _FILE_TYPES.get(file_type, f"type {file_type}") if isinstance(file_type, int) else "unknown"

    @property
    def block_count(self) -> int | None:
        value = self.metadata.get(f"{self.architecture}.block_count")
        return int(value) if isinstance(value, int) else None

    def arch_int(self, key: str) -> int | None:
        """An integer hyper-parameter such as `embedding_length` (first value if it varies per layer)."""
        value = self.metadata.get(f"{self.architecture}.{key}")
        if isinstance(value, list) and value and isinstance(value[0], int):
            value = max(value)
        return int(value) if isinstance(value, int) and not isinstance(value, bool) else None

    @property
    def size_label(self) -> str:
        """Parameter count for people: the file's own label ("135M") or one computed from the tensors."""
        label = self.metadata.get("general.size_label")
        if isinstance(label, str) and label.strip():
            return label.strip()
        return format_parameters(self.parameter_count) if self.parameter_count else "unknown"


def format_parameters(count: int) -> str:
    for scale, suffix in ((1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "K")):
        if count >= scale:
            value = count / scale
            return f"{value:.1f}{suffix}" if value < 10 else f"{value:.0f}{suffix}"
    return str(count)


def minimal_gguf(metadata: dict[str, str]) -> bytes:
    """A GGUF v3 file with these string keys and no tensors (to ask llama.cpp about a header alone)."""

    def string(text: str) -> bytes:
        data = text.encode("utf-8")
        return struct.pack("<Q", len(data)) + data

    out = MAGIC + struct.pack("<IQQ", 3, 0, len(metadata))
    for key, value in metadata.items():
        out += string(key) + struct.pack("<I", _STRING) + string(value)
    return out


def check_gguf(path: Path) -> None:
    """Raise ModelNotFoundError / NotAGGUFError before llama.cpp ever sees a bad file."""
    if not path.exists():
        raise ModelNotFoundError(f"The model file {path} does not exist. Choose another file in Settings > Model.")
    if not path.is_file():
        raise NotAGGUFError(f"{path} is a folder, not a GGUF model file.")
    with open(path, "rb") as handle:
        magic = handle.read(4)
    if magic != MAGIC:
        raise NotAGGUFError(
            f"{path.name} is not a GGUF model (it does not start with 'GGUF'). "
            "Companion runs GGUF files, e.g. from a '-GGUF' repository."
        )


def read_gguf(path: Path, max_array_items: int = 0) -> GGUFInfo:
    """Header and metadata; arrays longer than `max_array_items` are summarized by their length."""
    check_gguf(path)
    size = path.stat().st_size
    with open(path, "rb") as handle:
        try:
            handle.read(4)
            (version,) = _unpack(handle, "<I")
            if version == 1:
                raise NotAGGUFError(f"{path.name} is a GGUF version 1 file, too old for llama.cpp. Convert it again.")
            tensor_count, kv_count = _unpack(handle, "<QQ")
            if kv_count > _MAX_KEYS:
                raise EOFError
            metadata: dict[str, Any] = {}
            for _ in range(kv_count):
                key = _read_string(handle)
                (value_type,) = _unpack(handle, "<I")
                metadata[key] = _read_value(handle, value_type, max_array_items, 0)
            parameters, data_end = _read_tensor_infos(handle, tensor_count, metadata)
        except (struct.error, EOFError, UnicodeDecodeError, OverflowError, ValueError, RecursionError, MemoryError) as exc:
            raise NotAGGUFError(
                f"{path.name} is truncated or damaged: its GGUF header cannot be read. "
                "Download or copy it again, or choose another model in Settings > Model."
            ) from exc
    if data_end > size:
        raise NotAGGUFError(
            f"{path.name} is incomplete: it has {size / 2**20:.1f} MB of the {data_end / 2**20:.1f} MB its header "
            "describes (an interrupted download or copy?). Download or copy it again."
        )
    return GGUFInfo(
        path=path, version=version, tensor_count=tensor_count, file_size=size, metadata=metadata,
        parameter_count=parameters, data_end=data_end,
    )


def _read_tensor_infos(handle: IO[bytes], count: int, metadata: dict[str, Any]) -> tuple[int, int]:
    """(parameter count, end offset of the tensor data); the end is a lower bound for unknown types."""
    if count > _MAX_TENSORS:
        raise EOFError
    parameters = 0
    last_end = 0
    for _ in range(count):
        _read_string(handle)
        (n_dims,) = _unpack(handle, "<I")
        if n_dims > _MAX_DIMS:
            raise EOFError
        dims = _unpack(handle, "<" + "Q" * n_dims) if n_dims else ()
        tensor_type, offset = _unpack(handle, "<IQ")
        elements = 1
        for dim in dims:
            elements *= dim
        parameters += elements
        block = _TENSOR_BLOCKS.get(tensor_type)
        nbytes = (elements // block[0]) * block[1] if block else 0
        last_end = max(last_end, offset + nbytes)
    alignment = metadata.get("general.alignment", 32)
    if not isinstance(alignment, int) or alignment <= 0:
        alignment = 32
    position = handle.tell()
    data_start = position + (-position % alignment)
    return parameters, (data_start + last_end) if count else 0


def _unpack(handle: IO[bytes], fmt: str) -> tuple[Any, ...]:
    size = struct.calcsize(fmt)
    data = handle.read(size)
    if len(data) != size:
        raise EOFError
    return struct.unpack(fmt, data)


def _read_string(handle: IO[bytes]) -> str:
    (length,) = _unpack(handle, "<Q")
    if length > _MAX_STRING:
        raise EOFError
    data = handle.read(length)
    if len(data) != length:
        raise EOFError
    return data.decode("utf-8")


def _read_value(handle: IO[bytes], value_type: int, max_items: int, depth: int) -> Any:
    if value_type in _SCALARS:
        return _unpack(handle, _SCALARS[value_type])[0]
    if value_type == _STRING:
        return _read_string(handle)
    if value_type == _ARRAY:
        if depth >= _MAX_DEPTH:  # arrays nested deeper than any model writes: a damaged or hostile header
            raise EOFError
        item_type, count = _unpack(handle, "<IQ")
        if count <= max_items:
            return [_read_value(handle, item_type, max_items, depth + 1) for _ in range(count)]
        _skip_array(handle, item_type, count, depth + 1)
        return {"array_length": count}
    raise EOFError


def _skip_array(handle: IO[bytes], item_type: int, count: int, depth: int) -> None:
    if item_type in _SCALARS:
        handle.seek(struct.calcsize(_SCALARS[item_type]) * count, 1)
        return
    if item_type == _STRING:
        for _ in range(count):
            (length,) = _unpack(handle, "<Q")
            handle.seek(length, 1)
        return
    if item_type != _ARRAY:
        raise EOFError
    for _ in range(count):
        _read_value(handle, item_type, 0, depth)
