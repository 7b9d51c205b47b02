"""PostgreSQL's bulk path, the default for every write: binary COPY (vectors and tsvectors in the server's
binary form), a batch of documents in one transaction with a savepoint each, and the HNSW index built once
at the end of a large load (then the tables analysed)."""
from __future__ import annotations

import numpy as np
import pytest

from conftest import FakeEmbedder
from kotae import Kotae
from kotae.store import pg_copy, pg_keyword, postgres
from kotae.store.base import DocumentWrite
from kotae.types import Chunk, DocumentInfo


def doc(n: int, d: int, text: str = "t", dim: int = 8) -> DocumentWrite:
    info = DocumentInfo(f"doc{d}", f"/d/{d}.txt", f"{d}.txt", "text", "h", 1, n, "en", "2026-01-01T00:00:00+00:00")
    chunks = [Chunk(f"c{d}-{i}", info.id, info.file, 1, ("H",), f"{text} {i}", 0, 2, "en", i) for i in range(n)]
    v = np.random.default_rng(d).standard_normal((n, dim)).astype(np.float32)
    return DocumentWrite(info, [f"page of {d}"], chunks, [f"h{d}-{i}" for i in range(n)],
                         v / np.linalg.norm(v, axis=1, keepdims=True), [f"apple w{d} w{i}" for i in range(n)])


def counts(store: postgres.PostgresStore) -> dict[str, object]:
    one = store._rows
    return {"documents": sorted(r[0] for r in one("SELECT id FROM documents")),
            "pages": one("SELECT count(*) FROM pages")[0][0],
            "chunks": sorted(r[0] for r in one("SELECT doc_id FROM chunks")),
            "embeddings": sorted(r[0] for r in one("SELECT text_hash FROM embeddings")),
            "terms": dict(one("SELECT term, chunks FROM keyword_terms")),
            "stats": one("SELECT chunks, keyword_tokens FROM kotae_stats")[0]}


def test_a_failing_document_in_a_batch_leaves_nothing_of_itself_and_the_others_commit(pg_server):
    from conftest import new_pg_index

    batch, alone = (postgres.PostgresStore(new_pg_index(pg_server)) for _ in range(2))
    for s in (batch, alone):
        s.bind_model("m")
    bad = doc(5, 2)
    # PostgreSQL refuses a NUL in text: the last chunk fails the COPY after the document's row, its page and
    # its cached embeddings are in
    bad = DocumentWrite(bad.info, bad.pages, [*bad.chunks[:-1], Chunk("c2-4", "doc2", "2.txt", 1, (), "x\x00y",
                                                                     0, 3, "en", 4)],
                        bad.text_hashes, bad.vectors, bad.keyword_text)
    errors = batch.write_documents([doc(3, 1), bad, doc(4, 3)])
    assert errors[0] is None and errors[2] is None
    assert errors[1] is not None and "0x00" in str(errors[1])
    assert alone.write_documents([doc(3, 1), doc(4, 3)]) == [None, None]
    got = counts(batch)
    assert got == counts(alone)  # as if the failing document had never been written
    assert got["documents"] == ["doc1", "doc3"] and got["stats"] == (7, 21)
    assert batch.document("/d/2.txt") is None
    for s in (batch, alone):
        s.close()


def test_a_document_failing_before_its_transaction_fails_alone(pg_url):
    store = postgres.PostgresStore(pg_url)
    store.bind_model("m")
    short = doc(3, 1)
    short = DocumentWrite(short.info, short.pages, short.chunks, short.text_hashes[:2], short.vectors,
                          short.keyword_text)
    errors = store.write_documents([short, doc(2, 2)])
    assert isinstance(errors[0], ValueError) and "/d/1.txt: 3 chunks, 2 hashes" in str(errors[0])
    assert errors[1] is None and [d.id for d in store.documents()] == ["doc2"]
    with pytest.raises(ValueError, match="/d/1.txt"):
        store.write_document(short.info, short.pages, short.chunks, short.text_hashes, short.vectors,
                             short.keyword_text)
    store.close()


