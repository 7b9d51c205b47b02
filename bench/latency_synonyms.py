"""Query latency with and without synonym expansion, side by side on one synthetic index.

    python bench/latency_synonyms.py [--size 100000] [--queries 60]

The corpus of bench/latency.py (sample sentences, random unit vectors) at one size, its keyword text with
synonym group terms as a new index stores it. Each golden-set question (embedded once with the real
model beforehand) is searched in hybrid mode with synonyms off, then on, alternating, so a loaded machine
slows both alike. Reports the retrieval p50/p95 (everything but the query embedding) and the keyword
stage. Writes bench/results/latency_synonyms.{json,md}.
"""
from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import machine, write
from latency import sentences

from kotae.config import SearchSettings
from kotae.embed import DEFAULT_ENGINES, get_embedder
from kotae.eval import load_golden
from kotae.eval.metrics import percentile
from kotae.search import Searcher
from kotae.search.analyze import analyze
from kotae.search.synonyms import bundled, with_group_terms
from kotae.store import open_store
from kotae.types import Chunk, DocumentInfo

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def build(store, n: int, dim: int, pool: list[str], rng: random.Random) -> None:  # type: ignore[no-untyped-def]
    nprng = np.random.default_rng(0)
    analysed = {s: " ".join(analyze(s)) for s in pool}  # sentences repeat: analyse each once
    for d in range(0, n, 1000):
        k = min(1000, n - d)
        picks = [[rng.choice(pool) for _ in range(3)] for _ in range(k)]
        texts = [" ".join(p) + f" 文書{d + i}" for i, p in enumerate(picks)]
        keyword = [with_group_terms(" ".join(analysed[s] for s in p) + f" 文書 {d + i}", bundled())
                   for i, p in enumerate(picks)]
        info = DocumentInfo(f"syn{d}", f"/synthetic/{d}.txt", f"synthetic-{d}.txt", "text", "x", 1, k, "mixed",
                            "2026-01-01T00:00:00+00:00")
        chunks = [Chunk(f"s{d + i}", info.id, info.file, 1, (), t, 0, len(t), "mixed", i) for i, t in enumerate(texts)]
        v = nprng.standard_normal((k, dim)).astype(np.float32)
        v /= np.linalg.norm(v, axis=1, keepdims=True)
        store.write_document(info, ["synthetic"], chunks, [f"h{d + i}" for i in range(k)], v, keyword)
    store.set_meta("synonym_terms", "1")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", type=int, default=100000)
    ap.add_argument("--queries", type=int, default=60)
    args = ap.parse_args()
    embedder = get_embedder(DEFAULT_ENGINES[0])
    questions = [it.question for g in ("golden-ja.jsonl", "golden-en.jsonl", "golden-users-ja.jsonl",
                                       "golden-users-en.jsonl")
                 for it in load_golden(os.path.join(ROOT, "samples", g))][: args.queries]
    vectors = [embedder.query(q) for q in questions]
    with tempfile.TemporaryDirectory() as tmp:
        store = open_store(tmp)
        store.bind_model(embedder.model_id)
        t0 = time.perf_counter()
        build(store, args.size, embedder.dim, sentences(), random.Random(args.size))
        build_s = time.perf_counter() - t0
        runs = {"synonyms off": Searcher(store, embedder, SearchSettings(synonyms=False)),
                "synonyms on": Searcher(store, embedder, SearchSettings())}
        for s in runs.values():
            s.search("warm up", vector=vectors[0])
        stages: dict[str, dict[str, list[float]]] = {k: {"search": [], "keyword": []} for k in runs}
        for q, v in zip(questions, vectors, strict=True):
            for name, s in runs.items():
                t = s.search(q, mode="hybrid", top_k=10, vector=v).timings_ms
                stages[name]["search"].append(t["search"])
                stages[name]["keyword"].append(t["keyword"])
        store.close()
    res = {k: {f"{st}_{p}_ms": round(percentile(v, p), 2) for st, v in d.items() for p in (50, 95)}
           for k, d in stages.items()}
    m = machine()
    md = (f"Hybrid query latency in ms (query embedding excluded), {len(questions)} golden-set questions, "
          f"{args.size:,} synthetic chunks (bench/latency.py's corpus, keyword text with synonym group terms; built "
          f"in {build_s:.0f} s), the two settings alternating per question. Machine: {m['cpu']}, {m['cores']} "
          f"cores, load average at start {m['loadavg_1_5_15'][0]}. Command: `python bench/latency_synonyms.py "
          f"--size {args.size}`.\n\n| setting | retrieval p50 | retrieval p95 | keyword p50 | keyword p95 |\n"
          "|---|---|---|---|---|\n" + "\n".join(
              f"| {k} | **{r['search_50_ms']}** | {r['search_95_ms']} | {r['keyword_50_ms']} | {r['keyword_95_ms']} |"
              for k, r in res.items()))
    write("latency_synonyms", {"settings": vars(args), "machine": m, "build_s": round(build_s, 1), "results": res}, md)
    print(md)
    return 0


if __name__ == "__main__":
    sys.exit(main())
