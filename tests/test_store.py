"""The SQLite store: whole-document writes, replacement, removal, model binding, filters."""
import numpy as np
import pytest

from kotae.errors import IndexMismatch
from kotae.store import Filter, open_store
from kotae.types import Chunk, DocumentInfo


def _doc(path="/d/a.txt", file="a.txt", n=2, kind="text", tags=(), when="2026-01-01T00:00:00+00:00"):
    info = DocumentInfo(id="id-" + file, path=path, file=file, kind=kind, sha256="h", pages=1, chunks=n,
                        lang="en", indexed_at=when, tags=tags)
    chunks = [Chunk(id=f"{file}-{i}", doc_id=info.id, file=file, page=1, heading=("H",), text=f"text {i} {file}",
                    start=0, end=5, lang="en", ordinal=i) for i in range(n)]
    vecs = np.eye(n, 4, dtype=np.float32)
    return info, chunks, vecs


def _write(store, info, chunks, vecs, words=None):
    store.write_document(info, ["page"], chunks, [c.id + "h" for c in chunks], vecs,
                         words or [f"word{i} {info.file}" for i in range(len(chunks))])


@pytest.fixture
def store(tmp_path):
    s = open_store(str(tmp_path / "idx"))
    s.bind_model("m@1/4")
    yield s
    s.close()


def test_write_read_and_keyword(store):
    _write(store, *_doc())
    assert [d.file for d in store.documents()] == ["a.txt"]
    hits = store.keyword_search(["word1"], 10, None)
    assert len(hits) == 1
    chunk = store.chunks([hits[0][0]])[hits[0][0]]
    assert chunk.id == "a.txt-1" and chunk.heading == ("H",)
    m = store.dense_matrix()
    assert m.vectors.shape == (2, 4) and list(m.doc_ids) == ["id-a.txt", "id-a.txt"]


def test_replace_is_whole_and_bumps_generation(store):
    _write(store, *_doc(n=3))
    g = store.generation()
    _write(store, *_doc(n=1))
    assert store.generation() == g + 1
    assert store.document("/d/a.txt").chunks == 1
    assert store.dense_matrix().vectors.shape[0] == 1
    assert store.keyword_search(["word2"], 10, None) == []


def test_failed_write_leaves_nothing(store):
    info, chunks, vecs = _doc(n=2)
    with pytest.raises(ValueError):  # one keyword text too few: zip(strict=True) fails mid-transaction
        store.write_document(info, ["p"], chunks, ["h1", "h2"], vecs, ["only one"])
    assert store.documents() == []
    assert store.dense_matrix().vectors.shape[0] == 0
    assert store.keyword_search(["only"], 10, None) == []


def test_remove_never_retrieved(store):
    _write(store, *_doc())
    _write(store, *_doc(path="/d/b.txt", file="b.txt"))
    assert store.remove_document("/d/a.txt").file == "a.txt"
    assert store.keyword_search(["a.txt", "word0"], 10, None)
    assert all(store.chunks([r])[r].file == "b.txt" for r, _ in store.keyword_search(["word0"], 10, None))
    assert set(store.dense_matrix().doc_ids) == {"id-b.txt"}
    assert store.remove_document("/d/a.txt") is None


def test_cached_vectors(store):
    info, chunks, vecs = _doc()
    _write(store, info, chunks, vecs)
    got = store.cached_vectors([chunks[1].id + "h", "missing"])
    assert list(got) == [chunks[1].id + "h"]
    assert np.allclose(got[chunks[1].id + "h"], vecs[1])


def test_other_model_refused(store, tmp_path):
    with pytest.raises(IndexMismatch, match="built with m@1/4, not other@2/8; re-embed it with: kotae --index .* --model other reembed"):
        store.bind_model("other@2/8")


def test_filters(store):
    _write(store, *_doc(path="/d/rules.pdf", file="rules.pdf", kind="pdf", tags=("hr",),
                        when="2026-03-01T00:00:00+00:00"))
    _write(store, *_doc(path="/d/sub/faq.md", file="sub/faq.md", kind="markdown"))
    assert store.matching_documents(Filter(file="*.pdf")) == {"id-rules.pdf"}
    assert store.matching_documents(Filter(file="faq.md")) == {"id-sub/faq.md"}
    assert store.matching_documents(Filter(kind="markdown")) == {"id-sub/faq.md"}
    assert store.matching_documents(Filter(tags=("hr",))) == {"id-rules.pdf"}
    assert store.matching_documents(Filter(since="2026-02-01")) == {"id-rules.pdf"}
    assert store.matching_documents(Filter(until="2026-02-01")) == {"id-sub/faq.md"}
    only_pdf = store.keyword_search(["word0"], 10, {"id-rules.pdf"})
    assert [store.chunks([r])[r].file for r, _ in only_pdf] == ["rules.pdf"]
