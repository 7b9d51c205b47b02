"""The SQLite store's memory-mapped vector file and the quantised dense search over it."""
from __future__ import annotations

import os

import numpy as np
import pytest

from kotae.search import dense
from kotae.search.dense import DenseIndex, QuantizedIndex
from kotae.store.sqlite import SQLiteStore
from kotae.store.sqlite_vectors import VECTOR_FILE
from kotae.store.vectorfile import quantize
from kotae.types import Chunk, DocumentInfo


def _write(store, d, vecs):
    info = DocumentInfo(f"doc{d}", f"/d/{d}.txt", f"{d}.txt", "text", "h", 1, len(vecs), "en",
                        "2026-01-01T00:00:00+00:00")
    chunks = [Chunk(f"c{d}-{i}", info.id, info.file, 1, (), f"t {i}", 0, 3, "en", i) for i in range(len(vecs))]
    store.write_document(info, ["p"], chunks, [f"h{d}-{i}" for i in range(len(vecs))], vecs,
                         [f"w{i}" for i in range(len(vecs))])


def _clustered(rng, n, dim=48, centres=20):
    """Unit vectors around a few centres plus a shared offset (real embeddings sit in a narrow cone)."""
    c = rng.standard_normal((centres, dim))
    v = 0.6 * c[rng.integers(0, centres, n)] + rng.standard_normal((n, dim)) + 2.0
    return (v / np.linalg.norm(v, axis=1, keepdims=True)).astype(np.float32)


@pytest.fixture
def store(tmp_path):
    s = SQLiteStore(str(tmp_path / "idx"))
    s.bind_model("m")
    yield s
    s.close()


def test_quantize_round_trips_within_half_a_step():
    v = np.array([[0.5, -0.25, 0.0], [0.0, 0.0, 0.0]], np.float32)
    codes, scale = quantize(v)
    assert codes.tolist() == [[127, -64, 0], [0, 0, 0]]
    assert np.abs(codes * scale[:, None] - v).max() <= scale.max() / 2


def test_quantised_search_equals_exact_search(store, monkeypatch):
    rng = np.random.default_rng(0)
    for d in range(6):
        _write(store, d, _clustered(rng, 500))
    monkeypatch.setattr(dense, "FIRST_MIN", 1000)  # 3,000 rows: the Hamming stage really prunes
    monkeypatch.setattr(dense, "RESCORE_MIN", 100)
    exact = DenseIndex(store.dense_matrix())
    quant = QuantizedIndex(store.vector_file(), store.exact_vectors)
    found = want_total = top = 0
    for q in _clustered(rng, 20):
        for docs in (None, {"doc1", "doc4"}, {"doc2"}, {"nope"}):
            hits, margin = quant.search_with_margin(q, 10, docs)
            want, want_margin = exact.search_with_margin(q, 10, docs)
            found += len({r for r, _ in hits} & {r for r, _ in want})
            want_total += len(want)
            if want:  # the margin is exact whenever the top hit is found
                top += hits[0] == want[0]
                assert hits[0] != want[0] or margin == pytest.approx(want_margin, abs=1e-4)
            else:
                assert (hits, margin) == ([], 0.0)
            sims = dict(want)
            for r, s in hits:  # similarities are exact, never the int8 approximation
                if r in sims:
                    assert s == pytest.approx(sims[r], abs=1e-6)
            if docs:
                assert all(store.chunks([r])[r].doc_id in docs for r, _ in hits)
    assert found / want_total >= 0.99 and top >= 59  # of 60 searches with hits


def test_vector_file_is_kept_and_rebuilt_when_the_index_changes(store):
    rng = np.random.default_rng(1)
    _write(store, 0, _clustered(rng, 30))
    vf = store.vector_file()
    path = os.path.join(store.location, VECTOR_FILE)
    stamp = os.stat(path).st_mtime_ns
    assert len(vf) == 30 and vf.doc_ids == ["doc0"]
    assert os.stat(path).st_mtime_ns == stamp and len(store.vector_file()) == 30  # reused, not rebuilt
    _write(store, 1, _clustered(rng, 5))
    assert len(store.vector_file()) == 35
    store.remove_document("/d/0.txt")
    vf = store.vector_file()
    assert vf.doc_ids == ["doc1"] and sorted(vf.rowids.tolist()) == sorted(store.dense_matrix().rowids.tolist())


def test_index_without_a_vector_file_searches_after_building_one(store, fake_embedder):
    from kotae.search import Searcher

    rng = np.random.default_rng(2)
    _write(store, 0, _clustered(rng, 8, dim=fake_embedder.dim))
    assert not os.path.exists(os.path.join(store.location, VECTOR_FILE))  # as an index made before it
    searcher = Searcher(store, fake_embedder)
    q = store.dense_matrix().vectors[3]
    hits, _ = searcher.dense_index().search_with_margin(q, 3, None)
    assert hits[0][0] == store.dense_matrix().rowids[3] and hits[0][1] == pytest.approx(1.0, abs=1e-5)
    assert os.path.exists(os.path.join(store.location, VECTOR_FILE))


def test_empty_index_has_no_vector_file(store):
    assert store.vector_file() is None
