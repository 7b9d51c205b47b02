"""The SQLite store's term → rows file (kotae.store.postings): the same list, scores bit for bit, as FTS5
scoring every matching row, and never used once the index has changed."""
import os
import random

import pytest

from kotae.store import open_store, postings
from kotae.store.sqlite import KEYWORD_FILE
from test_keyword_pruning import COMMON, ODD, RARE, _corpus


@pytest.fixture
def store(tmp_path, monkeypatch):
    monkeypatch.setattr(postings, "MIN_ROWS", 0)  # a file however small the corpus
    s = open_store(str(tmp_path / "idx"))
    s.bind_model("m@1/4")
    yield s
    s.close()


def _fts5(store, terms, limit, doc_ids=None):
    store.keyword_file_search, store.keyword_pruning = False, False
    try:
        return store.keyword_search(terms, limit, doc_ids)
    finally:
        store.keyword_file_search, store.keyword_pruning = True, True


def _from_file(store, terms, limit, doc_ids=None):
    pf = store.keyword_file()
    assert pf is not None
    with store._lock:
        toks = [store._pruner.tokens(t) for t in dict.fromkeys(terms)]
    return postings.search(pf, toks, limit, doc_ids)


def test_file_results_are_fts5_results(store):
    rng = random.Random(11)
    _corpus(store, rng)
    assert store.keyword_file(build=True) is not None
    served = 0
    for q in range(120):
        terms = rng.sample(COMMON, rng.randint(0, 4)) + rng.sample(RARE, rng.randint(1, 4))
        if q % 5 == 0:
            terms += rng.sample(ODD, 2)  # folded ("ÄPFEL" → äpfel) or split ("wi-fi": a phrase)
        if q % 9 == 0:
            terms.append("absent")
        rng.shuffle(terms)
        for limit in (1, 10, 50, 2000):
            want = _fts5(store, terms, limit)
            got = _from_file(store, terms, limit)
            if got is None:  # a phrase of several tokens: FTS5 runs
                assert any(len(store._pruner.tokens(t)) > 1 for t in terms)
                continue
            served += 1
            assert got == want  # rowids, order (ties by rowid) and float scores
            assert store.keyword_search(terms, limit, None) == want
        flt = {"id2", "id5", "nope"}
        got = _from_file(store, terms, 10, flt)
        assert got is None or got == _fts5(store, terms, 10, flt)
    assert served > 350  # most queries were answered from the file


def test_a_write_makes_the_file_stale_and_fts5_answers(store):
    rng = random.Random(5)
    _corpus(store, rng, docs=3)
    pf = store.keyword_file(build=True)
    assert pf is not None and os.path.exists(os.path.join(store.location, KEYWORD_FILE))
    store.remove_document("/c/1.txt")
    assert store.keyword_file() is None  # the file names the old generation: not used
    terms = ["c0", "r3", "r9"]
    assert store.keyword_search(terms, 10, None) == _fts5(store, terms, 10)
    rebuilt = store.keyword_file(build=True)
    assert rebuilt is not None and rebuilt.generation == store.generation()
    assert _from_file(store, terms, 10) == _fts5(store, terms, 10)
    assert "id1" not in rebuilt.doc_ids


def test_small_index_gets_no_file(tmp_path):
    s = open_store(str(tmp_path / "idx"))
    s.bind_model("m@1/4")
    _corpus(s, random.Random(1), docs=1, per=20)
    assert s.keyword_file(build=True) is None  # under postings.MIN_ROWS: FTS5 is fast enough
    assert not os.path.exists(os.path.join(s.location, KEYWORD_FILE))
    s.close()


def test_kotae_index_writes_the_file_and_search_uses_it(tmp_path, monkeypatch):
    from conftest import FakeEmbedder
    from kotae.facade import Kotae

    monkeypatch.setattr(postings, "MIN_ROWS", 0)
    docs = tmp_path / "docs"
    docs.mkdir()
    for i in range(3):
        (docs / f"n{i}.md").write_text(f"# Note {i}\n\nThe reimbursement limit is {i + 1}0 dollars per trip.\n")
    with Kotae(open_store(str(tmp_path / "idx")), FakeEmbedder()) as k:
        k.index([str(docs)], isolate=False)
        assert os.path.exists(os.path.join(str(tmp_path / "idx"), KEYWORD_FILE))
        pf = k.store.keyword_file()
        assert pf is not None and pf.generation == k.store.generation()
        got = k.store.keyword_search(["reimburs", "limit"], 5, None)
        assert got and got == _fts5(k.store, ["reimburs", "limit"], 5)


