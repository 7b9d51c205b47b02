"""Exact max-score pruning of the SQLite keyword search: the same list, scores bit for bit, as FTS5 scoring
every matching row (a generated corpus with common and rare words, odd pieces, phrases and filters)."""
import random

import numpy as np
import pytest

from kotae.store import open_store
from kotae.store import sqlite_keyword as sk
from kotae.types import Chunk, DocumentInfo

COMMON = [f"c{i}" for i in range(6)]  # in most rows: low IDF, left out by the pruning
RARE = [f"r{i}" for i in range(200)]
ODD = ["wi-fi", "O'Neil", "賃金", "支払う", "Ｘ線", "back\\slash", "ÄPFEL"]  # pieces unicode61 splits or folds


def _corpus(store, rng, docs=8, per=150):
    for d in range(docs):
        info = DocumentInfo(f"id{d}", f"/c/{d}.txt", f"{d}.txt", "text", "h", 1, per, "en", "2026-01-01T00:00:00+00:00")
        chunks = [Chunk(f"{d}-{i}", info.id, info.file, 1, (), "t", 0, 1, "en", i) for i in range(per)]
        words = []
        for _ in range(per):
            n = rng.randint(3, 40)
            w = [rng.choice(COMMON) if rng.random() < 0.5 else rng.choice(RARE[: rng.randint(5, 200)])
                 for _ in range(n)]
            w += rng.sample(ODD, rng.randint(0, 2))
            words.append(" ".join(w))
        store.write_document(info, ["p"], chunks, [f"h{d}-{i}" for i in range(per)],
                             np.zeros((per, 4), np.float32), words)


def _both(store, terms, limit, doc_ids=None):
    store.keyword_pruning = False
    plain = store.keyword_search(terms, limit, doc_ids)
    store.keyword_pruning = True
    store._pruner.last_essential = None
    return plain, store.keyword_search(terms, limit, doc_ids), store._pruner.last_essential


@pytest.fixture
def store(tmp_path, monkeypatch):
    monkeypatch.setattr(sk, "_MIN_ROWS", 0)  # prune however small the corpus
    monkeypatch.setattr(sk, "_SMALL", 0)
    s = open_store(str(tmp_path / "idx"))
    s.bind_model("m@1/4")
    yield s
    s.close()


def test_pruned_results_are_the_unpruned_ones(store):
    rng = random.Random(7)
    _corpus(store, rng)
    pruned = 0
    for q in range(120):
        terms = rng.sample(COMMON, rng.randint(1, 4)) + rng.sample(RARE[:60], rng.randint(1, 4))
        if q % 5 == 0:
            terms += rng.sample(ODD, 2)
        if q % 7 == 0:
            terms.append("c1 c2")  # a phrase of two tokens
        rng.shuffle(terms)
        for limit in (1, 10, 50):
            plain, got, essential = _both(store, terms, limit)
            assert got == plain  # rowids, order and float scores
            pruned += essential is not None
        flt = {"id1", "id4"}
        plain, got, _ = _both(store, terms, 10, flt)
        assert got == plain
    assert pruned > 100  # the pruned path ran, not only its fallback


def test_pruning_follows_the_index_as_it_changes(store):
    rng = random.Random(3)
    _corpus(store, rng, docs=4)
    terms = ["c0", "c1", "c2", "r3", "r7", "r11"]
    assert _both(store, terms, 10)[0] == _both(store, terms, 10)[1]
    store.remove_document("/c/2.txt")  # new generation: document frequencies and totals are read again
    plain, got, _ = _both(store, terms, 10)
    assert got == plain
    assert store.document_frequencies(["c0", "zz"])[0]["zz"] == 0


def test_bm25_is_fts5s():
    assert sk.idf(10, 9) == 1e-6  # a term in most rows: FTS5's floor
    assert sk.required([0.1, 5.0, 0.2], 0.5) == {1}
    assert sk.required([0.1, 5.0, 0.2], 0.25) == {1, 2}
    assert sk.varint(bytes([0x81, 0x00])) == (128, 2)