def test_binary_copy_stores_what_the_text_forms_say(pg_url):
    """Oracle: the tsvector and vector sent in binary equal the server's parse of their text forms."""
    store = postgres.PostgresStore(pg_url)
    store.bind_model("m")
    terms = ["it's", "back\\slash", "東京", "a", "a", "b", "a"] + ["z"] * 300 + [str(i) for i in range(17000)]
    d = doc(2, 1)
    d = DocumentWrite(d.info, d.pages, d.chunks, d.text_hashes, d.vectors, [" ".join(terms), "solo"])
    assert store.write_documents([d]) == [None]
    for (rowid, same, stored), text in zip(
            store._rows("SELECT rowid, keywords = %s::tsvector, keywords::text FROM chunks ORDER BY rowid",
                        (pg_keyword.tsvector_literal(pg_keyword.terms(" ".join(terms))),)),
            [" ".join(terms), "solo"], strict=True):
        want = store._rows("SELECT %s::tsvector::text", (pg_keyword.tsvector_literal(pg_keyword.terms(text)),))[0][0]
        assert stored == want
    m = store.dense_matrix()
    np.testing.assert_array_equal(m.vectors, d.vectors)  # float32, exactly
    text_form = store._rows("SELECT %s::vector = embedding FROM chunks WHERE id = 'c1-0'",
                            (pg_copy.vector_text(d.vectors[:1])[0],))[0][0]
    assert text_form is True
    store.close()


def hnsw_oid(store: postgres.PostgresStore) -> int | None:
    return store._rows("SELECT to_regclass('chunks_embedding_hnsw')::oid")[0][0]


def test_indexing_uses_the_bulk_path_by_default(pg_url, tmp_path, monkeypatch):
    """`Kotae.index` into PostgreSQL: a large first load is written without the HNSW index, which is built once
    at the end (with the settings' m and ef_construction), then the tables are analysed; a small addition
    later keeps the index and inserts into it."""
    from kotae.config import Settings, StoreSettings

    monkeypatch.setattr(postgres, "HNSW_MIN", 5)  # smaller indexes are searched exactly, without one
    for i in range(6):
        (tmp_path / f"note{i}.txt").write_text("\n\n".join(f"Paragraph {j} of note {i} about apples and pears."
                                                           for j in range(4)), encoding="utf-8")
    settings = Settings(store=StoreSettings(hnsw_m=8, hnsw_ef_construction=32, hnsw_rebuild_share=0.5))
    k = Kotae(postgres.PostgresStore(pg_url), FakeEmbedder(), settings)
    report = k.index([str(tmp_path)])
    assert len(report.indexed) == 6 and not report.failed
    store = k.store
    assert isinstance(store, postgres.PostgresStore)
    load = store.last_load
    assert load["chunks_before"] == 0 and load["written"] >= 6 and load["copy"] == "binary"
    assert load["deferred"] and load["hnsw_built"] and load["analyzed"]
    first = hnsw_oid(store)
    assert first is not None
    assert keyword_index(store) is not None  # dropped for the load, built again at its end
    options = store._rows("SELECT reloptions FROM pg_class WHERE relname = 'chunks_embedding_hnsw' "
                          "AND relnamespace = current_schema()::regnamespace")[0][0]
    assert sorted(options) == ["ef_construction=32", "m=8"]
    assert store._rows("SELECT reltuples FROM pg_class WHERE relname = 'chunks' "
                       "AND relnamespace = current_schema()::regnamespace")[0][0] == load["written"]  # analysed
    (tmp_path / "late.txt").write_text("One more paragraph about plums.", encoding="utf-8")
    report = k.index([str(tmp_path / "late.txt")])
    assert len(report.indexed) == 1
    assert not store.last_load["deferred"] and hnsw_oid(store) == first  # kept, inserted into
    hits = k.search("plums", mode="dense", top_k=1).hits
    assert hits[0].chunk.file == "late.txt"
    k.close()


