"""Dense and hybrid search on the SQLite store at up to 1M chunks: the memory-mapped int8 vector file (every
row scanned, the best scored exactly) against exact float search.

    nice -n 10 python bench/dense_1m.py [--sizes 100000,1000000] [--data ../shared/data] [--queries 100]

Corpus (built cheaply, nothing embedded per chunk): chunk texts are three sentences drawn from the shared
corpora (SciFact abstracts, SQuAD 2.0 and JSQuAD paragraphs), analysed once per sentence (tokens and synonym
group terms, as `kotae index` writes them; before 2026-12-03 without the group terms, so questions searched by
the older phrase expansion), written through
`Store.write_document` in documents of 1,000 chunks. Chunk vectors are clustered around real e5-small
passage embeddings of 1,500 of those sentences: centre + isotropic noise of norm 0.5, normalised (cosine
~0.9 to its centre, so every query has hundreds of close, nearly tied neighbours: a hard case for a
quantised index). Queries are real questions from SQuAD 2.0 and JSQuAD embedded with e5-small (the
embedding time is left out: it does not depend on the index size). Exact search is numpy over the float
matrix the store held in memory before (`dense_matrix()`, whose load time is the old cold cost).

Reported per size: ingest chunks/s; vector-file build (first search after a write) and open (a new process)
times; the file's size and the part of it resident after the searches; recall@10 and recall@50 of the
search's 50 candidates against exact search, unfiltered and with a filter admitting ~10 % of the documents;
p50/p95 of dense, keyword (FTS5) and hybrid retrieval, and of filtered hybrid.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import machine, write
from dense_vectors import mixtures, real_vectors
from postgres import Precomputed, ingest

from kotae.chunking import split_sentences
from kotae.embed import get_embedder
from kotae.eval.metrics import percentile
from kotae.search import Searcher
from kotae.search import dense as dense_mod
from kotae.search.analyze import analyze
from kotae.search.dense import QuantizedIndex
from kotae.search.synonyms import bundled, with_group_terms
from kotae.store import open_store
from kotae.store.base import Filter
from kotae.store.sqlite import DB_NAME
from kotae.store.sqlite_vectors import VECTOR_FILE
from kotae.types import Chunk, DocumentInfo

CENTRES, NOISE, POOL = 1500, 0.5, 6_000


def corpus_sentences(data: str, limit: int, seed: int) -> list[str]:
    out = []
    for name in ("scifact", "squad2-dev-half", "jsquad-valid"):
        with open(os.path.join(data, name, "corpus.jsonl"), encoding="utf-8") as f:
            for line in f:
                text = json.loads(line)["text"]
                out += [text[a:b] for a, b in split_sentences(text) if 20 < b - a < 400]
    random.Random(seed).shuffle(out)
    return out[:limit]


def questions(data: str, n: int) -> list[str]:
    out = []
    for name in ("squad2-dev-half", "jsquad-valid"):
        with open(os.path.join(data, name, "queries.jsonl"), encoding="utf-8") as f:
            out += [json.loads(line)["text"] for _, line in zip(range(n // 2), f, strict=False)]
    return out


def clustered(centres: np.ndarray, n: int, seed: int):  # type: ignore[no-untyped-def]
    """The hard case: centre + isotropic noise of norm NOISE, normalised, in blocks of 1,000."""
    nprng = np.random.default_rng(seed)
    dim = centres.shape[1]
    for d in range(0, n, 1000):
        k = min(1000, n - d)
        noise = nprng.standard_normal((k, dim)).astype(np.float32) * (NOISE / np.sqrt(dim))
        v = centres[nprng.integers(0, len(centres), k)] + noise
        yield v / np.linalg.norm(v, axis=1, keepdims=True)


def documents(n: int, pool: list[str], analysed: dict[str, str], vectors, seed: int):  # type: ignore[no-untyped-def]
    """write_document arguments, one document of 1,000 chunks at a time (the corpus never sits in memory);
    `vectors` yields the chunk vectors in blocks of 1,000."""
    rng = random.Random(seed)
    blocks = iter(vectors)
    for d in range(0, n, 1000):
        k = min(1000, n - d)
        picks = [[rng.choice(pool) for _ in range(3)] for _ in range(k)]
        texts = [" ".join(p) for p in picks]
        keyword = [" ".join(analysed[s] for s in p) for p in picks]
        info = DocumentInfo(f"syn{d:07d}", f"/synthetic/{d}.txt", f"synthetic-{d}.txt", "text", "x", 1, k, "mixed",
                            "2026-01-01T00:00:00+00:00")
        chunks = [Chunk(f"s{d + i}", info.id, info.file, 1, (), t, 0, len(t), "mixed", i) for i, t in enumerate(texts)]
        yield (info, ["synthetic"], chunks, [f"h{d + i}" for i in range(k)], next(blocks), keyword)


def resident_mb(path: str) -> float:
    """How much of the mapped file is resident in this process (from /proc/self/smaps)."""
    total, inside = 0, False
    with open("/proc/self/smaps") as f:
        for line in f:
            if line[0] in "0123456789abcdef" and "-" in line.split()[0]:
                inside = line.rstrip().endswith(path)
            elif inside and line.startswith("Rss:"):
                total += int(line.split()[1])
    return round(total / 1024, 1)


def timed(searcher: Searcher, qs: list[str], mode: str, flt: Filter | None = None) -> dict[str, float]:
    total, dense, kw, cpu = [], [], [], []
    for q in qs:
        c0 = time.process_time()
        t = searcher.search(q, mode=mode, top_k=10, flt=flt).timings_ms
        cpu.append((time.process_time() - c0) * 1000)
        total.append(t["search"])  # the query embedding is already left out
        dense.append(t["dense"])
        kw.append(t["keyword"])
    return {"p50_ms": round(percentile(total, 50), 1), "p95_ms": round(percentile(total, 95), 1),
            "dense_p50_ms": round(percentile(dense, 50), 1), "keyword_p50_ms": round(percentile(kw, 50), 1),
            "cpu_p50_ms": round(percentile(cpu, 50), 1), "cpu_p95_ms": round(percentile(cpu, 95), 1)}


def recall(index: QuantizedIndex, exact: np.ndarray, rowids: np.ndarray, doc_ids: np.ndarray, qvecs: np.ndarray,
           docs: set[str] | None, k: int) -> dict[str, float]:
    mask = None if docs is None else np.isin(doc_ids, sorted(docs))
    hit10 = hit50 = top1 = 0
    times = []
    for q in qvecs:
        sims = exact @ q
        if mask is not None:
            sims = np.where(mask, sims, -np.inf)
        want = rowids[np.argsort(-sims, kind="stable")[:k]]
        t0 = time.perf_counter()
        got = [r for r, _ in index.search(q, k, docs)]
        times.append((time.perf_counter() - t0) * 1000)
        hit10 += len(set(want[:10].tolist()) & set(got[:10]))
        hit50 += len(set(want.tolist()) & set(got))
        top1 += int(got[0] == want[0])
    n = len(qvecs)
    return {"recall_at_10": round(hit10 / (10 * n), 4), f"recall_at_{k}": round(hit50 / (k * n), 4),
            "top1_agreement": round(top1 / n, 4), "dense_p50_ms": round(percentile(times, 50), 1),
            "dense_p95_ms": round(percentile(times, 95), 1)}


def run_size(n: int, where: str, pool: list[str], analysed: dict[str, str], vectors,  # type: ignore[no-untyped-def]
             qtexts: list[str], embedder: Precomputed) -> dict:  # type: ignore[type-arg]
    marker = os.path.join(where, "bench-built.json")
    if os.path.exists(marker):  # --keep: built by an earlier run with the same settings
        with open(marker) as f:
            r = json.load(f)
    else:
        store = open_store(where)
        store.bind_model(embedder.model_id)
        t0 = time.perf_counter()
        ingest(store, documents(n, pool, analysed, vectors, n))  # type: ignore[arg-type]
        ingest_s = time.perf_counter() - t0
        store.set_meta("synonym_terms", "1")  # questions search by group terms, as on any new index
        store.close()
        r = {"chunks": n, "ingest_chunks_per_s": round(n / ingest_s)}
        with open(marker, "w") as f:
            json.dump(r, f)
    vf_path = os.path.join(where, VECTOR_FILE)
    if os.path.exists(vf_path):
        os.unlink(vf_path)
    store = open_store(where)
    searcher = Searcher(store, embedder)
    t0 = time.perf_counter()
    searcher.dense_index()
    r["vector_file_build_s"] = round(time.perf_counter() - t0, 2)
    store.close()
    store = open_store(where)  # as a new process: the file exists
    searcher = Searcher(store, embedder)
    t0 = time.perf_counter()
    searcher.dense_index()
    r["open_with_file_ms"] = round((time.perf_counter() - t0) * 1000, 1)
    searcher.search(qtexts[0], top_k=10)  # warms the analyser and SQLite's page cache
    r["vector_file_mb"] = round(os.path.getsize(vf_path) / 2**20, 1)
    r["sqlite_mb"] = round(sum(os.path.getsize(os.path.join(where, f)) for f in os.listdir(where)
                               if f.startswith(DB_NAME)) / 2**20, 1)
    every_tenth = Filter(file="synthetic-*0000.txt") if n >= 100_000 else Filter(file="synthetic-*000.txt")
    r["latency"] = {m: timed(searcher, qtexts, m) for m in ("dense", "keyword", "hybrid")}
    r["latency"]["hybrid_filtered"] = timed(searcher, qtexts, "hybrid", every_tenth)
    r["filtered_docs"] = len(store.matching_documents(every_tenth))
    r["vector_file_resident_mb"] = resident_mb(vf_path)
    t0 = time.perf_counter()
    m = store.dense_matrix()  # the old eager load, and exact search's matrix
    r["dense_matrix_load_s"] = round(time.perf_counter() - t0, 2)
    r["dense_matrix_mb"] = round(m.vectors.nbytes / 2**20, 1)
    index = searcher.dense_index()
    assert isinstance(index, QuantizedIndex)
    qvecs = np.stack([embedder.vectors[q] for q in qtexts])
    k = 50  # the fusion candidates (SearchSettings.candidates)
    docs = store.matching_documents(every_tenth)
    r["recall"] = {"all": recall(index, m.vectors, m.rowids, m.doc_ids, qvecs, None, k),
                   "filtered": recall(index, m.vectors, m.rowids, m.doc_ids, qvecs, docs, k)}
    t0 = time.perf_counter()
    for q in qvecs:
        np.argpartition(-(m.vectors @ q), k)[:k]
    r["exact_float_dense_ms_per_query"] = round((time.perf_counter() - t0) * 1000 / len(qvecs), 1)
    store.close()
    return r


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="100000,1000000")
    ap.add_argument("--data", default=os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                                   "..", "shared", "data"))
    ap.add_argument("--queries", type=int, default=100)
    ap.add_argument("--tmp", default=None, help="where the indexes are built (deleted afterwards)")
    ap.add_argument("--keep", default=None, help="build the indexes here and keep them for the next run")
    ap.add_argument("--vectors", choices=("mixture", "clustered"), default="mixture",
                    help="mixture: mixtures of real e5 vectors (bench/dense_vectors.py); clustered: the hard case")
    args = ap.parse_args()
    pool = corpus_sentences(args.data, POOL, 0)
    t0 = time.perf_counter()
    # each sentence's keyword text as `kotae index` writes it: its tokens and its synonym group terms
    analysed = {p: with_group_terms(" ".join(analyze(p)), bundled()) for p in pool}
    print(f"analysed {len(pool)} sentences in {time.perf_counter() - t0:.0f} s", flush=True)
    if args.vectors == "mixture":
        real, qvecs, texts = real_vectors(args.data)
        qtexts = texts[: args.queries]
        embedder = Precomputed(dict(zip(qtexts, qvecs[: args.queries], strict=True)))

        def vectors(n: int):  # type: ignore[no-untyped-def]
            return mixtures(real, n, seed=n, block=1000)
    else:
        e5 = get_embedder("e5-small")
        centres = e5.passages(pool[:CENTRES]).astype(np.float32)
        qtexts = questions(args.data, args.queries)
        embedder = Precomputed({q: e5.query(q) for q in qtexts})

        def vectors(n: int):  # type: ignore[no-untyped-def]
            return clustered(centres, n, n)
    results = {}
    with tempfile.TemporaryDirectory(prefix="kotae-dense1m-", dir=args.tmp) as tmp:
        root = args.keep or tmp
        for n in (int(x) for x in args.sizes.split(",")):
            where = os.path.join(root, f"sqlite-{args.vectors}-{n}")
            results[str(n)] = run_size(n, where, pool, analysed, vectors(n), qtexts, embedder)
            print(n, results[str(n)], flush=True)
            save(args, len(pool), results)
            if not args.keep:  # keep the disk free for the next size
                shutil.rmtree(where, ignore_errors=True)
    return 0


def save(args: argparse.Namespace, pool: int, results: dict) -> None:  # type: ignore[type-arg]
    payload = {"settings": {**vars(args), "centres": CENTRES, "noise": NOISE, "pool": pool,
                            "rescore_per_k": dense_mod.RESCORE_PER_K, "rescore_min": dense_mod.RESCORE_MIN},
               "machine": {**machine(), "load_average_at_end": [round(x, 2) for x in os.getloadavg()]},
               "results": results}
    write("dense_1m", payload, markdown(payload))


def markdown(p: dict) -> str:  # type: ignore[type-arg]
    s, mach = p["settings"], p["machine"]
    lines = [(f"SQLite dense search over the memory-mapped vector file (int8 scan of every row, exact float "
             f"rescoring). Machine: {mach['cpu']}, {mach['cores']} cores, load average {mach['loadavg_1_5_15']} at "
             f"start, {mach['load_average_at_end']} at end. Synthetic corpus: sentences of SciFact/SQuAD 2.0/"
             f"JSQuAD ({s['pool']:,}), vectors clustered around {s['centres']:,} real e5-small embeddings (noise "
             f"{s['noise']}); {s['queries']} real questions (SQuAD 2.0 + JSQuAD), e5-small query vectors; latency "
             f"excludes the query embedding. Candidates: the int8 scan's best max({s['rescore_per_k']}·k, "
             f"{s['rescore_min']}) scored exactly in float; k = 50 (the fusion candidates)."), "",
             ("| chunks | recall@10 | recall@50 | top-1 same | filtered recall@10 | dense p50 / p95 | keyword p50 | "
             "hybrid p50 / p95 | filtered hybrid p50 / p95 | exact float dense |"), "|---|---|---|---|---|---|---|---|---|---|"]
    for n, r in p["results"].items():
        a, f, lat = r["recall"]["all"], r["recall"]["filtered"], r["latency"]
        lines.append(f"| {int(n):,} | {a['recall_at_10']:.4f} | {a['recall_at_50']:.4f} | {a['top1_agreement']:.2f} | "
                     f"{f['recall_at_10']:.4f} | {a['dense_p50_ms']} / {a['dense_p95_ms']} | "
                     f"{lat['keyword']['keyword_p50_ms']} | {lat['hybrid']['p50_ms']} / {lat['hybrid']['p95_ms']} | "
                     f"{lat['hybrid_filtered']['p50_ms']} / {lat['hybrid_filtered']['p95_ms']} | "
                     f"{r['exact_float_dense_ms_per_query']} ms |")
    lines += ["", ("| chunks | ingest chunks/s | SQLite MB | vector file MB | resident after searches MB | float matrix MB "
              "(before) | file build s | open, file present ms | old eager load s |"), "|---|---|---|---|---|---|---|---|---|"]
    for n, r in p["results"].items():
        lines.append(f"| {int(n):,} | {r['ingest_chunks_per_s']:,} | {r['sqlite_mb']} | {r['vector_file_mb']} | "
                     f"{r['vector_file_resident_mb']} | {r['dense_matrix_mb']} | {r['vector_file_build_s']} | "
                     f"{r['open_with_file_ms']} | {r['dense_matrix_load_s']} |")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
