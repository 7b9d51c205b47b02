"""The PostgreSQL + pgvector store: the Store interface for many processes writing and reading at once.

Each document is written in one transaction holding an advisory lock on its path (a second writer of
the same file waits, then finds it done); unique constraints back the locks up. Dense search runs on an
HNSW index (cosine) in the database; keyword search ranks with FTS5's BM25 over the same analysed terms
as the SQLite store (see pg_keyword), so fusion sees the same ranks.
"""
from __future__ import annotations

import math
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np

from kotae.config import StoreSettings
from kotae.embed.base import model_name
from kotae.errors import IndexMismatch
from kotae.store import pg_copy, pg_schema
from kotae.store import pg_keyword as kw
from kotae.store.base import DenseMatrix, DocumentWrite, Filter, Store, register
from kotae.store.conversations import History
from kotae.store.pg_connect import Connections, redact
from kotae.store.pg_query import exact_search, filter_sql
from kotae.store.pg_write import Totals, apply, array, chunk_keys, remove, uncache
from kotae.store.sqlite_keyword import required
from kotae.types import Chunk, DocumentInfo, PageWords

# The HNSW parameters and the rebuild share are settings (store.hnsw_*, kotae.config): ef_search is at
# least k, and a larger hnsw.ef_search set for the connection (?options=-chnsw.ef_search%3D800) wins.
ITERATIVE_SCAN = (0, 8, 0)  # hnsw.iterative_scan arrived in pgvector 0.8.0
EXACT_MAX = 20_000  # a filter admitting at most this many chunks is searched exactly, never approximately
HNSW_MIN = EXACT_MAX  # … and so is an index of fewer chunks: its HNSW index is built once it has this many
_RETRIES = 5  # a transaction chosen as a deadlock victim is retried (locks are taken in one order anyway)
_DOC_COLS = "id, path, file, kind, sha256, pages, chunks, lang, indexed_at, tags, warnings"
_CHUNK_COLS = ('rowid, id, doc_id, file, page, heading, text, start, "end", lang, ordinal, row_first, row_last, '
               "tokens, ocr")


@dataclass
class _Load:
    """A bulk load in progress: the chunks it started from, how many it must add to defer the HNSW index."""

    before: int
    threshold: int
    written: int = 0
    deferred: bool = False


@dataclass(frozen=True)
class _Plan:
    path: str
    rows: int
    dim: int
    write: Callable[[Any], None]


