"""One behaviour suite over every store backend (SQLite, PostgreSQL + pgvector started for real).

The same writes give the same reads; the same corpus gives the same top results in every search mode.
"""
import hashlib
import json
import os

import numpy as np
import pytest

from conftest import ROOT, SAMPLES, FakeEmbedder, new_pg_index
from kotae.cli import main
from kotae.config import IndexSettings
from kotae.errors import IndexMismatch
from kotae.pipeline import index_paths
from kotae.search import Searcher
from kotae.search.analyze import analyze
from kotae.search.dense import DenseIndex
from kotae.store import Filter, open_store
from kotae.store.pg_keyword import terms
from kotae.types import Chunk, DocumentInfo, PageWords, Word

BACKENDS = ["sqlite", "postgres"]


def _open(backend, request, tmp_path):
    if backend == "sqlite":
        return open_store(str(tmp_path / "idx"))
    return open_store(request.getfixturevalue("pg_url"))


@pytest.fixture(params=BACKENDS)
def store(request, tmp_path):
    s = _open(request.param, request, tmp_path)
    s.bind_model("m@1/4")
    yield s
    s.close()


def _doc(path="/d/a.txt", file="a.txt", n=2, kind="text", tags=(), when="2026-01-01T00:00:00+00:00", dim=4):
    info = DocumentInfo(id="id-" + file, path=path, file=file, kind=kind, sha256="h", pages=1, chunks=n,
                        lang="en", indexed_at=when, tags=tags)
    chunks = [Chunk(id=f"{file}-{i}", doc_id=info.id, file=file, page=1, heading=("H", "h2"),
                    text=f"text {i} {file}", start=0, end=5, lang="en", ordinal=i, rows=(i + 1, i + 2) if i else None,
                    tokens=7, ocr=i == 1) for i in range(n)]
    vecs = np.eye(n, dim, dtype=np.float32)
    return info, chunks, vecs


def _write(store, info, chunks, vecs, words=None):
    store.write_document(info, ["page one", "page two"], chunks, [c.id + "h" for c in chunks], vecs,
                         words or [f"word{i} {info.file}" for i in range(len(chunks))])


def _dense(store, q, k=10, docs=None):
    if store.searches_vectors:
        return store.dense_search(np.asarray(q, np.float32), k, docs)
    return DenseIndex(store.dense_matrix()).search_with_margin(np.asarray(q, np.float32), k, docs)


# --- writes and reads ---------------------------------------------------------------------------
def test_write_read_and_keyword(store):
    _write(store, *_doc())
    assert [d.file for d in store.documents()] == ["a.txt"]
    hits = store.keyword_search(["word1"], 10, None)
    assert len(hits) == 1
    chunk = store.chunks([hits[0][0]])[hits[0][0]]
    assert chunk == _doc()[1][1]  # every field round-trips: heading path, rows, offsets, tokens
    m = store.dense_matrix()
    assert m.vectors.shape == (2, 4) and list(m.doc_ids) == ["id-a.txt", "id-a.txt"]
    assert store.page_text("id-a.txt", 2) == "page two" and store.page_text("id-a.txt", 3) is None
    assert store.document("id-a.txt") == store.document("/d/a.txt") == store.documents()[0]
    assert store.rowids_of(["a.txt-1"]) == {"a.txt-1": hits[0][0]}
    assert store.page_words("id-a.txt", 1) is None


def test_ocr_word_boxes_round_trip_and_go_with_their_document(store):
    words = PageWords(2, 595.0, 842.0, "pt", "jpn+eng", (Word("賃金", 0, 2, 10.0, 20.0, 40.5, 32.0),
                                                          Word("pay", 3, 6, 45.0, 20.0, 70.0, 32.0)))
    info, chunks, vecs = _doc()
    store.write_document(info, ["p1", "賃金 pay"], chunks, ["h0", "h1"], vecs, ["a", "b"], [words])
    assert store.page_words("id-a.txt", 2) == words and store.page_words("id-a.txt", 1) is None
    store.remove_document(info.path)
    assert store.page_words("id-a.txt", 2) is None


def test_replace_is_whole_and_bumps_generation(store):
    _write(store, *_doc(n=3))
    g = store.generation()
    _write(store, *_doc(n=1))
    assert store.generation() == g + 1
    assert store.document("/d/a.txt").chunks == 1
    assert store.dense_matrix().vectors.shape[0] == 1
    assert store.keyword_search(["word2"], 10, None) == []
    assert store.document_frequencies(["word0", "word2"]) == ({"word0": 1, "word2": 0}, 1)
    assert store.index_version().endswith(f":m@1/4:{g + 1}")


