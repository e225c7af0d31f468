"""Choosing and loading a backend from settings and the command line; API keys for servers."""

from __future__ import annotations

import argparse
import os
import stat

import pytest

from companion.errors import GpuLoadError, ModelError, ModelMemoryError, RemoteServerError, UnsupportedModelError
from companion.llm import loader
from companion.llm.apikeys import KeyStore
from companion.llm.hardware import GPU_LAYERS_ALL, GPU_LAYERS_AUTO, Capabilities
from companion.llm.llama import probe_model
from companion.settings import ModelSettings, Settings


def test_command_line_overrides_without_touching_settings():
    parser = argparse.ArgumentParser()
    loader.add_backend_arguments(parser)
    settings = ModelSettings()
    args = parser.parse_args(["--base-url", "http://127.0.0.1:8080/v1", "--model-name", "qwen", "--gpu-layers", "all"])
    changed = loader.settings_from_args(settings, args)
    assert (changed.backend, changed.base_url, changed.model_name, changed.n_gpu_layers) == (
        "openai", "http://127.0.0.1:8080/v1", "qwen", GPU_LAYERS_ALL)
    assert settings.backend == "llama" and settings.n_gpu_layers == GPU_LAYERS_AUTO
    same = loader.settings_from_args(settings, parser.parse_args([]))
    assert same == settings


def test_gpu_layer_words():
    assert [loader.parse_gpu_layers(v) for v in ("auto", "ALL", "cpu", "0", "12")] == [GPU_LAYERS_AUTO, GPU_LAYERS_ALL, 0, 0, 12]
    with pytest.raises(ModelError, match="auto, all, or a number"):
        loader.parse_gpu_layers("lots")


def test_new_settings_round_trip():
    settings = Settings()
    settings.model.backend = "openai"
    settings.model.base_url = "http://localhost:11434/v1"
    settings.model.library = ["/models/a.gguf", "D:\\模型\\b.gguf"]
    again = Settings.from_dict(settings.to_dict())
    assert again.model == settings.model


@pytest.mark.model
def test_loads_the_embedded_model_on_cpu(tiny_model_path):
    settings = ModelSettings(n_ctx=512, n_threads=1)
    backend = loader.load_backend(settings, caps=Capabilities(gpu_offload=False, physical_cores=1))
    try:
        assert backend.info.device == "CPU" and backend.info.n_ctx == 512 and backend.info.warnings == []
    finally:
        backend.close()


@pytest.mark.model
def test_refuses_before_loading_when_memory_is_short(tiny_model_path):
    caps = Capabilities(gpu_offload=False, physical_cores=1, ram_total=2**30, ram_available=1)
    with pytest.raises(ModelMemoryError, match="RAM"):
        loader.load_backend(ModelSettings(n_ctx=8192), caps=caps)


@pytest.mark.model
def test_template_less_model_gets_a_named_format_and_a_warning(tmp_path, tiny_model_path, monkeypatch):
    from companion.llm import llama

    captured = {}

    class Recorder:
        def __init__(self, path, **kwargs):
            captured.update(kwargs)
            self.info = llama.ModelInfo(name="x")

    monkeypatch.setattr(llama, "LlamaBackend", Recorder)
    monkeypatch.setattr(loader, "read_gguf", lambda path: _without_template(tiny_model_path))
    backend = loader.load_backend(ModelSettings(n_ctx=512), caps=Capabilities(physical_cores=1, ram_available=2**34))
    assert captured["chat_format"] == "chatml"
    assert any("no chat template" in w for w in backend.info.warnings)


def _without_template(path):
    from companion.llm.gguf import read_gguf

    meta = read_gguf(path)
    meta.metadata.pop("tokenizer.chat_template")
    return meta


def test_gpu_failure_falls_back_to_fewer_layers(tiny_model_path, monkeypatch):
    from companion.llm import llama

    attempts = []

    class FailsOnGpu:
        def __init__(self, path, **kwargs):
            attempts.append(kwargs["n_gpu_layers"])
            if kwargs["n_gpu_layers"] != 0:
                raise UnsupportedModelError("cudaMalloc failed: out of memory")
            self.info = llama.ModelInfo(name="x")

    monkeypatch.setattr(llama, "LlamaBackend", FailsOnGpu)
    caps = Capabilities(gpu_offload=True, physical_cores=1, ram_available=2**34)
    backend = loader.load_backend(ModelSettings(n_ctx=512, n_gpu_layers=GPU_LAYERS_AUTO), caps=caps)
    assert attempts == [GPU_LAYERS_ALL, 15, 0]
    assert backend.info.warnings == [
        "Loading on the GPU failed (cudaMalloc failed: out of memory); running on the CPU instead (slower)."]