class PostgresStore(Store):
    searches_vectors = True

    def __init__(self, url: str) -> None:
        self.location = redact(url)
        self._pool = Connections(url)
        with self._pool.connection() as conn:
            pg_schema.migrate(conn)
            # pgvector ≥ 0.8 scans the HNSW graph on until a filter has let k rows through
            self._iterative = pg_schema.pgvector_version(conn) >= ITERATIVE_SCAN
        self._pool.close()  # connections opened before the vector type existed cannot read vectors
        self._pool.registered = True
        self._load: _Load | None = None
        self._has_index = False  # the HNSW index seen (or built) by this process
        self.configure(StoreSettings())
        self.last_load: dict[str, Any] = {}  # what the last bulk load did (tests and bench/postgres.py read it)
        self.keyword_pruning = True  # exact top-k pruning of the keyword search (pg_keyword); off: score every chunk
        self.last_essential: tuple[int, int] | None = None  # (terms scored, terms) of the last pruned search

    def configure(self, settings: StoreSettings) -> None:
        self.hnsw = pg_schema.Hnsw(settings.hnsw_m, settings.hnsw_ef_construction, settings.hnsw_halfvec)
        self.ef_search = settings.hnsw_ef_search
        self.rebuild_share = settings.hnsw_rebuild_share

    @contextmanager
    def bulk_load(self) -> Iterator[None]:
        """Around many writes (kotae index, kotae migrate). Once they add `rebuild_share` of the chunks the
        index held (a first load: from the start), the HNSW index is dropped and built once at the end:
        an order of magnitude faster than inserting into it (bench/postgres.py); dense search scans exactly
        meanwhile. After a large load the tables are analysed."""
        if self._load is not None:  # nested: the outer one finishes
            yield
            return
        before = int(self._rows("SELECT chunks FROM kotae_stats")[0][0])
        self._load = _Load(before, max(1, math.ceil(before * self.rebuild_share)) if before else 0)
        try:
            yield
        finally:
            load, self._load = self._load, None
            t0 = time.perf_counter()
            built = self._index_upkeep() if load.deferred else False
            build_s = time.perf_counter() - t0
            if load.deferred and load.written:
                self._run("ANALYZE chunks, documents, embeddings, keyword_terms")
            self.last_load = {"chunks_before": load.before, "written": load.written, "deferred": load.deferred,
                              "hnsw_built": built, "hnsw_build_s": round(build_s, 3),
                              "analyzed": load.deferred and load.written > 0,
                              "copy": "binary" if pg_copy.BINARY else "text"}

    def _index_upkeep(self) -> bool:
        """Build the keyword index where a bulk load dropped it (also one that stopped half way), and the HNSW
        index once the index holds HNSW_MIN chunks (smaller ones are searched exactly); True when this call
        built the HNSW index."""
        if self._has_index:
            return False
        with self._pool.connection() as conn:
            if conn.execute("SELECT to_regclass('chunks_keywords')").fetchone()[0] is None:
                with conn.transaction():
                    conn.execute("SELECT pg_advisory_xact_lock(%s)", (pg_schema.GLOBAL_LOCK,))
                    conn.execute("SELECT set_config('maintenance_work_mem', %s, true)", (pg_schema.BUILD_MEMORY,))
                    conn.execute("CREATE INDEX IF NOT EXISTS chunks_keywords ON chunks USING gin(keywords)")
            if conn.execute("SELECT to_regclass('chunks_embedding_hnsw')").fetchone()[0] is not None:
                self._has_index = True
                return False
            if conn.execute("SELECT chunks FROM kotae_stats").fetchone()[0] < HNSW_MIN:
                return False
            with conn.transaction():
                conn.execute("SELECT pg_advisory_xact_lock(%s)", (pg_schema.GLOBAL_LOCK,))  # no writer meanwhile
                if conn.execute("SELECT to_regclass('chunks_embedding_hnsw')").fetchone()[0] is not None:
                    return False  # another process built it while this one waited
                pg_schema.build_hnsw(conn, self.hnsw)
            self._has_index = True
            return True

    def _defer_index(self, adding: int) -> bool:
        """In a bulk load: whether writes skip the HNSW index (dropping it once the load is large enough)."""
        load = self._load
        if load is None:
            return False
        if not load.deferred and load.written + adding >= load.threshold:
            with self._pool.connection() as conn, conn.transaction():
                conn.execute("SELECT pg_advisory_xact_lock(%s)", (pg_schema.GLOBAL_LOCK,))  # no writer meanwhile
                conn.execute("DROP INDEX IF EXISTS chunks_embedding_hnsw")
                # the keyword index too: built once at the end, 0.71x the rows' time at 100k (pg_build_3.md)
                conn.execute("DROP INDEX IF EXISTS chunks_keywords")
            load.deferred, self._has_index = True, False
        return load.deferred

    def _rows(self, sql: str, args: Any = (), binary: bool = False) -> list[tuple[Any, ...]]:
        with self._pool.connection() as conn:
            return conn.execute(sql, args, binary=binary).fetchall()

    def _run(self, sql: str, args: Any = ()) -> None:
        with self._pool.connection() as conn:
            conn.execute(sql, args)

    # --- metadata -------------------------------------------------------------------------------
    def meta(self, key: str) -> str | None:
        rows = self._rows("SELECT value FROM kotae_meta WHERE key = %s", (key,))
        return rows[0][0] if rows else None

    def set_meta(self, key: str, value: str) -> None:
        self._run("INSERT INTO kotae_meta VALUES (%s, %s) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                  (key, value))

    def bind_model(self, model_id: str) -> None:
        found = self.meta("model")
        if found is None:  # a new index (only then a write: a read replica binds too)
            self._run("INSERT INTO kotae_meta VALUES ('model', %s) ON CONFLICT DO NOTHING", (model_id,))
            found = self.meta("model")
        if found != model_id:
            name, was = model_name(model_id), model_name(found or "?")
            raise IndexMismatch(
                f"the index in {self.location} was built with {found}, not {model_id}; re-embed it with: "
                f"kotae --database-url {self.location} --model {name} reembed (or pass --model {was})"
            )

    def generation(self) -> int:
        return int(self._rows("SELECT generation FROM kotae_stats")[0][0])

    def chunk_texts(self) -> list[tuple[int, str]]:
        return [(int(r), t) for r, t in self._rows("SELECT rowid, text FROM chunks ORDER BY rowid")]

    def replace_embeddings(self, model_id, rowids, text_hashes, vectors) -> None:  # type: ignore[no-untyped-def]
        vecs = np.ascontiguousarray(vectors, dtype=np.float32)
        with self._pool.connection() as conn, conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (pg_schema.GLOBAL_LOCK,))  # no writer meanwhile
            conn.execute("DROP INDEX IF EXISTS chunks_embedding_hnsw")
            self._has_index = False
            conn.execute("ALTER TABLE chunks ALTER COLUMN embedding TYPE vector")  # any dimension for now
            conn.execute("DELETE FROM embeddings")  # the old model's vectors; the new ones are in the chunks
            with conn.cursor() as cur:
                cur.executemany("UPDATE chunks SET text_hash = %s, embedding = %s WHERE rowid = %s",
                                [(h, vecs[i], int(r)) for i, (r, h) in enumerate(zip(rowids, text_hashes, strict=True))])
            conn.execute("UPDATE documents d SET vector_sum = s.v FROM "
                         "(SELECT doc_id, sum(embedding) AS v FROM chunks GROUP BY doc_id) s WHERE s.doc_id = d.id")
            conn.execute("UPDATE kotae_stats SET vector_sum = (SELECT sum(embedding) FROM chunks), "
                         "generation = generation + 1")
            pg_schema.set_dimension(conn, vecs.shape[1], None)
            conn.execute("INSERT INTO kotae_meta VALUES ('model', %s) "
                         "ON CONFLICT (key) DO UPDATE SET value = excluded.value", (model_id,))
            conn.execute("DELETE FROM kotae_meta WHERE key = 'gate'")  # thresholds belong to the old model
        self._index_upkeep()

    # --- documents ------------------------------------------------------------------------------
    @staticmethod
    def _doc(row: tuple[Any, ...]) -> DocumentInfo:
        id_, path, file, kind, sha, pages, chunks, lang, at, tags, warnings = row
        return DocumentInfo(id_, path, file, kind, sha, pages, chunks, lang, at, tags=tuple(tags),
                            warnings=tuple(warnings))

    def document(self, path: str) -> DocumentInfo | None:
        rows = self._rows(f"SELECT {_DOC_COLS} FROM documents WHERE path = %s OR id = %s", (path, path))
        return self._doc(rows[0]) if rows else None

    def documents(self) -> list[DocumentInfo]:
        return [self._doc(r) for r in self._rows(f'SELECT {_DOC_COLS} FROM documents ORDER BY path COLLATE "C"')]

    def write_document(self, info, pages, chunks, text_hashes, vectors, keyword_text,  # type: ignore[no-untyped-def]
                       page_words=()) -> None:
        error = self.write_documents([DocumentWrite(info, pages, chunks, text_hashes, vectors, keyword_text,
                                                    page_words)])[0]
        if error is not None:
            raise error

    def write_documents(self, docs: Sequence[DocumentWrite]) -> list[Exception | None]:
        """One transaction for the batch, a savepoint per document: a document that fails is rolled back
        alone (nothing of it stays) and the others commit together, one commit instead of one each."""
        errors: list[Exception | None] = [None] * len(docs)
        plans: list[Any] = []
        for i, d in enumerate(docs):
            plan = None
            try:
                plan = self._plan(d)
            except Exception as e:  # noqa: BLE001 - one document fails alone
                errors[i] = e
            plans.append(plan)
        dims = {p.dim for p in plans if p is not None and p.dim}
        self._defer_index(sum(p.rows for p in plans if p is not None))
        for dim in sorted(dims):
            with self._pool.connection() as conn:
                try:
                    pg_schema.ensure_dimension(conn, dim, None)
                except Exception as e:  # noqa: BLE001 - the documents of another dimension fail
                    for i, p in enumerate(plans):
                        if p is not None and p.dim == dim:
                            errors[i], plans[i] = e, None
        from psycopg import errors as pg_errors

        for attempt in range(_RETRIES):
            failed = list(errors)
            try:
                with self._pool.connection() as conn, conn.transaction():
                    conn.execute("SELECT pg_advisory_xact_lock_shared(%s)", (pg_schema.GLOBAL_LOCK,))
                    for i, plan in enumerate(plans):
                        if plan is None:
                            continue
                        try:
                            with conn.transaction():  # a savepoint: this document alone, or nothing of it
                                conn.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))",
                                             ("kotae:" + plan.path,))
                                plan.write(conn)
                        except (pg_errors.DeadlockDetected, pg_errors.SerializationFailure):
                            raise
                        except Exception as e:  # noqa: BLE001 - one document fails alone
                            failed[i] = e
                break
            except (pg_errors.DeadlockDetected, pg_errors.SerializationFailure):
                if attempt == _RETRIES - 1:
                    raise
                time.sleep(0.05 * (attempt + 1))
        if self._load is not None:
            self._load.written += sum(p.rows for i, p in enumerate(plans) if p is not None and failed[i] is None)
        elif any(e is None for e in failed):
            self._index_upkeep()
        return failed

    def _plan(self, d: DocumentWrite) -> _Plan:
        """A document's rows encoded for COPY (the work before its transaction)."""
        vecs = np.ascontiguousarray(d.vectors, dtype=np.float32)
        if len(d.chunks) != len(vecs) or len(d.text_hashes) != len(vecs) or len(d.keyword_text) != len(vecs):
            raise ValueError(f"{d.info.path}: {len(d.chunks)} chunks, {len(d.text_hashes)} hashes, "
                             f"{len(d.keyword_text)} keyword texts but {len(vecs)} vectors")
        found = [kw.terms(k) for k in d.keyword_text]
        binary = pg_copy.BINARY
        rows = pg_copy.chunk_rows(d.chunks, d.text_hashes, found, vecs, binary)
        vector_sum = vecs.sum(axis=0, dtype=np.float64).astype(np.float32) if len(rows) else None
        added = Totals(len(rows), sum(len(t) for t in found), Counter(x for t in found for x in set(t)), vector_sum)
        info, chunks, text_hashes = d.info, d.chunks, d.text_hashes

        from psycopg.types.json import Jsonb

        def write(conn: Any) -> None:
            # the document as stored, and whether the cache holds any vector (it is empty in a first load)
            old = conn.execute("SELECT d.sha256, d.tags, EXISTS (SELECT 1 FROM embeddings) FROM (SELECT 1) AS one "
                               "LEFT JOIN documents d ON d.path = %s", (info.path,)).fetchone()
            same = old[0] is not None and old[0] == info.sha256 and tuple(old[1]) == tuple(info.tags)
            if same and chunk_keys(conn, info.id) == [(c.id, h) for c, h in zip(chunks, text_hashes, strict=True)]:
                return  # another writer stored exactly this meanwhile: nothing changes
            removed = remove(conn, info.path, keep=list(text_hashes))
            conn.execute(
                f"INSERT INTO documents({_DOC_COLS}, vector_sum) VALUES (%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s)",
                (info.id, info.path, info.file, info.kind, info.sha256, info.pages, info.chunks, info.lang,
                 info.indexed_at, list(info.tags), list(info.warnings), vector_sum))
            conn.execute("INSERT INTO pages SELECT %s, n, t FROM unnest(%s::text[]) WITH ORDINALITY AS p(t, n)",
                         (info.id, list(d.pages)))
            pg_copy.copy_chunks(conn, rows, binary)
            if old[2]:  # what the cache held of these passages is in the chunks now
                uncache(conn, list(text_hashes))
            if d.page_words:
                with conn.cursor() as cur:
                    cur.executemany("INSERT INTO page_words VALUES (%s, %s, %s)",
                                    [(info.id, pw.page, Jsonb(pw.to_dict())) for pw in d.page_words])
            apply(conn, added, removed)

        return _Plan(info.path, len(rows), vecs.shape[1] if len(rows) else 0, write)

    def remove_document(self, path_or_id: str) -> DocumentInfo | None:
        info = self.document(path_or_id)
        if info is None:
            return None
        self._write(info.path, lambda conn: apply(conn, None, remove(conn, info.path)))
        return info

    def _write(self, path: str, body: Any) -> None:
        """Run `body(conn)` in one transaction holding the writers' shared lock and the path's lock."""
        from psycopg import errors

        for attempt in range(_RETRIES):
            try:
                with self._pool.connection() as conn, conn.transaction():
                    conn.execute("SELECT pg_advisory_xact_lock_shared(%s)", (pg_schema.GLOBAL_LOCK,))
                    conn.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", ("kotae:" + path,))
                    body(conn)
                return
            except (errors.DeadlockDetected, errors.SerializationFailure):
                if attempt == _RETRIES - 1:
                    raise
                time.sleep(0.05 * (attempt + 1))

    # --- search support -------------------------------------------------------------------------
    def cached_vectors(self, text_hashes: Sequence[str]) -> dict[str, np.ndarray]:
        """From the stored chunks (their text hash is indexed) and from the cache of removed documents' vectors
        (`pg_write.remove` keeps them): a second copy of every vector cost a fifth of a bulk load."""
        hashes = list(dict.fromkeys(text_hashes))
        rows = self._rows("SELECT DISTINCT ON (text_hash) text_hash, embedding FROM chunks WHERE text_hash = ANY(%s) "
                          "UNION ALL SELECT text_hash, vector FROM embeddings WHERE text_hash = ANY(%s)",
                          (hashes, hashes), binary=True)
        return {h: array(v) for h, v in reversed(rows)}

    def dense_matrix(self) -> DenseMatrix:
        rows = self._rows("SELECT rowid, doc_id, embedding FROM chunks ORDER BY rowid", binary=True)
        if not rows:
            return DenseMatrix(np.zeros(0, np.int64), np.zeros((0, 0), np.float32), np.zeros(0, object))
        return DenseMatrix(np.array([r[0] for r in rows], dtype=np.int64),
                           np.stack([array(r[2]) for r in rows]),
                           np.array([r[1] for r in rows], dtype=object))

    def exact_vectors(self, rowids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(rowids found, their float32 vectors): the dense candidates' own vectors (hubness)."""
        rows = self._rows("SELECT rowid, embedding FROM chunks WHERE rowid = ANY(%s)",
                          ([int(r) for r in rowids],), binary=True)
        if not rows:
            return np.zeros(0, np.int64), np.zeros((0, 0), np.float32)
        return np.array([r[0] for r in rows], np.int64), np.stack([array(r[1]) for r in rows])

    def dense_search(self, query: np.ndarray, k: int,
                     doc_ids: set[str] | None = None) -> tuple[list[tuple[int, float]], float]:
        """HNSW top-k (exact under a narrow filter), and the margin: top similarity minus the mean over the
        searched chunks, which is query · (sum of their vectors) / count, the sums kept by every write."""
        q = np.ascontiguousarray(query, dtype=np.float32)
        if doc_ids is not None and not doc_ids:
            return [], 0.0
        with self._pool.connection() as conn, conn.transaction():
            # one statement: the totals, the connection's ef_search, and whether the HNSW index (by this or
            # another process, of this or an older kotae) holds halfvec (an expression) or the vectors
            n_all, total, asked, half, dim = conn.execute(
                "SELECT chunks, vector_sum, current_setting('hnsw.ef_search', true), (SELECT indexprs IS NOT NULL "
                "FROM pg_index WHERE indexrelid = to_regclass('chunks_embedding_hnsw')), "
                "(SELECT value FROM kotae_meta WHERE key = 'dim') FROM kotae_stats").fetchone()
            n = n_all
            if doc_ids is not None:
                n, total = conn.execute("SELECT coalesce(sum(chunks), 0), sum(vector_sum) FROM documents "
                                        "WHERE id = ANY(%s)", (sorted(doc_ids),)).fetchone()
            if not n or total is None:
                return [], 0.0
            args = {"q": q, "k": k, "docs": sorted(doc_ids or ())}
            if doc_ids is not None and n <= EXACT_MAX:
                rows = exact_search(conn, args)
            else:
                ef = min(1000, max(k, self.ef_search, int(asked or 0), math.ceil(k * n_all / n)))
                conn.execute("SELECT set_config('hnsw.ef_search', %s, true)", (str(ef),))
                where = "" if doc_ids is None else "WHERE doc_id = ANY(%(docs)s)"
                if doc_ids is not None and self._iterative:  # rows come nearly in order: sorted below
                    conn.execute("SELECT set_config('hnsw.iterative_scan', 'relaxed_order', true)")
                # the full vectors' distance, named once so computed once a row; ordered by the index's own
                # expression (with halfvec the candidates come in its order, then sorted by the full distance)
                order = pg_schema.hnsw_order(int(dim), True) if half else "d"
                rows = conn.execute(f"SELECT rowid, embedding <=> %(q)s AS d FROM chunks {where} "
                                    f"ORDER BY {order} LIMIT %(k)s", args).fetchall()
                rows.sort(key=lambda r: (-(1.0 - r[1]), r[0]))
                if doc_ids is not None and len(rows) < min(k, n):
                    rows = exact_search(conn, args)  # the filter left too few of the approximate candidates
        hits = [(int(r), 1.0 - float(d)) for r, d in rows]  # cosine similarity
        mean = float(q @ array(total)) / n
        return hits, (hits[0][1] - mean) if hits else 0.0

    def keyword_search(self, tokens, limit, doc_ids) -> list[tuple[int, float]]:  # type: ignore[no-untyped-def]
        terms = kw.query_terms(tokens)
        if not terms or (doc_ids is not None and not doc_ids):
            return []
        with self._pool.connection() as conn:
            n, total = conn.execute("SELECT chunks, keyword_tokens FROM kotae_stats").fetchone()
            if not n:
                return []
            df = dict(conn.execute("SELECT term, chunks FROM keyword_terms WHERE term = ANY(%s)", (terms,)).fetchall())
            idf = kw.idf(n, df, terms)
            args = {"terms": terms, "idf": idf, "tsquery": kw.tsquery_literal(terms),
                    "k1": kw.K1, "b": kw.B, "avgdl": (total / n) or 1.0, "limit": limit,
                    "docs": sorted(doc_ids or ())}
            sql = kw.bm25_sql(doc_ids is not None)
            self.last_essential = None
            if self.keyword_pruning:
                args["tsquery"] = self._pruned_tsquery(conn, sql, args, df)
            rows = conn.execute(sql, args).fetchall()
        return [(int(r), float(s)) for r, s in rows]

    def _pruned_tsquery(self, conn, sql: str, args: dict[str, Any], df: dict[str, int]) -> str:  # type: ignore[no-untyped-def]
        """The tsquery of the terms a top-k chunk must hold (pg_keyword's exact pruning): the k-th score among the
        chunks holding the rarest terms bounds out the commonest terms; all the terms where it cannot."""
        terms, idf, limit = args["terms"], args["idf"], args["limit"]
        rare = kw.rare_terms(terms, df, limit)
        if rare is None:
            return str(args["tsquery"])
        first = conn.execute(sql, {**args, "tsquery": kw.tsquery_literal(rare)}).fetchall()
        if not first or len(first) < limit:
            return str(args["tsquery"])
        need = sorted(required([kw.bound(x) for x in idf], float(first[-1][1])))
        if len(need) == len(terms):
            return str(args["tsquery"])
        self.last_essential = (len(need), len(terms))
        return kw.tsquery_literal([terms[i] for i in need])

    def document_frequencies(self, tokens: Sequence[str]) -> tuple[dict[str, int], int]:
        df = {t: 0 for t in tokens}
        with self._pool.connection() as conn:
            n = conn.execute("SELECT chunks FROM kotae_stats").fetchone()[0]
            for t, c in conn.execute("SELECT term, chunks FROM keyword_terms WHERE term = ANY(%s)", (list(df),)):
                df[t] = int(c)
        return df, int(n)

    def chunks(self, rowids: Sequence[int]) -> dict[int, Chunk]:
        out: dict[int, Chunk] = {}
        for r in self._rows(f"SELECT {_CHUNK_COLS} FROM chunks WHERE rowid = ANY(%s)", ([int(x) for x in rowids],)):
            rows = (r[11], r[12]) if r[11] is not None else None
            out[r[0]] = Chunk(id=r[1], doc_id=r[2], file=r[3], page=r[4], heading=tuple(r[5]), text=r[6],
                              start=r[7], end=r[8], lang=r[9], ordinal=r[10], rows=rows, tokens=r[13], ocr=r[14])
        return out

    def chunk_languages(self) -> dict[int, str]:
        return {int(r): str(la) for r, la in self._rows("SELECT rowid, lang FROM chunks")}

    def rowids_of(self, chunk_ids: Sequence[str]) -> dict[str, int]:
        return {cid: int(r) for r, cid in self._rows("SELECT rowid, id FROM chunks WHERE id = ANY(%s)",
                                                     (list(chunk_ids),))}

    def page_text(self, doc_id: str, page: int) -> str | None:
        rows = self._rows("SELECT text FROM pages WHERE doc_id = %s AND number = %s", (doc_id, page))
        return rows[0][0] if rows else None

    def page_words(self, doc_id: str, page: int) -> PageWords | None:
        rows = self._rows("SELECT words FROM page_words WHERE doc_id = %s AND page = %s", (doc_id, page))
        return PageWords.from_dict(rows[0][0]) if rows else None

    def matching_documents(self, flt: Filter) -> set[str]:
        where, args = filter_sql(flt)
        return {r[0] for r in self._rows(f"SELECT id FROM documents WHERE {where}", args)}

    def history(self) -> History:
        return History(self._pool.connection, self._transaction, marker="%s")

    @contextmanager
    def _transaction(self) -> Iterator[Any]:
        with self._pool.connection() as conn, conn.transaction():
            yield conn

    @property
    def address(self) -> str:
        return self._pool.url

    def close(self) -> None:
        self._pool.close()

    def drop(self) -> None:
        """Delete the index's schema (the first on the URL's search path) with every table in it; never
        `public`, which holds pgvector and may hold other things."""
        with self._pool.connection() as conn:
            pg_schema.drop(conn)
        self._pool.close()


@register("postgresql")
@register("postgres")
def _open(location: str) -> Store:
    return PostgresStore(location)