def test_failed_write_leaves_nothing(store):
    info, chunks, vecs = _doc(n=2)
    with pytest.raises(ValueError):  # one keyword text too few
        store.write_document(info, ["p"], chunks, ["h1", "h2"], vecs, ["only one"])
    assert store.documents() == []
    assert store.dense_matrix().vectors.shape[0] == 0
    assert store.keyword_search(["only"], 10, None) == []


def test_remove_never_retrieved(store):
    _write(store, *_doc())
    _write(store, *_doc(path="/d/b.txt", file="b.txt"))
    g = store.generation()
    assert store.remove_document("/d/a.txt").file == "a.txt"
    assert store.generation() == g + 1
    assert store.keyword_search(["a.txt", "word0"], 10, None)
    assert all(store.chunks([r])[r].file == "b.txt" for r, _ in store.keyword_search(["word0"], 10, None))
    assert set(store.dense_matrix().doc_ids) == {"id-b.txt"}
    assert {store.chunks([r])[r].file for r, _ in _dense(store, [1, 0, 0, 0])[0]} == {"b.txt"}
    assert store.document_frequencies(["word0", "a.txt"]) == ({"word0": 1, "a.txt": 0}, 2)
    assert store.remove_document("/d/a.txt") is None
    assert store.remove_document("id-b.txt").file == "b.txt"  # by id too
    assert store.documents() == [] and _dense(store, [1, 0, 0, 0]) == ([], 0.0)


def test_cached_vectors(store):
    info, chunks, vecs = _doc()
    _write(store, info, chunks, vecs)
    got = store.cached_vectors([chunks[1].id + "h", "missing"])
    assert list(got) == [chunks[1].id + "h"]
    assert np.allclose(got[chunks[1].id + "h"], vecs[1])
    store.remove_document(info.path)
    assert list(store.cached_vectors([chunks[1].id + "h"])) == [chunks[1].id + "h"]  # the cache outlives it


def test_postgres_keeps_one_copy_of_each_vector_until_its_document_goes(request, tmp_path):
    # the vectors live in the chunks; the cache table takes a removed document's, so re-adding it embeds nothing
    store = _open("postgres", request, tmp_path)
    store.bind_model("m@1/4")
    info, chunks, vecs = _doc(n=3)
    _write(store, info, chunks, vecs)
    assert store._rows("SELECT count(*) FROM embeddings")[0][0] == 0
    assert sorted(store.cached_vectors([c.id + "h" for c in chunks])) == sorted(c.id + "h" for c in chunks)
    store.remove_document(info.path)
    assert store._rows("SELECT count(*) FROM embeddings")[0][0] == 3
    got = store.cached_vectors([chunks[2].id + "h"])
    assert np.allclose(got[chunks[2].id + "h"], vecs[2])
    # an index written before schema 4 held every vector twice: the upgrade drops the cache's copies of stored ones
    _write(store, info, chunks, vecs)
    store._run("DELETE FROM kotae_schema WHERE version = 4")
    store.close()
    store = _open("postgres", request, tmp_path)
    assert store._rows("SELECT count(*) FROM embeddings")[0][0] == 0
    assert sorted(store.cached_vectors([c.id + "h" for c in chunks])) == sorted(c.id + "h" for c in chunks)
    store.close()


def test_other_model_refused(store):
    with pytest.raises(IndexMismatch, match="built with m@1/4, not other@2/8; re-embed it with: "
                                            "kotae --(index|database-url) .* --model other reembed"):
        store.bind_model("other@2/8")
    store.bind_model("m@1/4")  # the same model is fine


def test_replace_embeddings_switches_model_and_dimension(store):
    _write(store, *_doc(n=3))
    store.set_meta("gate", '{"min_margin": 0.1}')
    rows = [r for r, _ in store.chunk_texts()]
    vecs = np.eye(3, 8, k=2, dtype=np.float32)
    store.replace_embeddings("other@2/8", rows, ["x0", "x1", "x2"], vecs)
    assert store.meta("model") == "other@2/8" and store.meta("gate") is None
    assert store.dense_matrix().vectors.shape == (3, 8)
    hits, margin = _dense(store, np.eye(1, 8, k=3)[0])
    assert hits[0] == (rows[1], pytest.approx(1.0)) and margin == pytest.approx(1 - 1 / 3)
    assert list(store.cached_vectors(["x0", "a.txt-0h"])) == ["x0"]
    _write(store, *_doc(path="/d/b.txt", file="b.txt", n=1, dim=8))  # new writes use the new dimension


