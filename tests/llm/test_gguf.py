"""GGUF header checks before llama.cpp sees a file."""

from __future__ import annotations

import struct

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

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


def test_zero_byte_file(tmp_path):
    empty = tmp_path / "empty.gguf"
    empty.write_bytes(b"")
    with pytest.raises(NotAGGUFError, match="not a GGUF"):
        read_gguf(empty)


def test_parameters_and_data_end_of_the_embedded_model(tiny_model_path):
    info = read_gguf(tiny_model_path)
    assert 130_000_000 < info.parameter_count < 140_000_000
    assert info.data_end == info.file_size  # the last tensor ends exactly at the end of the file
    assert info.size_label == "135M"


@pytest.mark.slow
def test_file_cut_inside_the_tensor_data_is_incomplete(tmp_path, tiny_model_path):
    data = tiny_model_path.read_bytes()
    cut = tmp_path / "cut.gguf"
    cut.write_bytes(data[: len(data) - 1000])
    with pytest.raises(NotAGGUFError, match="incomplete.*interrupted download"):
        read_gguf(cut)


@pytest.mark.slow
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.binary(max_size=400))
def test_random_bytes_after_the_magic_never_crash(tmp_path, tail):
    path = tmp_path / "fuzz.gguf"
    path.write_bytes(b"GGUF" + tail)
    try:
        info = read_gguf(path)
    except NotAGGUFError:
        return
    assert info.data_end <= info.file_size