def keyword_index(store: postgres.PostgresStore) -> int | None:
    return store._rows("SELECT to_regclass('chunks_keywords')::oid")[0][0]


def test_a_load_that_stopped_half_way_gets_its_keyword_index_back(pg_url):
    """A large load drops the keyword (GIN) index until its end; a process killed before that leaves it
    missing: keyword search still answers (scanning), and the next write builds it again."""
    dying = postgres.PostgresStore(pg_url)
    dying.bind_model("m")
    dying._load = postgres._Load(0, 0)  # inside a bulk load (as `bulk_load` starts one), never ended: the
    assert dying.write_documents([doc(4, 1)]) == [None]  # process dies before the end of its load
    assert keyword_index(dying) is None
    dying._pool.close()
    store = postgres.PostgresStore(pg_url)  # the next process
    assert [r for r, _ in store.keyword_search(["apple", "w1"], 10, None)]  # found without the index
    assert store.write_documents([doc(2, 2)]) == [None]
    assert keyword_index(store) is not None
    assert len(store.keyword_search(["apple"], 10, None)) == 6
    store.close()


def test_a_small_index_has_no_hnsw_index_until_it_grows(pg_url, monkeypatch):
    monkeypatch.setattr(postgres, "HNSW_MIN", 6)
    store = postgres.PostgresStore(pg_url)
    store.bind_model("m")
    store.write_document(*astuple(doc(4, 1)))
    assert hnsw_oid(store) is None  # searched exactly
    assert [r for r, _ in store.dense_search(doc(4, 1).vectors[2], 1)[0]] == [3]
    store.write_document(*astuple(doc(4, 2)))
    assert hnsw_oid(store) is not None
    store.close()


def astuple(d: DocumentWrite) -> tuple[object, ...]:
    return d.info, d.pages, d.chunks, d.text_hashes, d.vectors, d.keyword_text


class RefusingSharedMemory:
    """A connection whose server cannot give a parallel HNSW build its shared memory segment (as in a
    container with a 64 MB /dev/shm): a CREATE INDEX with parallel workers allowed fails as PostgreSQL does."""

    def __init__(self, conn) -> None:  # type: ignore[no-untyped-def]
        self.conn = conn
        self.builds: list[str] = []  # max_parallel_maintenance_workers at each CREATE INDEX

    def transaction(self):  # type: ignore[no-untyped-def]
        return self.conn.transaction()

    def execute(self, sql, args=None):  # type: ignore[no-untyped-def]
        if sql.startswith("CREATE INDEX"):
            workers = self.conn.execute("SELECT current_setting('max_parallel_maintenance_workers')").fetchone()[0]
            self.builds.append(workers)
            if workers != "0":
                from psycopg import errors

                raise errors.DiskFull('could not resize shared memory segment "/PostgreSQL.1" to 1073741824 bytes: '
                                      "No space left on device")
        return self.conn.execute(sql, args)


def test_the_hnsw_build_runs_in_one_process_where_the_server_refuses_its_shared_memory(pg_url):
    from kotae.store import pg_schema

    store = postgres.PostgresStore(pg_url)
    store.bind_model("m")
    store.write_document(*astuple(doc(4, 1)))
    assert hnsw_oid(store) is None
    with store._pool.connection() as conn:
        refusing = RefusingSharedMemory(conn)
        with conn.transaction():
            pg_schema.build_hnsw(refusing, pg_schema.Hnsw())
        assert refusing.builds == ["2", "0"]  # the server's default first, then the leader alone
        assert conn.execute("SELECT current_setting('max_parallel_maintenance_workers')").fetchone()[0] == "2"
    assert hnsw_oid(store) is not None
    assert [r for r, _ in store.dense_search(doc(4, 1).vectors[2], 1)[0]] == [3]
    store.close()