def test_filters(store):
    _write(store, *_doc(path="/d/rules.pdf", file="rules.pdf", kind="pdf", tags=("hr", "2026"),
                        when="2026-03-01T00:00:00+00:00"))
    _write(store, *_doc(path="/d/sub/faq.md", file="sub/faq.md", kind="markdown"))
    _write(store, *_doc(path="/d/規程[旧].txt", file="規程[旧].txt", tags=("hr",)))
    assert store.matching_documents(Filter(file="*.pdf")) == {"id-rules.pdf"}
    assert store.matching_documents(Filter(file="faq.md")) == {"id-sub/faq.md"}
    assert store.matching_documents(Filter(file="sub/*")) == {"id-sub/faq.md"}
    assert store.matching_documents(Filter(file="rules.pd?")) == {"id-rules.pdf"}
    assert store.matching_documents(Filter(file="[rs]*")) == {"id-rules.pdf", "id-sub/faq.md"}
    assert store.matching_documents(Filter(file="*[旧]*")) == {"id-規程[旧].txt"}
    assert store.matching_documents(Filter(file="sub/[^f]*")) == set()
    assert store.matching_documents(Filter(file="規程*")) == {"id-規程[旧].txt"}
    assert store.matching_documents(Filter(file="*.PDF")) == set()  # GLOB is case-sensitive
    assert store.matching_documents(Filter(kind="markdown")) == {"id-sub/faq.md"}
    assert store.matching_documents(Filter(tags=("hr",))) == {"id-rules.pdf", "id-規程[旧].txt"}
    assert store.matching_documents(Filter(tags=("hr", "2026"))) == {"id-rules.pdf"}
    assert store.matching_documents(Filter(since="2026-02-01")) == {"id-rules.pdf"}
    assert store.matching_documents(Filter(until="2026-02-01")) == {"id-sub/faq.md", "id-規程[旧].txt"}
    assert store.matching_documents(Filter(lang="ja")) == set()
    only_pdf = store.keyword_search(["word0"], 10, {"id-rules.pdf"})
    assert [store.chunks([r])[r].file for r, _ in only_pdf] == ["rules.pdf"]
    assert store.keyword_search(["word0"], 10, set()) == []
    hits, _ = _dense(store, [1, 0, 0, 0], 10, {"id-sub/faq.md"})
    assert [store.chunks([r])[r].file for r, _ in hits] == ["sub/faq.md", "sub/faq.md"]
    assert _dense(store, [1, 0, 0, 0], 10, set()) == ([], 0.0)


def test_dense_search_and_margin_match_exact_search(store):
    rng = np.random.default_rng(3)
    for d in range(4):
        info, chunks, _ = _doc(path=f"/d/{d}.txt", file=f"{d}.txt", n=25, dim=4)
        v = rng.standard_normal((25, 4)).astype(np.float32)
        _write(store, info, chunks, v / np.linalg.norm(v, axis=1, keepdims=True))
    exact = DenseIndex(store.dense_matrix())
    for q in rng.standard_normal((5, 4)).astype(np.float32):
        q /= np.linalg.norm(q)
        for docs in (None, {"id-1.txt", "id-3.txt"}):
            hits, margin = _dense(store, q, 10, docs)
            want, want_margin = exact.search_with_margin(q, 10, docs)
            assert [r for r, _ in hits] == [r for r, _ in want]
            assert np.allclose([s for _, s in hits], [s for _, s in want], atol=1e-5)
            assert margin == pytest.approx(want_margin, abs=1e-5)


