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
    monkeypatch.setattr(dense, "RESCORE_MIN", 100)  # 3,000 rows: the int8 scan really prunes
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
    assert found == want_total and top == 60  # of 60 searches with hits: the int8 scan misses none


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


def _exact_equal(store, docs=None, queries=5, k=10):
    """Quantised search over the store's vector set equals exact search (rowids and similarities)."""
    rng = np.random.default_rng(7)
    exact = DenseIndex(store.dense_matrix())
    quant = QuantizedIndex(store.vector_file(), store.exact_vectors)
    for q in _clustered(rng, queries):
        hits, margin = quant.search_with_margin(q, k, docs)
        want, want_margin = exact.search_with_margin(q, k, docs)
        assert [r for r, _ in hits] == [r for r, _ in want]
        assert [s for _, s in hits] == pytest.approx([s for _, s in want], abs=1e-6)
        assert margin == pytest.approx(want_margin, abs=1e-4)


def test_writes_extend_the_vector_file_by_a_delta_with_tombstones(store):
    from kotae.store.sqlite_vectors import DELTA_FILE

    rng = np.random.default_rng(3)
    for d in range(20):
        _write(store, d, _clustered(rng, 60))
    store.vector_file()
    base = os.path.join(store.location, VECTOR_FILE)
    stamp = os.stat(base).st_mtime_ns
    _write(store, 20, _clustered(rng, 20))  # added (20 + 60 + 60 + 30 rows: under a fifth of the base)
    store.remove_document("/d/3.txt")  # gone
    _write(store, 5, _clustered(rng, 30))  # changed: same id, new rows
    vs = store.vector_file()
    assert os.stat(base).st_mtime_ns == stamp  # the base file is kept, not rebuilt
    assert os.path.exists(os.path.join(store.location, DELTA_FILE))
    assert vs.delta is not None and sorted(vs.delta.dead) == ["doc3", "doc5"]
    assert sorted(vs.delta.doc_ids) == ["doc20", "doc5"]
    assert len(vs) == 18 * 60 + 20 + 30 and vs.doc_ids == sorted(f"doc{d}" for d in range(21) if d != 3)
    assert sorted(vs.rowids.tolist()) == sorted(store.dense_matrix().rowids.tolist())
    _exact_equal(store)  # tombstoned rows never come back; the margin's mean is over live rows only
    _exact_equal(store, {"doc5", "doc3", "doc20"})
    again = store.vector_file()  # a new process: both files reused as they are
    assert again.delta is not None and again.delta.file_id == vs.delta.file_id


def test_a_delta_past_its_share_of_the_base_rebuilds_the_file(store, monkeypatch):
    from kotae.store import sqlite_vectors

    rng = np.random.default_rng(4)
    for d in range(4):
        _write(store, d, _clustered(rng, 25))
    first = store.vector_file().base.file_id
    _write(store, 4, _clustered(rng, 10))  # 10 of 100 rows: a delta
    assert store.vector_file().base.file_id == first
    monkeypatch.setattr(sqlite_vectors, "DELTA_SHARE", 0.05)
    _write(store, 5, _clustered(rng, 10))  # 20 of 100: rebuilt
    vs = store.vector_file()
    assert vs.base.file_id != first and vs.delta is None and len(vs) == 120
    assert not os.path.exists(os.path.join(store.location, sqlite_vectors.DELTA_FILE))
    _exact_equal(store)


def test_int8_scan_is_the_exact_integer_product_from_a_mapped_file(tmp_path):
    from kotae.search.dense import int8_dots, quantize_query
    from kotae.store import vectorfile

    rng = np.random.default_rng(5)
    v = _clustered(rng, 3000, dim=384)
    path = str(tmp_path / "v.kvf")
    vectorfile.write(path, 1, "m", 384, [("d", 3000, "s")], [(np.arange(3000), v)])
    vf = vectorfile.load(path)
    codes, _ = quantize(v)
    assert np.array_equal(vf.codes.astype(np.int16) - vectorfile.CODE_ZERO, codes)  # stored as code + 128
    q8, _ = quantize_query(_clustered(rng, 1, dim=384)[0])
    want = codes.astype(np.int32) @ q8.astype(np.int32)
    assert np.array_equal(int8_dots(vf.codes, q8), want)  # the whole mapped matrix, no copy asked for
    rows = np.array([7, 2999, 0, 1500])
    assert np.array_equal(int8_dots(vf.codes[rows], q8), want[rows])
    assert int8_dots(vf.codes[:0], q8).shape == (0,)


def test_scan_model_is_matmulinteger_with_zero_point_128():
    """SCAN_MODEL is stored serialised (importing onnx costs ~0.6 s a process); this rebuilds it."""
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper

    rows = helper.make_tensor_value_info("rows", TensorProto.UINT8, ["n", "d"])
    query = helper.make_tensor_value_info("query", TensorProto.INT8, ["d", "m"])
    dots = helper.make_tensor_value_info("dots", TensorProto.INT32, ["n", "m"])
    zero = helper.make_tensor("zero", TensorProto.UINT8, [], [128])
    graph = helper.make_graph([helper.make_node("MatMulInteger", ["rows", "query", "zero"], ["dots"])], "scan",
                              [rows, query], [dots], initializer=[zero])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], producer_name="kotae")
    model.ir_version = 8
    onnx.checker.check_model(model)
    assert model.SerializeToString() == dense.SCAN_MODEL


def test_an_older_vector_file_is_rebuilt(store):
    rng = np.random.default_rng(6)
    _write(store, 0, _clustered(rng, 30))
    path = os.path.join(store.location, VECTOR_FILE)
    first = store.vector_file().base.file_id
    with open(path, "r+b") as f:  # as a file of the sign-bit layout
        f.write(b"KOTAEVF1")
    assert store.vector_file().base.file_id != first
    _exact_equal(store)
