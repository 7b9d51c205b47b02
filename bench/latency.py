"""Query latency per stage at 1k, 10k and 100k chunks, and memory (RSS) at each size.

    python bench/latency.py [--sizes 1000,10000,100000] [--queries 50]

The corpus is synthetic: chunk texts are sentences drawn from the bundled samples (Japanese and
English, so the keyword index has realistic vocabulary and posting lists) with random unit vectors as
embeddings (dense search cost does not depend on vector content; embedding 100k chunks with the real
model would take ~40 minutes here). Queries are the golden-set questions, embedded with the real model,
so "embed" is the real query-embedding time. Modes dense, keyword and hybrid run against the same index;
"answer" is the extractive answer built from the hybrid top 5 (`ask`, the default offline answer), and
"rerank" the cross-encoder stage of hybrid+rerank when `--reranker SPEC` names one (none ships with kotae:
e.g. an ONNX export of cross-encoder/ms-marco-MiniLM-L-6-v2, see README "Search options").
"""
from __future__ import annotations

import argparse
import os
import random
import resource
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import machine, write

from kotae.answer import ask
from kotae.chunking import split_sentences
from kotae.embed import DEFAULT_ENGINES, get_embedder
from kotae.eval import load_golden
from kotae.eval.metrics import percentile
from kotae.ingest import read_document
from kotae.pipeline import discover
from kotae.search import Searcher
from kotae.search.analyze import analyze
from kotae.search.synonyms import Synonyms, bundled, with_group_terms
from kotae.store import open_store
from kotae.types import Chunk, DocumentInfo

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def sentences() -> list[str]:
    out = []
    for path, _ in discover([os.path.join(ROOT, "samples", "docs")]):
        for page in read_document(path).pages:
            out += [page[a:b].replace("\n", "") for a, b in split_sentences(page) if b - a > 10]
    return out


def spread_questions(n: int) -> list[str]:
    """`n` golden-set questions (samples/golden-ja and -en) spread evenly over the two sets."""
    questions = [it.question for g in ("golden-ja.jsonl", "golden-en.jsonl")
                 for it in load_golden(os.path.join(ROOT, "samples", g))]
    return questions[:: max(1, len(questions) // n)][:n]


def build(store, n: int, dim: int, pool: list[str], rng: random.Random,  # type: ignore[no-untyped-def]
          table: Synonyms | None = None) -> None:
    """`n` chunks of three sample sentences each, random unit vectors, the keyword text as `kotae index` writes
    it: analysed tokens plus the synonym group terms of a new index (store meta synonym_terms = 1), so questions
    search by group terms, as they do on any index made since index-side synonyms (`table`: the bundled groups
    unless given)."""
    table = table or bundled()
    nprng = np.random.default_rng(0)
    analysed = {s: " ".join(analyze(s)) for s in pool}  # sentences repeat: analyse each once
    for d in range(0, n, 1000):
        k = min(1000, n - d)
        picks = [[rng.choice(pool) for _ in range(3)] for _ in range(k)]
        texts = [" ".join(p) + f" 文書{d + i}" for i, p in enumerate(picks)]
        keyword = [with_group_terms(" ".join(analysed[s] for s in p) + f" 文書 {d + i}", table)
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
    ap.add_argument("--sizes", default="1000,10000,100000")
    ap.add_argument("--queries", type=int, default=60)
    ap.add_argument("--model", default=DEFAULT_ENGINES[0])
    ap.add_argument("--reranker", help="cross-encoder spec for the rerank stage (onnx:DIR or st:NAME)")
    args = ap.parse_args()
    reranker = None
    if args.reranker:
        from kotae.search.rerank import get_reranker

        reranker = get_reranker(args.reranker)
    embedder = get_embedder(args.model)
    questions = [it.question for g in ("golden-ja.jsonl", "golden-en.jsonl")
                 for it in load_golden(os.path.join(ROOT, "samples", g))][: args.queries]
    pool = sentences()
    rows, results = [], {}
    for n in (int(x) for x in args.sizes.split(",")):
        with tempfile.TemporaryDirectory() as tmp:
            store = open_store(tmp)
            store.bind_model(embedder.model_id)
            t0 = time.perf_counter()
            build(store, n, embedder.dim, pool, random.Random(n))
            build_s = time.perf_counter() - t0
            store.keyword_file(build=True)  # as `kotae index` leaves an index of >= 20,000 chunks
            searcher = Searcher(store, embedder, reranker=reranker)
            searcher.search("warm up")  # maps the vector file
            per_mode = {}
            for mode in ("dense", "keyword", "hybrid") + (("hybrid+rerank",) if reranker else ()):
                stages: dict[str, list[float]] = {}
                totals = []
                for q in questions:
                    t1 = time.perf_counter()
                    res = searcher.search(q, mode=mode, top_k=10)
                    totals.append((time.perf_counter() - t1) * 1000)
                    for k, v in res.timings_ms.items():
                        stages.setdefault(k, []).append(v)
                per_mode[mode] = {
                    "retrieval_p50_ms": round(percentile(stages["search"], 50), 2),
                    "retrieval_p95_ms": round(percentile(stages["search"], 95), 2),
                    "total_p50_ms": round(percentile(totals, 50), 2),
                    "total_p95_ms": round(percentile(totals, 95), 2),
                    **{f"{k}_p50_ms": round(percentile(v, 50), 2) for k, v in stages.items()},
                    **{f"{k}_p95_ms": round(percentile(v, 95), 2) for k, v in stages.items()},
                }
            gen = [ask(q, searcher, mode="hybrid", top_k=5).timings_ms.get("generate") or 0.0 for q in questions]
            per_mode["hybrid"]["answer_p50_ms"] = round(percentile(gen, 50), 2)
            per_mode["hybrid"]["answer_p95_ms"] = round(percentile(gen, 95), 2)
            rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
            results[n] = {"build_s": round(build_s, 1), "max_rss_mb": round(rss, 1), "modes": per_mode}
            for mode, m in per_mode.items():
                rows.append(f"| {n:,} | {mode} | {m['embed_p50_ms']} | {m['dense_p50_ms']} | {m['keyword_p50_ms']} | "
                            f"{m['fusion_p50_ms']} | {m.get('rerank_p50_ms', '–')} | {m['gate_p50_ms']} | "
                            f"**{m['retrieval_p50_ms']}** / {m['retrieval_p95_ms']} | "
                            f"{m.get('answer_p50_ms', '–')} / {m.get('answer_p95_ms', '–')} | {rss:.0f} |")
            store.close()
    md = ("| chunks | mode | embed p50 | dense p50 | keyword p50 | fusion p50 | rerank p50 | gate p50 | "
          "retrieval p50 / p95 (excl. embed) | extractive answer p50 / p95 | max RSS MB |\n"
          + "|---" * 11 + "|\n" + "\n".join(rows))
    md = (f"Query latency in ms, {len(questions)} golden-set questions, top_k 10, synthetic corpus "
          f"(sample sentences, random vectors){'; reranker ' + args.reranker if reranker else '; no reranker given'}. "
          f"Machine: {machine()['cpu']}, {os.cpu_count()} cores, load average at start "
          f"{machine()['loadavg_1_5_15'][0]}.\n\n" + md)
    write("latency", {"settings": vars(args), "machine": machine(), "results": results}, md)
    return 0


if __name__ == "__main__":
    sys.exit(main())