def test_keyword_text_is_the_analysed_tokens(store):
    info, chunks, vecs = _doc(n=3)
    texts = ["賃金 支払う 翌月 賃金", "wi-fi password o'neil back\\slash", "賃金"]
    _write(store, info, chunks, vecs, texts)
    ranked = [store.chunks([r])[r].ordinal for r, _ in store.keyword_search(["賃金"], 10, None)]
    assert ranked == [2, 0]  # BM25: the short chunk first, then the one with two hits
    assert [store.chunks([r])[r].ordinal for r, _ in store.keyword_search(["wi-fi"], 10, None)] == [1]
    for odd in (["o'neil"], ["back\\slash"], ["'"], ["&", "|", "!"]):  # quoting never breaks the query
        store.keyword_search(odd, 10, None)
    assert store.document_frequencies(["賃金", "wi"]) == ({"賃金": 2, "wi": 1}, 3)


# --- the same corpus, the same results ------------------------------------------------------------
RULES = "# 就業規則\n\n## 第1条（賃金の支払）\n賃金は、毎月末日に締め切り、翌月25日に支払う。\n"
HANDBOOK = "# Handbook\n\n## Remote work\nEmployees may work from home up to three days per week.\n"


class TieFreeEmbedder(FakeEmbedder):
    """The FakeEmbedder with a fixed weight per word, and a small weight per text in one shared dimension, so
    that no two chunks tie on similarity by accident (not even at 0, sharing no word with the query): exact
    ties come back in an arbitrary order, which each backend is free to choose differently."""

    name = "fake-weighted"

    def embed_batch(self, texts, kind):
        self.calls.append((kind, len(texts)))
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, t in enumerate(texts):
            for tok in analyze(t) or ["<empty>"]:
                h = int(hashlib.md5(tok.encode()).hexdigest(), 16)
                out[i, h % self.dim] += 1.0 + (h >> 8) % 997 / 997
            out[i, 0] += 0.05 + int(hashlib.md5(t.encode()).hexdigest(), 16) % 9973 / 9973 * 0.05
        return out


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    d = tmp_path_factory.mktemp("corpus")
    (d / "rules.md").write_text(RULES, encoding="utf-8")
    (d / "handbook.md").write_text(HANDBOOK, encoding="utf-8")
    return [SAMPLES, str(d)]


@pytest.fixture(scope="module")
def both(corpus, pg_server, tmp_path_factory):
    """The same corpus indexed into each backend."""
    stores = {"sqlite": open_store(str(tmp_path_factory.mktemp("both") / "idx")),
              "postgres": open_store(new_pg_index(pg_server, exact=True))}
    for s in stores.values():
        report = index_paths(corpus, s, TieFreeEmbedder(), IndexSettings(tags=("all",)))
        assert report.ok and len(report.indexed) == 6
    yield stores
    for s in stores.values():
        s.close()


def _questions():
    out = []
    for name in ("golden-ja.jsonl", "golden-en.jsonl"):
        with open(os.path.join(ROOT, "samples", name), encoding="utf-8") as f:
            out += [json.loads(line)["question"] for line in f if line.strip()][:12]
    return out + ["賃金はいつ支払われますか", "remote work days", "zzzz unknown words"]


@pytest.mark.parametrize("mode", ["dense", "keyword", "hybrid"])
def test_same_top_results_on_both_backends(both, mode):
    e = TieFreeEmbedder()
    searchers = {k: Searcher(s, e) for k, s in both.items()}
    for q in _questions():
        got = {k: s.search(q, mode=mode, top_k=5) for k, s in searchers.items()}
        a, b = got["sqlite"], got["postgres"]
        if mode == "hybrid" and any(len(terms(t)) > 1 for t in analyze(q)):
            # a split token scores otherwise on PostgreSQL (see below), and score fusion adds the normalised
            # BM25 scores, not only ranks: the best hit agrees, the order behind it may not
            assert a.hits[0].chunk.id == b.hits[0].chunk.id, q
            continue
        assert [h.chunk.id for h in a.hits] == [h.chunk.id for h in b.hits], q
        for ha, hb in zip(a.hits, b.hits, strict=True):
            assert ha.keyword_rank == hb.keyword_rank, q
            assert ha.dense_rank == hb.dense_rank, q  # (exact search on both: HNSW's recall is measured apart)
            assert (ha.bm25 is None) == (hb.bm25 is None), q
            if ha.bm25 is not None and not any(len(terms(t)) > 1 for t in analyze(q)):  # see below
                assert ha.bm25 == pytest.approx(hb.bm25, rel=1e-6), q
            if ha.dense_rank and hb.dense_rank:  # (in both dense lists)
                assert ha.similarity == pytest.approx(hb.similarity, abs=1e-5), q
        assert a.gate.found == b.gate.found and a.gate.margin == pytest.approx(b.gate.margin, abs=1e-5), q
        assert a.gate.coverage == pytest.approx(b.gate.coverage), q


