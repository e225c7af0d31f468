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


def test_file_cut_inside_the_tensor_data_is_incomplete(tmp_path, tiny_model_path):
    data = tiny_model_path.read_bytes()
    cut = tmp_path / "cut.gguf"
    cut.write_bytes(data[: len(data) - 1000])
    with pytest.raises(NotAGGUFError, match="incomplete.*interrupted download"):
        read_gguf(cut)


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


def _nested_arrays(depth: int) -> bytes:
    key = b"evil.nested"
    data = b"GGUF" + struct.pack("<IQQ", 3, 0, 1) + struct.pack("<Q", len(key)) + key + struct.pack("<I", 9)
    data += struct.pack("<IQ", 9, 1) * (depth - 1) + struct.pack("<IQ", 4, 1) + struct.pack("<I", 7)
    return data


def test_finding_a_header_of_thousands_of_nested_arrays_is_a_damaged_file_not_a_crash(tmp_path):
    path = tmp_path / "nested.gguf"
    path.write_bytes(_nested_arrays(5000))  # about 60 kB
    for max_items in (0, 10**9):
        with pytest.raises(NotAGGUFError, match="damaged.*Download or copy it again"):
            read_gguf(path, max_array_items=max_items)


def test_an_array_of_arrays_still_reads(tmp_path):
    path = tmp_path / "two.gguf"
    path.write_bytes(_nested_arrays(2))
    assert read_gguf(path, max_array_items=10).metadata["evil.nested"] == [[7]]


def test_a_header_claiming_millions_of_keys_is_refused_at_once(tmp_path):
    path = tmp_path / "keys.gguf"
    path.write_bytes(b"GGUF" + struct.pack("<IQQ", 3, 0, 2**40))
    with pytest.raises(NotAGGUFError):
        read_gguf(path)
