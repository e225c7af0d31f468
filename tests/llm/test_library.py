"""The model library on real files: listing, add (copy/link/reference), remove, set active, bad files."""

from __future__ import annotations

import pytest

from companion.errors import CompanionError, ModelError, NotAGGUFError
from companion.llm.gguf import read_gguf
from companion.llm.library import EMBEDDED, EXTERNAL, IN_MODELS, ModelLibrary, inspect, suggest_chat_format
from companion.settings import ModelSettings


@pytest.fixture
def library(home):
    return ModelLibrary(home, ModelSettings())


def test_embedded_model_is_listed_first_and_active(library):
    entries = library.entries()
    assert entries[0].source == EMBEDDED and entries[0].active and entries[0].usable
    row = entries[0].summary()
    assert row["architecture"] == "llama" and row["parameters"] == "135M" and row["quantization"] == "Q4_1"
    assert row["context"] == "8192" and row["template"] == "yes" and row["size"] == "94 MB"
    assert row["status"] == "ok"


def test_models_folder_files_are_listed_with_problems_named(library, home, gguf_bytes):
    home.models.mkdir(parents=True, exist_ok=True)
    (home.models / "good.gguf").write_bytes(gguf_bytes({"general.architecture": "qwen2", "general.name": "Good"}, [("w", [64, 64], 0)]))
    (home.models / "html.gguf").write_bytes(b"<html>not found</html>")
    (home.models / "empty.gguf").write_bytes(b"")
    full = gguf_bytes({"general.architecture": "llama"}, [("w", [512, 512], 0)])
    (home.models / "cut.gguf").write_bytes(full[: len(full) // 2])
    (home.models / ".partial.gguf.part").write_bytes(b"ignored")
    (home.models / "notes.txt").write_text("ignored")
    rows = {e.file_name: e for e in library.entries() if e.source == IN_MODELS}
    assert set(rows) == {"good.gguf", "html.gguf", "empty.gguf", "cut.gguf"}
    assert rows["good.gguf"].usable and "qwen2" in rows["good.gguf"].summary()["architecture"]
    assert "chatml" in rows["good.gguf"].warning  # no template: a named format, not a silent default
    assert "not a GGUF" in rows["html.gguf"].error
    assert "not a GGUF" in rows["empty.gguf"].error
    assert "incomplete" in rows["cut.gguf"].error


@pytest.mark.slow
def test_add_copy_link_and_reference(library, home, make_gguf):
    source = make_gguf("外部模型.gguf", tensors=[("w", [32, 32], 0)])
    copied = library.add(source, "copy")
    assert copied.path == home.models / "外部模型.gguf" and copied.path.read_bytes() == source.read_bytes()
    assert library.add(source, "copy").path == copied.path  # adding twice is harmless
    copied.path.unlink()
    linked = library.add(source, "link")
    assert linked.path.exists() and linked.source == IN_MODELS
    linked.path.unlink()
    referenced = library.add(source, "reference")
    assert referenced.source == EXTERNAL and library.settings.library == [str(source.resolve())]
    assert not (home.models / source.name).exists()


def test_add_refuses_bad_files_before_copying(library, home, tmp_path):
    bad = tmp_path / "bad.gguf"
    bad.write_bytes(b"PK\x03\x04 a zip file")
    with pytest.raises(NotAGGUFError):
        library.add(bad)
    assert not (home.models / "bad.gguf").exists()


def test_set_active_and_remove(library, home, make_gguf):
    source = make_gguf("other.gguf", tensors=[("w", [32, 32], 0)])
    entry = library.add(source, "reference")
    library.set_active(entry.path)
    assert library.settings.path == str(entry.path)
    assert [e.active for e in library.entries()] == [False, True]
    library.remove(entry.path)
    assert library.settings.path == "" and library.settings.library == []
    assert source.exists()  # a referenced file is only forgotten
    stored = library.add(source, "copy")
    with pytest.raises(CompanionError, match="Confirm"):
        library.remove(stored.path)
    library.remove(stored.path, delete_file=True)
    assert not stored.path.exists()
    with pytest.raises(CompanionError, match="embedded"):
        library.remove(library.embedded)


def test_set_active_refuses_a_broken_file(library, tmp_path):
    broken = tmp_path / "broken.gguf"
    broken.write_bytes(b"GGUF\x03\x00")
    with pytest.raises(ModelError, match="truncated"):
        library.set_active(broken)
    assert library.settings.path == ""


def test_find_by_number_name_and_path(library, make_gguf):
    source = make_gguf("finder.gguf")
    library.add(source, "reference")
    assert library.find("1").source == EMBEDDED
    assert library.find("finder").path == source.resolve()
    assert library.find(str(source)).path == source.resolve()
    with pytest.raises(ModelError, match="No model"):
        library.find("missing")


def test_missing_external_file_stays_listed_with_an_error(library, make_gguf):
    source = make_gguf("gone.gguf")
    library.add(source, "reference")
    source.unlink()
    entry = library.entries()[-1]
    assert not entry.usable and "does not exist" in entry.error


def test_chat_format_suggestions(make_gguf):
    def meta(arch: str, **extra):
        return read_gguf(make_gguf(f"{arch}.gguf", metadata={"general.architecture": arch, **extra}))

    assert suggest_chat_format(meta("qwen2")) == "chatml"
    assert suggest_chat_format(meta("gemma2")) == "gemma"
    assert suggest_chat_format(meta("llama", **{"llama.vocab_size": 128256})) == "llama-3"
    assert suggest_chat_format(meta("unknownarch")) == "chatml"


def test_inspect_reads_parameters_from_tensors_without_a_label(make_gguf):
    entry = inspect(make_gguf(tensors=[("a", [1000, 1000], 0), ("b", [500, 1000], 4_000_000)]))
    assert entry.info is not None and entry.info.parameter_count == 1_500_000
    assert entry.summary()["parameters"] == "1.5M"