def test_a_run_told_more_writes_follow_leaves_the_file_to_the_next(tmp_path, monkeypatch):
    from conftest import FakeEmbedder
    from kotae.facade import Kotae

    monkeypatch.setattr(postings, "MIN_ROWS", 0)
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("# A\n\nMileage is paid at the standard rate.\n")
    path = os.path.join(str(tmp_path / "idx"), KEYWORD_FILE)
    with Kotae(open_store(str(tmp_path / "idx")), FakeEmbedder()) as k:
        k.index([str(docs)], isolate=False, keyword_file=False)  # the upload worker, more uploads queued
        assert not os.path.exists(path)
        k.index([str(docs)], isolate=False)  # nothing new to read, but the stale file is written now
        assert os.path.exists(path) and k.store.keyword_file() is not None


def test_a_file_that_cannot_be_written_leaves_fts5_answering(store, monkeypatch, caplog):
    _corpus(store, random.Random(2), docs=2)

    def full_disk(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(postings, "build", full_disk)
    assert store.keyword_file(build=True) is None
    assert "keyword search uses FTS5" in caplog.text
    assert store.keyword_search(["c0", "r1"], 5, None) == _fts5(store, ["c0", "r1"], 5)


def test_after_writes_the_file_and_the_change_since_give_fts5s_list(store, monkeypatch):
    monkeypatch.setattr(postings, "DELTA_SHARE", 0.6)  # 200 rows gone and 300 new of 1,000
    rng = random.Random(17)
    _corpus(store, rng, docs=10, per=100)
    assert store.keyword_file(build=True) is not None
    store.remove_document("/c/3.txt")  # gone
    extra = open_store(store.location)  # another writer: documents added (10, 11) and one rewritten (5)
    _corpus_docs(extra, rng, [5, 10, 11])
    extra.close()
    state = store._keyword_index()
    assert state is not None and state[1] is not None  # the file is old: served with the change since
    assert sorted(state[1].doc_ids) == ["id10", "id11", "id5"] and state[1].dead.sum() == 200
    served = 0
    for q in range(80):
        terms = rng.sample(COMMON, rng.randint(0, 3)) + rng.sample(RARE, rng.randint(1, 4))
        for limit in (1, 10, 50, 2000):
            want = _fts5(store, terms, limit)
            got = store.keyword_search(terms, limit, None)
            assert got == want  # rowids, order and float scores
            served += 1
        flt = {"id1", "id5", "id10", "id3"}
        assert store.keyword_search(terms, 10, flt) == _fts5(store, terms, 10, flt)
    assert served == 320


def test_a_change_past_its_share_leaves_fts5_answering_until_the_next_run(store, monkeypatch):
    rng = random.Random(4)
    _corpus(store, rng, docs=5, per=50)
    assert store.keyword_file(build=True) is not None
    monkeypatch.setattr(postings, "DELTA_SHARE", 0.1)
    _corpus_docs(store, rng, [7])  # 50 of 250 rows: past a tenth
    assert store._keyword_index() is None
    assert store.keyword_search(["c0", "r5"], 10, None) == _fts5(store, ["c0", "r5"], 10)
    assert store.keyword_file(build=True) is not None and store._keyword_index()[1] is None


def _corpus_docs(store, rng, numbers, per=100):
    """Documents id<N> of _corpus's kind, written (again) one by one."""
    import numpy as np

    from kotae.types import Chunk, DocumentInfo

    for d in numbers:
        info = DocumentInfo(f"id{d}", f"/c/{d}.txt", f"{d}.txt", "text", f"h{rng.random()}", 1, per, "en",
                            f"2026-01-0{1 + d % 9}T00:00:00+00:00")
        chunks = [Chunk(f"{d}-{i}-{rng.random()}", info.id, info.file, 1, (), "t", 0, 1, "en", i) for i in range(per)]
        words = [" ".join(rng.choice(COMMON) if rng.random() < 0.5 else rng.choice(RARE)
                          for _ in range(rng.randint(3, 40))) for _ in range(per)]
        if store.document(info.path) is not None:
            store.remove_document(info.path)
        store.write_document(info, ["p"], chunks, [f"h{d}-{i}-{rng.random()}" for i in range(per)],
                             np.zeros((per, 4), np.float32), words)


def test_an_index_run_rewrites_the_file_once_the_change_passes_its_rebuild_share(store, monkeypatch):
    rng = random.Random(8)
    _corpus(store, rng, docs=10, per=100)
    first = store.keyword_file(build=True)
    assert first is not None
    _corpus_docs(store, rng, [20], per=10)  # 10 of 1,000 rows: searched with the change, not rewritten
    monkeypatch.setattr(postings, "REBUILD_SHARE", 0.02)
    assert store.keyword_file(build=True).generation == first.generation
    assert store._keyword_index()[1] is not None
    _corpus_docs(store, rng, [21], per=30)  # 40 rows changed: past 2 %, within the 20 % searches take
    assert store.keyword_file().generation == first.generation  # a search still uses the old file
    rewritten = store.keyword_file(build=True)  # an index run writes it anew
    assert rewritten.generation == store.generation() and store._keyword_index()[1] is None
