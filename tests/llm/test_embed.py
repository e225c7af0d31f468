"""Embedders: the built-in multilingual one, a GGUF embedder run by llama.cpp, and the stronger one fetched through
the model library from a stand-in Hub on loopback."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from companion.errors import ModelError
from companion.llm import embed as EMB
from companion.llm.catalog import EMBEDDERS
from companion.llm.download import Downloader
from companion.llm.library import ModelLibrary
from companion.paths import Home
from companion.settings import ModelSettings


def test_builtin_vectors_are_unit_length_and_cross_languages(embedder):
    vectors = embedder.passages(["My sister lives in Berlin.", "我姐姐住在柏林。", "The printer is out of paper."])
    assert vectors.shape == (3, embedder.dim) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-4)
    assert vectors[0] @ vectors[1] > vectors[0] @ vectors[2] + 0.3
    assert embedder.passages([]).shape == (0, embedder.dim)
    long = embedder.query("word " * 5000)  # clipped, not refused
    assert long.shape == (embedder.dim,)


def test_turned_off_by_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("COMPANION_EMBEDDER", "off")
    choice = EMB.load_embedder(tmp_path)
    assert choice.embedder is None and "turned off" in choice.problem


def test_a_broken_downloaded_embedder_falls_back_to_the_builtin(tmp_path, monkeypatch):
    monkeypatch.delenv("COMPANION_EMBEDDER")
    (tmp_path / EMBEDDERS[0].filename).write_bytes(b"GGUF not really")
    choice = EMB.load_embedder(tmp_path)
    assert isinstance(choice.embedder, EMB.BuiltinEmbedder)


@pytest.mark.model
def test_the_stronger_embedder_downloads_through_the_library_and_loads(tmp_path, hub, tiny_model_path, monkeypatch):
    """The real GGUF (the tiny chat model stands in for the embedding model: same loader, same pooling path)."""
    monkeypatch.delenv("COMPANION_EMBEDDER")
    model = EMBEDDERS[0]
    hub.add(model.repo_id, model.filename, tiny_model_path.read_bytes())
    home = Home(tmp_path / "home")
    library = ModelLibrary(home, ModelSettings(), embedded=False)
    assert library.embedders() == [(model, None)]
    path = library.download_embedder(model, Downloader(home.models))
    assert library.embedders() == [(model, path)]
    entry = next(e for e in library.entries() if e.path == path)
    assert entry.embedder == model and "Embedding model" in entry.warning
    with pytest.raises(ModelError, match="embedding model"):
        library.set_active(path)
    choice = EMB.load_embedder(home.models)
    try:
        assert isinstance(choice.embedder, EMB.LlamaEmbedder) and choice.embedder.id == model.key
        vectors = choice.embedder.passages(["I play the cello.", "The cello is my instrument."])
        query = choice.embedder.query("What instrument do I play?")
        assert vectors.shape == (2, choice.embedder.dim) and query.shape == (choice.embedder.dim,)
        assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-4)
    finally:
        choice.embedder.close()


@pytest.mark.model
def test_pooling_and_prefixes_are_set_per_model(tiny_model_path):
    spec = dataclasses.replace(EMBEDDERS[0], pooling="mean", query_prefix="query: ", passage_prefix="passage: ")
    embedder = EMB.LlamaEmbedder(tiny_model_path, spec)
    try:
        assert embedder._llama.context_params.op_offload is False  # on the CPU, batches too
        plain = embedder._embed(["hello there"])[0]
        assert not np.allclose(embedder.query("hello there"), plain)
        assert np.allclose(embedder._embed(["query: hello there"])[0], embedder.query("hello there"), atol=1e-5)
    finally:
        embedder.close()
