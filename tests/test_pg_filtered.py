"""PostgreSQL: a filtered search on the HNSW index (iterative scan on pgvector ≥ 0.8) returns k rows of the
filter's documents, best first, the same as exact search."""
from __future__ import annotations

import numpy as np
import pytest

from kotae.search.dense import DenseIndex
from kotae.store import postgres
from kotae.types import Chunk, DocumentInfo


def test_filtered_search_through_the_index_fills_k(pg_url, monkeypatch):
    monkeypatch.setattr(postgres, "HNSW_MIN", 0)  # an HNSW index however small
    store = postgres.PostgresStore(pg_url)
    store.bind_model("m")
    rng = np.random.default_rng(4)
    for d in range(4):
        info = DocumentInfo(f"doc{d}", f"/d/{d}.txt", f"{d}.txt", "text", "h", 1, 60, "en", "2026-01-01T00:00:00+00:00")
        chunks = [Chunk(f"c{d}-{i}", info.id, info.file, 1, (), f"t{i}", 0, 2, "en", i) for i in range(60)]
        v = rng.standard_normal((60, 16)).astype(np.float32)
        store.write_document(info, ["p"], chunks, [f"h{d}-{i}" for i in range(60)],
                             v / np.linalg.norm(v, axis=1, keepdims=True), ["w"] * 60)
    monkeypatch.setattr(postgres, "EXACT_MAX", 0)  # never the exact fallback for a narrow filter
    store.ef_search = 10
    assert store._rows("SELECT to_regclass('chunks_embedding_hnsw')")[0][0] is not None
    exact = DenseIndex(store.dense_matrix())
    for q in rng.standard_normal((5, 16)).astype(np.float32):
        q /= np.linalg.norm(q)
        hits, margin = store.dense_search(q, 10, {"doc2"})
        want, want_margin = exact.search_with_margin(q, 10, {"doc2"})
        assert len(hits) == 10 and [s for _, s in hits] == sorted((s for _, s in hits), reverse=True)
        assert all(store.chunks([r])[r].doc_id == "doc2" for r, _ in hits)
        assert len({r for r, _ in hits} & {r for r, _ in want}) >= 9
        assert margin == pytest.approx(want_margin, abs=1e-4) or hits[0] != want[0]
    store.close()