@pytest.mark.parametrize("flt", [Filter(kind="pdf"), Filter(file="*.md"), Filter(tags=("all",), lang="ja"),
                                 Filter(file="rules.md")])
def test_same_filtered_results_on_both_backends(both, flt):
    e = TieFreeEmbedder()
    assert both["sqlite"].matching_documents(flt) == both["postgres"].matching_documents(flt)
    found = 0
    for q in ("賃金の支払日", "expense claims", "休暇"):
        # (chunks orthogonal to the query tie at similarity 0, in any order: only the others are compared)
        ids = [[h.chunk.id for h in Searcher(s, e).search(q, top_k=5, flt=flt).hits if h.similarity or h.bm25]
               for s in both.values()]
        assert ids[0] == ids[1], (q, flt)
        found += len(ids[0])
    assert found


def test_same_statistics_on_both_backends(both):
    a, b = both["sqlite"], both["postgres"]
    assert [d.path for d in a.documents()] == [d.path for d in b.documents()]
    assert [(d.id, d.chunks, d.tags) for d in a.documents()] == [(d.id, d.chunks, d.tags) for d in b.documents()]
    terms = list(dict.fromkeys(t for q in _questions() for t in analyze(q)))
    assert a.document_frequencies(terms) == b.document_frequencies(terms)


def test_a_split_token_is_terms_not_a_phrase(both):
    """The one known difference: Sudachi keeps "wi-fi" whole, FTS5 splits it and matches the phrase "wi fi";
    PostgreSQL matches and scores its terms "wi" and "fi" separately (as for English queries anyway), so
    the same chunks match first but the scores differ."""
    tokens = analyze("Wi-Fi のパスワード")
    assert "wi-fi" in tokens
    got = {k: s.keyword_search(tokens, 5, None) for k, s in both.items()}
    top = {k: both[k].chunks([rows[0][0]])[rows[0][0]].id for k, rows in got.items()}
    assert top["sqlite"] == top["postgres"]
    assert got["postgres"][0][1] > got["sqlite"][0][1]  # two idf terms where FTS5 has one phrase