def test_gpu_short_of_memory_loads_with_fewer_layers(tiny_model_path, monkeypatch):
    from companion.llm import llama

    class FitsHalf:
        def __init__(self, path, **kwargs):
            if kwargs["n_gpu_layers"] < 0:
                raise GpuLoadError("ggml_vulkan: Device memory allocation of size 268435456 failed.")
            self.info = llama.ModelInfo(name="x", n_gpu_layers=kwargs["n_gpu_layers"])

    monkeypatch.setattr(llama, "LlamaBackend", FitsHalf)
    caps = Capabilities(gpu_offload=True, physical_cores=1, ram_available=2**34)
    backend = loader.load_backend(ModelSettings(n_ctx=512, n_gpu_layers=GPU_LAYERS_ALL), caps=caps)
    assert backend.info.n_gpu_layers == 15
    [note] = backend.info.warnings
    assert note.startswith("Not enough GPU memory for all layers on the GPU (ggml_vulkan: Device memory allocation")
    assert "loaded with 15 GPU layers" in note and "\n" not in note


def test_asking_for_the_gpu_without_one_says_why(tiny_model_path, monkeypatch):
    from companion.llm import llama

    seen = []

    class Recorder:
        def __init__(self, path, **kwargs):
            seen.append(kwargs["n_gpu_layers"])
            self.info = llama.ModelInfo(name="x")

    monkeypatch.setattr(llama, "LlamaBackend", Recorder)
    note = "No Vulkan GPU: its driver library could not be loaded (libvulkan.so.1: cannot open shared object file); running on the CPU."
    caps = Capabilities(gpu_offload=False, physical_cores=1, ram_available=2**34, gpu_note=note)
    assert loader.load_backend(ModelSettings(n_ctx=512, n_gpu_layers=GPU_LAYERS_ALL), caps=caps).info.warnings == [note]
    assert loader.load_backend(ModelSettings(n_ctx=512, n_gpu_layers=GPU_LAYERS_AUTO), caps=caps).info.warnings == []
    assert seen == [0, 0]


@pytest.mark.model
def test_a_gpu_request_on_a_cpu_build_runs_on_the_cpu_and_says_why(tiny_model_path):
    from companion.llm.llama import LlamaBackend, probe_gpus

    if probe_gpus().devices:
        pytest.skip("this llama.cpp has a usable GPU")
    backend = LlamaBackend(tiny_model_path, n_ctx=512, n_threads=1, n_gpu_layers=-1)
    try:
        info = backend.info
        assert (info.device, info.n_gpu_layers, info.total_layers) == ("CPU", 0, 31)
        assert info.warnings == [probe_gpus().note] and info.device_note == probe_gpus().note
    finally:
        backend.close()


def test_unknown_architecture_is_named(make_gguf):
    path = make_gguf("future.gguf", metadata={"general.architecture": "futurenet9", "general.name": "Future"})
    with pytest.raises(UnsupportedModelError, match="futurenet9"):
        probe_model(path)


@pytest.mark.model
def test_probe_accepts_the_embedded_model(tiny_model_path):
    probe_model(tiny_model_path)


def test_openai_backend_without_address_says_where_to_set_it(home):
    with pytest.raises(RemoteServerError, match="Settings > Model"):
        loader.load_backend(ModelSettings(backend="openai"), home=home)


def test_unknown_backend_name(home):
    with pytest.raises(ModelError, match="Unknown backend"):
        loader.load_backend(ModelSettings(backend="magic"), home=home)


def test_key_file_is_private_and_round_trips(home, monkeypatch):
    monkeypatch.delenv("COMPANION_API_KEY", raising=False)
    store = KeyStore(home, use_keyring=False)
    store.set("http://server/v1", "sk-secret")
    assert KeyStore(home, use_keyring=False).get("http://server/v1") == "sk-secret"
    if os.name == "posix":
        assert stat.S_IMODE(store.file.stat().st_mode) == 0o600
    store.set("http://server/v1", "")
    assert store.get("http://server/v1") == ""
    monkeypatch.setenv("COMPANION_API_KEY", "from-env")
    assert store.get("http://server/v1") == "from-env"


def test_keyring_is_used_when_it_works(home, monkeypatch):
    import keyring
    from keyring.backend import KeyringBackend

    class MemoryKeyring(KeyringBackend):
        priority = 1  # type: ignore[assignment]
        stored: dict[tuple[str, str], str] = {}

        def get_password(self, service, username):
            return self.stored.get((service, username))

        def set_password(self, service, username, password):
            self.stored[(service, username)] = password

        def delete_password(self, service, username):
            self.stored.pop((service, username), None)

    monkeypatch.delenv("COMPANION_API_KEY", raising=False)
    previous = keyring.get_keyring()
    keyring.set_keyring(MemoryKeyring())
    try:
        store = KeyStore(home)
        store.set("http://server/v1", "sk-in-keyring")
        assert store.location == "the system keyring"
        assert store.get("http://server/v1") == "sk-in-keyring"
        assert not store.file.exists()
    finally:
        keyring.set_keyring(previous)
