"""Hybrid search with the keyword arm in a worker thread beside the query embedding and dense search, against
the two arms one after the other, side by side on one synthetic index.

    python bench/latency_parallel.py [--sizes 100000] [--queries 80]
    python bench/latency_parallel.py --store DIR   # an index kept by `bench/dense_1m.py --keep` (1M chunks)

The corpus of bench/latency.py (sample sentences, random unit vectors, keyword text with synonym group terms) at
each size. Each golden-set question is searched in hybrid mode with `searcher.PARALLEL_ARMS` off, then on
(the order swapped every other question, so a loaded machine slows both alike), twice: with the query vector
given (what bench/latency.py times: dense and keyword overlap) and embedded live (the question as `kotae ask`
searches it: the embedding overlaps the keyword arm too). Reports wall-clock p50/p95 per variant and the
ratio. Writes bench/results/latency_parallel.{json,md}.
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
from latency import build, sentences

from kotae.embed import DEFAULT_ENGINES, get_embedder
from kotae.eval import load_golden
from kotae.eval.metrics import percentile
from kotae.search import Searcher
from kotae.search import searcher as searcher_module
from kotae.store import open_store

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VARIANTS = ("sequential", "parallel")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="100000")
    ap.add_argument("--queries", type=int, default=80)
    ap.add_argument("--store", help="search this existing index folder instead of building one per size")
    args = ap.parse_args()
    embedder = get_embedder(DEFAULT_ENGINES[0])
    questions = [it.question for g in ("golden-ja.jsonl", "golden-en.jsonl", "golden-users-ja.jsonl",
                                       "golden-users-en.jsonl")
                 for it in load_golden(os.path.join(ROOT, "samples", g))][: args.queries]
    vectors = [embedder.query(q) for q in questions]
    pool = sentences()
    results, rows = {}, []
    for size in ([0] if args.store else [int(x) for x in args.sizes.split(",")]):
        with tempfile.TemporaryDirectory() as tmp:
            build_s = 0.0
            if args.store:
                store = open_store(args.store)
                size = len(store.chunk_languages())
            else:
                store = open_store(tmp)
                store.bind_model(embedder.model_id)
                t0 = time.perf_counter()
                build(store, size, embedder.dim, pool, random.Random(size))
                build_s = time.perf_counter() - t0
            searcher = Searcher(store, embedder)
            searcher.search("warm up", vector=vectors[0])
            wall: dict[str, dict[str, list[float]]] = {how: {v: [] for v in VARIANTS} for how in ("given", "live")}
            same = 0
            for i, (q, vec) in enumerate(zip(questions, vectors, strict=True)):
                for how in ("given", "live"):
                    got = {}
                    for v in VARIANTS[:: 1 if i % 2 == 0 else -1]:
                        searcher_module.PARALLEL_ARMS = v == "parallel"
                        t1 = time.perf_counter()
                        res = searcher.search(q, mode="hybrid", top_k=10, vector=vec if how == "given" else None)
                        wall[how][v].append((time.perf_counter() - t1) * 1000)
                        got[v] = [h.chunk.id for h in res.hits]
                    same += got["sequential"] == got["parallel"]
            searcher_module.PARALLEL_ARMS = True
            store.close()
        res_size = {how: {v: {"p50_ms": round(percentile(x, 50), 2), "p95_ms": round(percentile(x, 95), 2)}
                          for v, x in d.items()} for how, d in wall.items()}
        results[size] = {"build_s": round(build_s, 1), "same_hits": f"{same}/{2 * len(questions)}", **res_size}
        for how, d in res_size.items():
            rows.append(f"| {size:,} | {how} | {d['sequential']['p50_ms']} / {d['sequential']['p95_ms']} | "
                        f"{d['parallel']['p50_ms']} / {d['parallel']['p95_ms']} | "
                        f"{d['parallel']['p50_ms'] / d['sequential']['p50_ms']:.2f}× | {same}/{2 * len(questions)} |")
    m = machine()
    md = (f"Hybrid search wall-clock ms, {len(questions)} golden-set questions, top_k 10, synthetic corpus "
          f"({'the index at ' + args.store if args.store else 'bench/latency.py' + chr(39) + 's'}), keyword arm sequential vs in a worker thread, alternating per question with the "
          f"order swapped. \"given\": the query vector passed in (no embedding); \"live\": embedded in the search. "
          f"Machine: {m['cpu']}, {m['cores']} cores, load average at start {m['loadavg_1_5_15'][0]}. Command: "
          f"`python bench/latency_parallel.py {'--store ' + args.store if args.store else '--sizes ' + args.sizes}`.\n\n"
          "| chunks | query vector | sequential p50 / p95 | parallel p50 / p95 | p50 ratio | same top 10 |\n"
          "|---|---|---|---|---|---|\n" + "\n".join(rows))
    write("latency_parallel" + ("_store" if args.store else ""), {"settings": vars(args), "machine": m, "results": results}, md)
    print(md)
    return 0


if __name__ == "__main__":
    sys.exit(main())
