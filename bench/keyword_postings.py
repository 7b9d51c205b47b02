"""The SQLite store's term → rows file (`keywords.kpf`, kotae/store/postings.py) against FTS5 with max-score
pruning, on an index bench/dense_1m.py kept: build time and size, then per question (interleaved, fastest of
`--rounds`) the keyword search and the whole hybrid search both ways, and whether the lists are identical.

    python bench/dense_1m.py --sizes 1000000 --queries 60 --keep /tmp/d1m          # the index, once
    python bench/keyword_postings.py --index /tmp/d1m/sqlite-mixture-1000000 [--queries 60] [--rounds 3]

Questions: the 60 real SQuAD 2.0 / JSQuAD questions of bench/dense_1m.py (keyword terms with synonym group
terms, as `kotae index` writes them), their e5-small vectors given (the embedding is left out of the times).
"""
from __future__ import annotations

import argparse
import os
import resource
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import machine, write
from dense_1m import Precomputed, open_store
from dense_vectors import real_vectors

from kotae.eval.metrics import percentile
from kotae.search import Searcher
from kotae.store.base import Filter
from kotae.store.sqlite import KEYWORD_FILE


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--index", required=True)
    ap.add_argument("--data", default=os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                                   "..", "shared", "data"))
    ap.add_argument("--queries", type=int, default=60)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--after-write", type=int, default=0,
                    help="then write a document of N chunks (copies of the first rows) and remove one of the "
                         "index's documents, so searches use the file plus the change since it (changes the index: "
                         "run it on a copy)")
    args = ap.parse_args()
    start = machine()
    _, qvecs, texts = real_vectors(args.data)
    qtexts = texts[: args.queries]
    embedder = Precomputed(dict(zip(qtexts, qvecs[: args.queries], strict=True)))
    path = os.path.join(args.index, KEYWORD_FILE)
    if os.path.exists(path):
        os.unlink(path)
    store = open_store(args.index)
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    t0 = time.perf_counter()
    pf = store.keyword_file(build=True)
    build_s = time.perf_counter() - t0
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # the process's peak so far: the build
    assert pf is not None, "no file was written (index under postings.MIN_ROWS chunks?)"
    delta_s = None
    if args.after_write:
        change(store, args.after_write)
        t0 = time.perf_counter()
        state = store._keyword_index()  # the change since the file, read once per generation
        delta_s = time.perf_counter() - t0
        assert state is not None and state[1] is not None, "the change is past postings.DELTA_SHARE"
    searcher = Searcher(store, embedder)
    for q in qtexts[:3]:
        searcher.search(q, top_k=10)  # warm: analyser, page cache, the scan's session
    kw: dict[str, list[float]] = {"fts5": [], "file": []}
    hy: dict[str, list[float]] = {"fts5": [], "file": []}
    same_kw = same_hits = 0
    for q in qtexts:
        lists = {}
        for way in ("fts5", "file") * args.rounds:
            store.keyword_file_search = way == "file"
            r = searcher.search(q, top_k=10)
            lists[way] = ([h.chunk.id for h in r.hits], [h.bm25 for h in r.hits])
            kw.setdefault(way + "_all", []).append(r.timings_ms["keyword"])
            hy.setdefault(way + "_all", []).append(r.timings_ms["search"])
        for way in ("fts5", "file"):  # fastest of the rounds per question
            kw[way].append(min(kw[way + "_all"][-args.rounds:]))
            hy[way].append(min(hy[way + "_all"][-args.rounds:]))
        same_hits += lists["fts5"][0] == lists["file"][0]
        same_kw += lists["fts5"] == lists["file"]
    every_tenth = Filter(file="synthetic-*0000.txt") if len(pf.rowids) >= 100_000 else Filter(file="synthetic-*000.txt")
    filtered: dict[str, list[float]] = {"fts5": [], "file": []}
    same_filtered = 0
    for q in qtexts:  # a filter admitting ~10 % of the documents (as bench/dense_1m.py)
        got = {}
        for way in ("fts5", "file"):
            store.keyword_file_search = way == "file"
            r = searcher.search(q, top_k=10, flt=every_tenth)
            filtered[way].append(r.timings_ms["search"])
            got[way] = [(h.chunk.id, h.bm25) for h in r.hits]
        same_filtered += got["fts5"] == got["file"]
    store.keyword_file_search = True
    store.close()
    n = len(qtexts)
    res = {"chunks": len(pf.rowids), "terms": len(pf.term_ends), "postings": len(pf.rows),
           "file_mb": round(os.path.getsize(path) / 2**20, 1), "build_s": round(build_s, 1),
           "peak_rss_mb_after_build": round(peak_mb), "peak_rss_mb_before_build": round(rss_before),
           "after_write": args.after_write, "delta_read_s": None if delta_s is None else round(delta_s, 3),
           "same_top10": same_hits, "same_top10_bm25": same_kw, "same_filtered": same_filtered, "questions": n}
    for way in ("fts5", "file"):
        res[way] = {"keyword_p50_ms": round(percentile(kw[way], 50), 1), "keyword_p95_ms": round(percentile(kw[way], 95), 1),
                    "hybrid_p50_ms": round(percentile(hy[way], 50), 1), "hybrid_p95_ms": round(percentile(hy[way], 95), 1),
                    "filtered_p50_ms": round(percentile(filtered[way], 50), 1),
                    "filtered_p95_ms": round(percentile(filtered[way], 95), 1)}
    payload = {"settings": vars(args), "machine": {**start, "load_average_at_end": [round(x, 2) for x in os.getloadavg()]},
               "results": res}
    m = payload["machine"]
    changed = (f" After building it, a document of {args.after_write:,} chunks was written and one removed: searches "
               f"use the file plus the change since (read in {res['delta_read_s']} s)." if args.after_write else "")
    lines = [(f"Keyword search from the term → rows file against FTS5 (with max-score pruning), {res['chunks']:,} "
              f"chunks ({args.index}), {n} questions, each way {args.rounds} times interleaved, fastest per question. "
              f"Machine: {m['cpu']}, {m['cores']} cores, load {m['loadavg_1_5_15']} at start, "
              f"{m['load_average_at_end']} at end. Command: `python bench/keyword_postings.py --index DIR`.{changed}"), "",
             (f"File: {res['terms']:,} terms, {res['postings']:,} postings, {res['file_mb']} MB, built in {res['build_s']} s "
              f"(process peak RSS {res['peak_rss_mb_before_build']} MB before the build, {res['peak_rss_mb_after_build']} MB after). "
             f"Same top 10 (rowids) {same_hits}/{n}; same rowids and bm25 scores {same_kw}/{n}, filtered "
              f"{same_filtered}/{n}. Filtered: ~10 % of the documents, one run each way."), "",
             "| keyword search | keyword p50 / p95 ms | hybrid search p50 / p95 ms | filtered hybrid p50 / p95 ms |",
             "|---|---|---|---|"]
    for way, label in (("fts5", "FTS5 + pruning (before)"), ("file", "term → rows file")):
        r = res[way]
        lines.append(f"| {label} | {r['keyword_p50_ms']} / {r['keyword_p95_ms']} | {r['hybrid_p50_ms']} / "
                     f"{r['hybrid_p95_ms']} | {r['filtered_p50_ms']} / {r['filtered_p95_ms']} |")
    write(f"keyword_postings_{res['chunks']}" + (f"_after_write_{args.after_write}" if args.after_write else ""),
          payload, "\n".join(lines))
    print("\n".join(lines))
    return 0


def change(store, n: int) -> None:  # type: ignore[no-untyped-def]
    """Write a document of `n` chunks (the first rows' keyword texts again) and remove the last document."""
    import numpy as np

    from kotae.types import Chunk, DocumentInfo

    rows = store._q(f"SELECT c0 FROM chunk_fts_content ORDER BY id LIMIT {int(n)}")
    info = DocumentInfo("bench-added", "/bench/added.txt", "bench-added.txt", "text", "x", 1, len(rows), "en",
                        "2026-12-05T00:00:00+00:00")
    chunks = [Chunk(f"bench-added-{i}", info.id, info.file, 1, (), "t", 0, 1, "en", i) for i in range(len(rows))]
    vecs = np.random.default_rng(0).standard_normal((len(rows), 384)).astype(np.float32)
    store.write_document(info, ["added"], chunks, [f"bench-added-{i}" for i in range(len(rows))], vecs,
                         [r[0] for r in rows])
    store.remove_document(store.documents()[-1].path)


if __name__ == "__main__":
    sys.exit(main())
