"""What this wave's synonym use on the answer side costs at 100k chunks: keyword coverage that counts synonym
matches (fusion) and the synonym credit of extractive sentence scoring, each off and on, in one run.

    python bench/latency_synonym_credit.py [--size 100000] [--queries 40]

Corpus: bench/latency.py's synthetic one (sample sentences, random unit vectors). Queries: the golden-set
questions, embedded once outside the timings. Per query, alternating off and on (so load hits both alike):
- search: `Searcher.search` in hybrid with `kotae.search.searcher.COVERAGE_SYNONYMS` off / on;
  Which variant runs first alternates per query (the second of a pair finds warm caches).
- answer: `ask._extract` on the same hits by a searcher with synonyms off / on (on: the synonym-group credit of
  `extractive.score`; the searcher's own search is not run here).
Writes bench/results/latency_synonym_credit.{json,md}.
"""
from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from dataclasses import replace

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import machine, write
from latency import build, sentences, spread_questions

from kotae.answer.ask import _extract
from kotae.config import SearchSettings
from kotae.embed import DEFAULT_ENGINES, get_embedder
from kotae.eval.metrics import percentile
from kotae.search import Searcher, searcher
from kotae.store import open_store

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", type=int, default=100000)
    ap.add_argument("--queries", type=int, default=40)
    args = ap.parse_args()
    embedder = get_embedder(DEFAULT_ENGINES[0])
    questions = spread_questions(args.queries)
    vectors = embedder.queries(questions)
    t: dict[str, list[float]] = {"search, coverage off": [], "search, coverage on": [],
                                 "answer, credit off": [], "answer, credit on": []}
    with tempfile.TemporaryDirectory() as tmp:
        store = open_store(tmp)
        store.bind_model(embedder.model_id)
        t0 = time.perf_counter()
        build(store, args.size, embedder.dim, sentences(), random.Random(args.size))
        build_s = time.perf_counter() - t0
        on = Searcher(store, embedder)
        off = Searcher(store, embedder, replace(SearchSettings(), synonyms=False))
        on.search("warm up", mode="hybrid")
        for i, (q, vec) in enumerate(zip(questions, vectors, strict=True)):
            first = i % 2 == 0  # which variant goes first alternates: the second of a pair finds warm caches
            for flag in (not first, first):
                searcher.COVERAGE_SYNONYMS = flag
                t1 = time.perf_counter()
                res = on.search(q, mode="hybrid", top_k=5, vector=vec)
                t[f"search, coverage {'on' if flag else 'off'}"].append((time.perf_counter() - t1) * 1000)
            pair = (("answer, credit off", off), ("answer, credit on", on))
            for label, s in (pair if first else pair[::-1]):
                t1 = time.perf_counter()
                _extract(q, vec, res.hits, embedder, s)
                t[label].append((time.perf_counter() - t1) * 1000)
        searcher.COVERAGE_SYNONYMS = True
        store.close()
    stats = {k: {"p50_ms": round(percentile(v, 50), 2), "p95_ms": round(percentile(v, 95), 2)} for k, v in t.items()}
    m = machine()
    md = (f"Synonym coverage (fusion) and synonym credit (answers) at {args.size:,} chunks (synthetic corpus of "
          f"bench/latency.py), {len(questions)} golden questions, hybrid, query embedding outside the timings; off "
          f"and on alternating per query. Machine: {m['cpu']}, {m['cores']} cores, load average "
          f"{m['loadavg_1_5_15']}. Build {build_s:.0f} s. Command: `python bench/latency_synonym_credit.py`.\n\n"
          "| stage | p50 ms | p95 ms |\n|---|---|---|\n"
          + "\n".join(f"| {k} | {v['p50_ms']} | {v['p95_ms']} |" for k, v in stats.items()) + "\n")
    write("latency_synonym_credit", {"settings": vars(args), "machine": m, "build_s": round(build_s, 1),
                                     "stats": stats}, md)
    return 0


if __name__ == "__main__":
    sys.exit(main())
