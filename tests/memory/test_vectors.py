"""The vector store: exact and prefiltered search, deletes that leave no bytes behind, rebuild after damage."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import numpy as np
import pytest

from companion.memory.search import vectors as V
from companion.memory.search.vectors import VectorStore, prune_stores, store_path, text_key


def _unit(rows: np.ndarray) -> np.ndarray:
    return (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float32)


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(7)


def test_text_key_ignores_spacing_and_tells_texts_apart() -> None:
    assert text_key("Allergic  to\nshellfish") == text_key("Allergic to shellfish")
    assert text_key("Allergic to shellfish") != text_key("Allergic to peanuts")


def test_nearest_first_and_stored_on_disk(tmp_path: Path, rng: np.random.Generator) -> None:
    rows = _unit(rng.standard_normal((50, 64)))
    store = VectorStore(tmp_path / "v.sqlite3", "test", 64)
    store.add(list(range(50)), rows)
    found = store.search(rows[17], 3)
    assert found[0][0] == 17 and found[0][1] == pytest.approx(1.0, abs=0.02)
    assert [s for _, s in found] == sorted((s for _, s in found), reverse=True)
    store.close()
    again = VectorStore(tmp_path / "v.sqlite3", "test", 64)
    assert len(again) == 50 and again.search(rows[3], 1)[0][0] == 3
    assert again.missing([3, 99, 4, 100]) == [99, 100]
    again.close()


def test_prefilter_path_finds_the_same_nearest(tmp_path: Path, rng: np.random.Generator,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    rows = _unit(rng.standard_normal((3000, 128)))
    store = VectorStore(tmp_path / "v.sqlite3", "test", 128)
    store.add(list(range(3000)), rows)
    query = _unit(rows[42:43] + 0.04 * rng.standard_normal((1, 128)))[0]  # cosine about 0.9
    exact = [k for k, _ in store.search(query, 10)]
    monkeypatch.setattr(V, "EXACT_LIMIT", 100)
    monkeypatch.setattr(V, "RESCORE", 400)
    approximate = [k for k, _ in store.search(query, 10)]
    assert approximate[0] == exact[0] == 42
    assert len(set(exact) & set(approximate)) >= 7
    store.close()


def test_retain_erases_the_bytes_of_dropped_vectors(tmp_path: Path, rng: np.random.Generator) -> None:
    rows = _unit(rng.standard_normal((20, 64)))
    path = tmp_path / "v.sqlite3"
    store = VectorStore(path, "test", 64)
    store.add(list(range(20)), rows)
    secret = np.clip(np.rint(rows[5] * 127), -127, 127).astype(np.int8).tobytes()
    assert store.retain(set(range(20)) - {5}) == 1
    store.close()
    raw = b"".join(p.read_bytes() for p in tmp_path.iterdir())
    assert secret not in raw
    again = VectorStore(path, "test", 64)
    assert 5 not in {k for k, _ in again.search(rows[5], 20)}
    again.close()


def test_a_corrupt_store_starts_over(tmp_path: Path, rng: np.random.Generator) -> None:
    path = tmp_path / "v.sqlite3"
    path.write_bytes(b"not a database at all" * 100)
    store = VectorStore(path, "test", 64)
    assert len(store) == 0 and store.rebuilt
    store.add([1], _unit(rng.standard_normal((1, 64))))
    assert len(store) == 1
    store.close()


def test_a_store_of_another_embedder_is_not_mixed_in(tmp_path: Path, rng: np.random.Generator) -> None:
    path = tmp_path / "v.sqlite3"
    first = VectorStore(path, "small", 64)
    first.add([1], _unit(rng.standard_normal((1, 64))))
    first.close()
    other = VectorStore(path, "large", 128)
    assert len(other) == 0 and other.rebuilt
    other.close()


def test_prune_stores_reaches_every_embedders_file(tmp_path: Path, rng: np.random.Generator) -> None:
    for name, dim in (("a", 64), ("b", 128)):
        store = VectorStore(store_path(tmp_path, name), name, dim)
        store.add([1, 2, 3], _unit(rng.standard_normal((3, dim))))
        store.close()
    (tmp_path / "vectors-broken.sqlite3").write_bytes(b"junk" * 50)
    assert prune_stores(tmp_path, {2}) == 4
    assert not (tmp_path / "vectors-broken.sqlite3").exists()
    for name, dim in (("a", 64), ("b", 128)):
        store = VectorStore(store_path(tmp_path, name), name, dim)
        assert store.missing([1, 2, 3]) == [1, 3]
        store.close()


def test_another_connections_delete_reaches_a_running_store(tmp_path: Path, rng: np.random.Generator) -> None:
    rows = _unit(rng.standard_normal((5, 64)))
    path = store_path(tmp_path, "a")
    running = VectorStore(path, "a", 64)
    running.add(list(range(5)), rows)
    assert running.search(rows[2], 1)[0][0] == 2
    prune_stores(tmp_path, {0, 1, 3, 4})  # as "forget everywhere" does from another process
    assert 2 not in {k for k, _ in running.search(rows[2], 5)}
    running.close()


def test_wrong_query_size_is_a_clear_error(tmp_path: Path, rng: np.random.Generator) -> None:
    from companion.errors import SearchError

    store = VectorStore(tmp_path / "v.sqlite3", "test", 64)
    store.add([1], _unit(rng.standard_normal((1, 64))))
    with pytest.raises(SearchError, match="dimensions"):
        store.search(np.ones(32, np.float32), 1)
    store.close()
    assert sqlite3.connect(tmp_path / "v.sqlite3").execute("SELECT count(*) FROM vectors").fetchone()[0] == 1


@pytest.mark.parametrize("dim", [64, 192, 512])
def test_hamming_prefilter_counts_every_differing_bit(rng: np.random.Generator, dim: int) -> None:
    rows = rng.standard_normal((5000, dim)).astype(np.float32)
    query = rng.standard_normal(dim).astype(np.float32)
    bits = V._sign_bits(rows)
    query_bits = V._sign_bits(query[None, :])[:, 0]
    distance = ((rows > 0) != (query > 0)).sum(axis=1)  # the reference: bit by bit
    chosen = V._hamming_nearest(bits, query_bits, 300)
    cut = np.sort(distance)[299]
    assert set(chosen.tolist()) == set(np.flatnonzero(distance <= cut).tolist())
