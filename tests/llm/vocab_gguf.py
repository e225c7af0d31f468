"""Weightless GGUF files with a real llama.cpp vocabulary: byte tokens plus a model family's control tokens."""

from __future__ import annotations

import struct
from pathlib import Path
from typing import Any

_U32, _I32, _F32, _STR, _ARR = 4, 5, 6, 8, 9
NORMAL, CONTROL, USER_DEFINED, BYTE = 1, 3, 4, 6


def _string(text: str) -> bytes:
    data = text.encode("utf-8")
    return struct.pack("<Q", len(data)) + data


def _value(value: Any) -> bytes:
    if isinstance(value, str):
        return struct.pack("<I", _STR) + _string(value)
    if isinstance(value, float):
        return struct.pack("<If", _F32, value)
    if isinstance(value, int):
        return struct.pack("<II", _U32, value)
    kind, items = value
    out = struct.pack("<IIQ", _ARR, kind, len(items))
    for item in items:
        out += _string(item) if kind == _STR else struct.pack({_F32: "<f", _I32: "<i"}[kind], item)
    return out


def vocab_gguf(path: Path, controls: list[str], template: str, user_defined: frozenset[str] = frozenset()) -> Path:
    """An SPM vocabulary (<unk>, <s>, </s>, 256 byte tokens, "▁", then `controls`) and a chat template.

    Tokens in `user_defined` get that type (llama.cpp matches those even with special tokens off)."""
    tokens = ["<unk>", "<s>", "</s>"] + [f"<0x{b:02X}>" for b in range(256)] + ["▁"]
    types = [2, CONTROL, CONTROL] + [BYTE] * 256 + [NORMAL]
    for token in controls:
        if token in tokens:
            continue
        tokens.append(token)
        types.append(USER_DEFINED if token in user_defined else CONTROL)
    metadata: dict[str, Any] = {
        "general.architecture": "llama",
        "general.name": "vocab only",
        "llama.context_length": 512,
        "llama.embedding_length": 64,
        "llama.block_count": 1,
        "llama.feed_forward_length": 128,
        "llama.attention.head_count": 4,
        "llama.attention.layer_norm_rms_epsilon": 1e-5,
        "tokenizer.ggml.model": "llama",
        "tokenizer.ggml.tokens": (_STR, tokens),
        "tokenizer.ggml.scores": (_F32, [0.0] * len(tokens)),
        "tokenizer.ggml.token_type": (_I32, types),
        "tokenizer.ggml.unknown_token_id": 0,
        "tokenizer.ggml.bos_token_id": 1,
        "tokenizer.ggml.eos_token_id": 2,
        "tokenizer.chat_template": template,
    }
    out = b"GGUF" + struct.pack("<IQQ", 3, 0, len(metadata))
    for key, value in metadata.items():
        out += _string(key) + _value(value)
    path.write_bytes(out)
    return path
