"""GGUF header checks before llama.cpp sees a file."""

from __future__ import annotations

import struct

import pytest

from companion.errors import ModelNotFoundError, NotAGGUFError
from companion.llm.gguf import check_gguf, read_gguf


def test_embedded_model_metadata(tiny_model_path):
    info = read_gguf(tiny_model_path)
    assert info.architecture == "llama"
    assert info.context_length == 8192
    assert info.chat_template and "<|im_start|>" in info.chat_template
    assert info.quantization == "Q4_1"
    assert info.tensor_count > 0


def test_missing_file(tmp_path):
    with pytest.raises(ModelNotFoundError, match="does not exist"):
        check_gguf(tmp_path / "nope.gguf")


def test_not_a_gguf(tmp_path):
    fake = tmp_path / "model.gguf"
    fake.write_bytes(b"<html>404 not found</html>")
    with pytest.raises(NotAGGUFError, match="not a GGUF"):
        read_gguf(fake)


def test_truncated_header(tmp_path, tiny_model_path):
    cut = tmp_path / "cut.gguf"
    cut.write_bytes(tiny_model_path.read_bytes()[:5000])
    with pytest.raises(NotAGGUFError, match="truncated"):
        read_gguf(cut)


def test_minimal_hand_built_header(tmp_path):
    key = b"general.architecture"
    value = b"qwen2"
    data = b"GGUF" + struct.pack("<IQQ", 3, 0, 1) + struct.pack("<Q", len(key)) + key
    data += struct.pack("<I", 8) + struct.pack("<Q", len(value)) + value
    path = tmp_path / "tiny.gguf"
    path.write_bytes(data)
    info = read_gguf(path)
    assert info.architecture == "qwen2" and info.chat_template is None
