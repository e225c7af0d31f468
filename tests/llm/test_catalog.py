"""The recommended models: the bundled llama.cpp runs each, the right one is offered per machine, names read well."""

from __future__ import annotations

from pathlib import Path

import pytest

from companion.llm.catalog import CURATED, EMBEDDED_LABEL, by_filename, clean_model_name, display_name, recommend
from companion.llm.default_model import FILENAME as EMBEDDED_FILE
from companion.llm.hardware import Capabilities, GpuDevice
from companion.llm.llama import architecture_known

GB = 10**9


def test_the_bundled_llama_cpp_knows_every_curated_architecture() -> None:
    unknown = sorted({m.architecture for m in CURATED if not architecture_known(m.architecture)})
    assert unknown == [], f"this llama.cpp cannot load: {unknown}"


def test_the_architecture_probe_tells_known_from_unknown() -> None:
    assert architecture_known("llama")
    assert not architecture_known("no-such-architecture")


def test_entries_are_small_chat_ggufs_with_what_people_need_to_choose() -> None:
    assert 6 <= len(CURATED) <= 12
    assert len({m.key for m in CURATED}) == len(CURATED)
    for model in CURATED:
        assert model.filename.endswith(".gguf") and model.repo_id.count("/") == 1
        assert 0.3 <= model.size_gb <= 6 and model.ram_gb >= model.size_gb
        assert model.good_for and model.languages and model.architecture
        assert "GB" in model.describe()
    assert any(m.chinese for m in CURATED) and any(m.tools for m in CURATED)


def caps(ram_gb: float | None, vram_gb: float | None = None) -> Capabilities:
    gpus = [GpuDevice("GPU", int(vram_gb * GB), int(vram_gb * GB))] if vram_gb else []
    return Capabilities(gpu_offload=bool(vram_gb), gpus=gpus, physical_cores=4,
                        ram_total=int(ram_gb * GB) if ram_gb else None, ram_available=None)


@pytest.mark.parametrize("ram, expected", [(16, "gemma-4-e4b"), (8, "qwen3-4b-instruct-2507"), (4, "qwen2.5-1.5b")])
def test_the_best_model_that_fits_the_ram_is_offered(ram: float, expected: str) -> None:
    model = recommend(caps(ram))
    assert model is not None and model.key == expected


def test_a_gpu_with_room_makes_a_larger_model_fit() -> None:
    small_ram = recommend(caps(4))
    with_gpu = recommend(caps(4, vram_gb=8))
    assert small_ram is not None and with_gpu is not None
    assert with_gpu.size_gb > small_ram.size_gb


def test_a_chinese_speaker_is_offered_a_model_that_speaks_chinese() -> None:
    model = recommend(caps(5.2), chinese=True)
    general = recommend(caps(5.2))
    assert model is not None and model.chinese
    assert general is not None and not general.chinese  # the best that fits 5.2 GB in general is English-only


def test_nothing_is_offered_when_nothing_fits() -> None:
    assert recommend(caps(1.5)) is None


def test_unknown_ram_gets_a_modest_model() -> None:
    model = recommend(caps(None))
    assert model is not None and model.ram_gb <= 4


def test_status_names_prefer_curated_then_the_files_own_name_then_the_file() -> None:
    curated = CURATED[1]
    assert display_name(Path("/m") / curated.filename, "qwen3 4b instruct 2507") == curated.label
    assert by_filename(curated.filename.upper()) == curated
    assert display_name(Path("/x") / EMBEDDED_FILE, "Smollm2 135M 8k Lc100K Mix1 Ep2") == EMBEDDED_LABEL
    assert display_name(Path("/m/other.gguf"), "Smollm2 135M 8k Lc100K Mix1 Ep2") == "SmolLM2 135M"
    assert display_name(Path("/m/other.gguf"), "   ") == "other"
    assert display_name(Path("/m/other.gguf"), None) == "other"


@pytest.mark.parametrize("raw, clean", [
    ("Smollm2 135M 8k Lc100K Mix1 Ep2", "SmolLM2 135M"),
    ("qwen2.5-7b-instruct", "Qwen2.5 7B instruct"),
    ("Meta Llama 3.1 8B Instruct", "Meta Llama 3.1 8B Instruct"),
    ("Hand Built", "Hand Built"),
])
def test_clean_model_name(raw: str, clean: str) -> None:
    assert clean_model_name(raw) == clean


@pytest.mark.model
def test_the_built_in_model_is_named_for_people(tiny_backend: object) -> None:
    assert tiny_backend.info.name == EMBEDDED_LABEL  # type: ignore[attr-defined]
