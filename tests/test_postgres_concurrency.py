"""Many writers on one PostgreSQL index: concurrent indexers over overlapping folders, a reader meanwhile.

Four processes index at once (each file by three of them), then again with two of them forcing
replacement; the result must hold exactly the documents and chunks one serial indexer gives, with no
duplicate and no loss, and a reader polling all along must never see a document half written.
"""
import multiprocessing
import threading

import numpy as np
import psycopg
import pytest

from conftest import FakeEmbedder, new_pg_index
from kotae.config import IndexSettings
from kotae.pipeline import index_paths
from kotae.store import open_store

WORKERS = 4
FILES_PER_FOLDER = 6


@pytest.fixture
def folders(tmp_path):
    root = tmp_path / "docs"
    for f, name in enumerate("abc"):
        (root / name).mkdir(parents=True)
        for i in range(FILES_PER_FOLDER):
            sections = "\n\n".join(
                f"## Section {s}\n" + " ".join(f"word{f}{i}{s}{w} common shared text {name}{i}" for w in range(40))
                for s in range(4))
            (root / name / f"doc{i}.md").write_text(f"# Document {name}{i}\n\n{sections}\n", encoding="utf-8")
    return root


def _indexer(url, paths, force, barrier, results):
    store = open_store(url)
    try:
        barrier.wait(timeout=60)
        report = index_paths(paths, store, FakeEmbedder(), IndexSettings(), force=force)
        results.put((len(report.indexed), len(report.skipped), report.failed))
    finally:
        store.close()


def _run_indexers(url, jobs):
    ctx = multiprocessing.get_context("fork")
    barrier, results = ctx.Barrier(len(jobs)), ctx.Queue()
    procs = [ctx.Process(target=_indexer, args=(url, paths, force, barrier, results)) for paths, force in jobs]
    for p in procs:
        p.start()
    for p in procs:
        p.join(timeout=300)
    assert all(p.exitcode == 0 for p in procs), [p.exitcode for p in procs]
    out = [results.get(timeout=5) for _ in procs]
    assert all(not failed for _, _, failed in out), out
    return out


def _half_written(conn):
    """Documents whose chunk count disagrees with their chunks, and totals out of step (one snapshot)."""
    return conn.execute(
        "SELECT (SELECT count(*) FROM (SELECT d.id FROM documents d LEFT JOIN chunks c ON c.doc_id = d.id "
        "        GROUP BY d.id, d.chunks HAVING d.chunks <> count(c.rowid)) bad), "
        "       (SELECT chunks FROM kotae_stats) - (SELECT count(*) FROM chunks), "
        "       (SELECT keyword_tokens FROM kotae_stats) - (SELECT coalesce(sum(keyword_len), 0) FROM chunks)"
    ).fetchone()


def test_concurrent_indexers_never_duplicate_or_lose_a_chunk(folders, pg_server):
    url = new_pg_index(pg_server)
    open_store(url).close()  # the schema, created once (concurrent creators would also be serialised)
    a, b, c = (str(folders / n) for n in "abc")
    stop, checks, bad = threading.Event(), [0], []

    def reader():
        with psycopg.connect(url, autocommit=True) as conn:
            while not stop.is_set():
                got = _half_written(conn)
                checks[0] += 1
                if got != (0, 0, 0):
                    bad.append(got)

    t = threading.Thread(target=reader)
    t.start()
    try:
        first = _run_indexers(url, [([a, b], False), ([b, c], False), ([c, a], False), ([str(folders)], False)])
        _run_indexers(url, [([a, b], True), ([b, c], False), ([c, a], True), ([str(folders)], False)])
    finally:
        stop.set()
        t.join()
    assert checks[0] > 0 and bad == []
    assert sum(n for n, _, _ in first) >= 3 * FILES_PER_FOLDER  # each file written at least once

    # The reference: one indexer, alone, into an index of its own.
    ref = open_store(new_pg_index(pg_server))
    index_paths([str(folders)], ref, FakeEmbedder(), IndexSettings())
    store = open_store(url)
    try:
        got_docs, want_docs = store.documents(), ref.documents()
        assert len(got_docs) == len(want_docs) == 3 * FILES_PER_FOLDER
        assert [(d.path, d.chunks, d.sha256) for d in got_docs] == [(d.path, d.chunks, d.sha256) for d in want_docs]
        got_ids = sorted(store.chunks([r for r, _ in store.chunk_texts()])[r].id for r, _ in store.chunk_texts())
        want_ids = sorted(ref.chunks([r for r, _ in ref.chunk_texts()])[r].id for r, _ in ref.chunk_texts())
        assert got_ids == want_ids and len(set(got_ids)) == len(got_ids) == sum(d.chunks for d in want_docs)
        with psycopg.connect(url, autocommit=True) as conn:
            assert _half_written(conn) == (0, 0, 0)
            # every chunk's vector is found again by its text hash (the chunks hold them; the cache keeps those of
            # rewritten documents)
            hashes = [h for (h,) in conn.execute("SELECT DISTINCT text_hash FROM chunks").fetchall()]
            assert sorted(store.cached_vectors(hashes)) == sorted(hashes)
            # the term counts BM25 uses equal a recount from the chunks themselves
            kept = dict(conn.execute("SELECT term, chunks FROM keyword_terms").fetchall())
            recount = dict(conn.execute("SELECT u.lexeme, count(*) FROM chunks c, unnest(c.keywords) u "
                                        "GROUP BY 1").fetchall())
            assert kept == recount
            total = np.array(conn.execute("SELECT vector_sum::text FROM kotae_stats").fetchone()[0][1:-1]
                             .split(","), dtype=np.float32)
        assert np.allclose(total, store.dense_matrix().vectors.sum(axis=0), atol=1e-3)
        for q in (["word0000"], ["word1230", "word2511"], ["b3"]):  # the same BM25 scores as the serial index
            # every match, ties in chunk-id order (rows were inserted in another order, so ties may come so)
            ranked = [sorted((-round(x, 9), s.chunks([r])[r].id) for r, x in s.keyword_search(q, 10_000, None))
                      for s in (store, ref)]
            assert ranked[0] == ranked[1] and ranked[0], q
    finally:
        store.close()
        ref.close()


def test_a_second_writer_of_the_same_content_changes_nothing(folders, pg_url):
    store = open_store(pg_url)
    index_paths([str(folders / "a")], store, FakeEmbedder(), IndexSettings())
    g, rows = store.generation(), store.chunk_texts()
    # what a writer that checked before the first one committed would do: write the same document again
    again = index_paths([str(folders / "a")], store, FakeEmbedder(), IndexSettings(), force=True)
    assert len(again.indexed) == FILES_PER_FOLDER
    assert store.generation() == g and store.chunk_texts() == rows  # nothing rewritten, rowids kept
    store.close()