def test_a_chunk_keeps_its_vector_in_its_row(pg_url):
    """Not moved out of line (TOAST): an exact scan reads the vectors with the rows (bench/pg_build.py)."""
    store = postgres.PostgresStore(pg_url)
    store.bind_model("m")
    store.write_document(*astuple(doc(3, 1, text="x" * 900, dim=384)))
    options = store._rows("SELECT reloptions FROM pg_class WHERE oid = 'chunks'::regclass")[0][0]
    assert "toast_tuple_target=8160" in options
    toast = store._rows("SELECT pg_relation_size(reltoastrelid) FROM pg_class WHERE oid = 'chunks'::regclass")[0][0]
    assert toast == 0
    store.close()


def uses_hnsw(store: postgres.PostgresStore, order: str, q: np.ndarray) -> bool:
    with store._pool.connection() as conn, conn.transaction():
        conn.execute("SET LOCAL enable_seqscan = off")  # a few rows: the planner would rather scan them
        plan = conn.execute(f"EXPLAIN SELECT rowid FROM chunks ORDER BY {order} LIMIT 3", {"q": q}).fetchall()
    return any("chunks_embedding_hnsw" in r[0] for r in plan)


def test_the_hnsw_index_holds_halfvec_and_the_search_scores_with_the_full_vectors(pg_url, monkeypatch):
    """The index is built over the vectors cast to halfvec (store.hnsw_halfvec), the search orders by that
    expression so it uses it, and the hits' similarities are the full vectors' cosines; an index an older kotae
    built over the vectors themselves is used as it is."""
    from kotae.store import pg_schema

    monkeypatch.setattr(postgres, "HNSW_MIN", 5)
    store = postgres.PostgresStore(pg_url)
    store.bind_model("m")
    d = doc(8, 1)
    store.write_document(*astuple(d))
    definition = store._rows("SELECT pg_get_indexdef(to_regclass('chunks_embedding_hnsw'))")[0][0]
    assert "halfvec(8)" in definition and "halfvec_cosine_ops" in definition
    q = d.vectors[5]
    assert uses_hnsw(store, pg_schema.hnsw_order(8, True), q)
    hits, _ = store.dense_search(q, 3)
    assert hits[0][0] == 6  # the sixth chunk, itself
    exact = d.vectors @ q
    assert [s for _, s in hits] == pytest.approx(sorted(exact, reverse=True)[:3], abs=1e-6)
    with store._pool.connection() as conn:  # as an older kotae built it
        conn.execute("DROP INDEX chunks_embedding_hnsw")
        conn.execute("CREATE INDEX chunks_embedding_hnsw ON chunks USING hnsw (embedding vector_cosine_ops)")
    assert uses_hnsw(store, pg_schema.hnsw_order(8, False), q)
    assert not uses_hnsw(store, pg_schema.hnsw_order(8, True), q)
    assert store.dense_search(q, 3)[0] == hits
    store.close()


def test_each_vector_has_one_copy_through_rewrites_removals_and_re_adds(pg_url):
    """The chunks hold the vectors of what is indexed, the cache those of removed passages only: a rewrite keeps
    none of the passages it writes again in the cache, and a passage written again leaves the cache."""
    store = postgres.PostgresStore(pg_url)
    store.bind_model("m")
    first = doc(4, 1)
    assert store.write_documents([first]) == [None]
    # the file changed: chunks 0–2 read the same (same hashes), chunk 3 is new text
    changed = DocumentWrite(first.info.__class__(**{**first.info.__dict__, "sha256": "h2"}), first.pages,
                            first.chunks, [*first.text_hashes[:3], "h1-new"], first.vectors, first.keyword_text)
    assert store.write_documents([changed]) == [None]
    assert counts(store)["embeddings"] == ["h1-3"]  # only the passage that is gone
    store.remove_document("/d/1.txt")
    assert counts(store)["embeddings"] == sorted(["h1-0", "h1-1", "h1-2", "h1-3", "h1-new"])
    # the removed file comes back: its vectors are taken from the cache and leave it
    assert set(store.cached_vectors(first.text_hashes)) == set(first.text_hashes)
    assert store.write_documents([first]) == [None]
    assert counts(store)["embeddings"] == ["h1-new"]
    store.close()