# --- the command line and migration ----------------------------------------------------------------
def test_cli_database_url_and_its_environment_variable(pg_url, tmp_path, capsys, monkeypatch):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "rules.md").write_text(RULES, encoding="utf-8")
    assert main(["--database-url", pg_url, "--model", "fake", "index", str(docs)]) == 0
    out = capsys.readouterr().out
    assert "indexed 1 file(s)" in out and "postgresql://" in out
    monkeypatch.setenv("KOTAE_DATABASE_URL", pg_url)
    assert main(["--model", "fake", "ask", "--json", "賃金はいつ支払われますか"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["sources"][0]["file"] == "rules.md" and "翌月25日" in result["answer"]
    assert main(["--model", "fake", "list"]) == 0
    assert "rules.md" in capsys.readouterr().out
    assert main(["--index", str(tmp_path / "none"), "--model", "fake", "list"]) == 2  # an explicit --index wins
    assert "no index at" in capsys.readouterr().err
    assert main(["--model", "fake", "remove", "rules.md"]) == 0
    s = open_store(pg_url)
    assert s.documents() == [] and s.generation() == 2  # one write, one removal
    s.close()


def test_migrate_copies_everything_without_reembedding(corpus, pg_server, tmp_path, capsys):
    src = str(tmp_path / "src")
    sq = open_store(src)
    index_paths(corpus, sq, TieFreeEmbedder(), IndexSettings(tags=("x",)))
    sq.set_meta("gate", '{"min_margin": 0.05, "min_coverage": 0.3}')
    info, chunks, vecs = _doc(path="/scan.pdf", file="scan.pdf", dim=256)  # an OCR'd page with its word boxes
    words = PageWords(1, 595.0, 842.0, "pt", "jpn", (Word("賃金", 0, 2, 1.0, 2.0, 3.0, 4.0),))
    _write(sq, info, chunks, vecs)
    sq.write_document(info, ["賃金"], chunks, ["o0", "o1"], vecs, ["賃金", "賃金"], [words])
    url = new_pg_index(pg_server)
    assert main(["--database-url", url, "migrate", "--from", src]) == 0
    out = capsys.readouterr().out
    assert "migrated 7 document(s) (" in out and "nothing re-embedded" in out
    pg = open_store(url)
    assert pg.documents() == sq.documents()  # every field, indexed_at and tags included
    assert pg.page_words(info.id, 1) == words
    for key in ("model", "chunking", "contextual_prefix", "gate"):
        assert pg.meta(key) == sq.meta(key), key

    def by_id(store):
        rows = [r for r, _ in store.chunk_texts()]
        m = store.dense_matrix()
        vec = dict(zip(m.rowids.tolist(), m.vectors, strict=True))
        return {c.id: (c, vec[r]) for r, c in store.chunks(rows).items()}

    got, want = by_id(pg), by_id(sq)
    assert got.keys() == want.keys()
    assert all(got[k][0] == want[k][0] and np.array_equal(got[k][1], want[k][1]) for k in want)
    e = TieFreeEmbedder()
    for q in ("賃金の支払日", "remote work"):
        ids = [[h.chunk.id for h in Searcher(s, e).search(q, top_k=5).hits] for s in (sq, pg)]
        assert ids[0] == ids[1]
    assert e.embedded == 0  # only the queries were embedded

    g = pg.generation()
    assert main(["migrate", "--from", src, "--to", url]) == 0  # again: the same documents, nothing changes
    assert pg.generation() == g and len(pg.chunk_texts()) == len(sq.chunk_texts())

    other = new_pg_index(pg_server)
    s = open_store(other)
    s.bind_model("other@1/8")
    s.close()
    capsys.readouterr()
    assert main(["migrate", "--from", src, "--to", other]) == 2
    assert "holds an index built with other@1/8, not fake-weighted@1/256" in capsys.readouterr().err
    assert main(["migrate", "--from", str(tmp_path / "nothing"), "--to", other]) == 2
    assert "no index at" in capsys.readouterr().err
    for s in (pg, sq):
        s.close()


def test_a_read_only_replica_opens_and_searches(pg_url, tmp_path):
    """Queries can go to a streaming replica: opening an up-to-date index and searching never write."""
    import psycopg

    primary = open_store(pg_url)
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "rules.md").write_text(RULES, encoding="utf-8")
    index_paths([str(docs)], primary, FakeEmbedder(), IndexSettings())
    replica = open_store(pg_url + "%20-cdefault_transaction_read_only%3Don")  # a standby refuses writes alike
    replica.bind_model(FakeEmbedder().model_id)
    hits = Searcher(replica, FakeEmbedder()).search("賃金の支払日", top_k=1).hits
    assert hits[0].chunk.file == "rules.md"
    with pytest.raises(psycopg.errors.ReadOnlySqlTransaction):
        replica.remove_document(hits[0].chunk.doc_id)
    for s in (primary, replica):
        s.close()


def test_heading_keywords_are_searched_alike(pg_url, tmp_path):
    """index.chunk.heading = keywords: the chunks after a section's first, which lack its heading line, are found
    by a word only the heading holds, with the same BM25 on both backends."""
    from kotae.config import ChunkSettings

    doc = tmp_path / "policy.md"
    body = " ".join(f"Rule {i}: hours past eight a day are paid at 125 percent of the base rate." for i in range(80))
    doc.write_text(f"# Overtime compensation\n\n{body}\n\n# Holidays\n\nThe office closes on holidays.\n",
                   encoding="utf-8")
    found = {}
    for name, location in (("sqlite off", str(tmp_path / "a")), ("sqlite", str(tmp_path / "b")),
                           ("postgres", pg_url)):
        s = open_store(location)
        heading = "off" if name.endswith("off") else "keywords"
        index_paths([str(doc)], s, TieFreeEmbedder(), IndexSettings(chunk=ChunkSettings(heading=heading)))
        assert s.meta("heading") == heading
        got = s.keyword_search(analyze("overtime"), 50, None)
        chunks = s.chunks([r for r, _ in got])
        found[name] = [(chunks[r].id, round(x, 6)) for r, x in got]
        n_section = sum(c.heading == ("Overtime compensation",) for c in s.chunks(
            [r for r, _ in s.chunk_texts()]).values())
        s.close()
    assert n_section > 2
    assert len(found["sqlite off"]) == 1  # the chunk holding the heading line
    assert len(found["sqlite"]) == n_section
    assert found["sqlite"] == found["postgres"]
