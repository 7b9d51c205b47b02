"""What the evidence checks cost a query at 100k chunks: with and without them, in one run.

    python bench/latency_checks.py [--size 100000] [--queries 40]

Corpus: bench/latency.py's synthetic one (sample sentences, random unit vectors). Queries: the golden-set
questions, embedded with the real model once, outside the timings. Timed per query, alternating with and
without (so load on the machine hits both alike):
- search: `Searcher.search` in hybrid, as shipped (the gate with the absent-word share after synonyms and the
  corpus' language share) against a Searcher whose gate is the margin-or-coverage one alone;
- answer: the extractive answer's composition with the answer checks (`ask._extract`: question parts, asked
  type, blank fields, absent words; one more query embedding per extra part) against plain sentence scoring
  of the same passages (candidates, passage embeddings, `extractive.score`, `extractive.pick`).
Writes bench/results/latency_checks.{json,md}.
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
from latency import build, sentences, spread_questions

from kotae.answer import extractive
from kotae.answer.ask import _extract
from kotae.embed import DEFAULT_ENGINES, get_embedder
from kotae.eval.metrics import percentile
from kotae.search import Searcher
from kotae.search.analyze import analyze
from kotae.search.gate import GateDecision, coverage, decide
from kotae.store import open_store
from kotae.types import Hit

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class PlainGate(Searcher):
    """The gate before the checks: margin or coverage, nothing else."""

    def _gate(self, query: str, qtokens: list[str], df: dict[str, int], n_chunks: int, top_sim: float,
              margin: float, hits: list[Hit]) -> GateDecision:
        terms = list(dict.fromkeys(qtokens))
        cov = coverage(terms, [analyze(h.chunk.text) for h in hits[:3]], df, n_chunks)
        return decide(top_sim, margin, cov, self.gate_settings())


def plain_answer(question: str, qvec, hits: list[Hit], searcher: Searcher) -> object:  # type: ignore[no-untyped-def]
    top = hits[:3]
    cands = extractive.candidates([h.chunk.text for h in top], [h.chunk.heading for h in top])
    if not cands:
        return None
    vecs = searcher.embedder.passages([c.text for c in cands])
    toks = analyze(question)
    df, n = searcher.store.document_frequencies(list(dict.fromkeys(toks)))
    scores = extractive.score(qvec, vecs, toks, [analyze(c.text) for c in cands], [c.source for c in cands], df, n)
    return extractive.pick(cands, scores)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", type=int, default=100000)
    ap.add_argument("--queries", type=int, default=40)
    args = ap.parse_args()
    embedder = get_embedder(DEFAULT_ENGINES[0])
    questions = spread_questions(args.queries)
    vectors = embedder.queries(questions)
    t: dict[str, list[float]] = {"search with checks": [], "search without": [], "answer with checks": [],
                                 "answer without": []}
    with tempfile.TemporaryDirectory() as tmp:
        store = open_store(tmp)
        store.bind_model(embedder.model_id)
        t0 = time.perf_counter()
        build(store, args.size, embedder.dim, sentences(), random.Random(args.size))
        build_s = time.perf_counter() - t0
        checked, plain = Searcher(store, embedder), PlainGate(store, embedder)
        for s in (checked, plain):
            s.search("warm up", mode="hybrid")
        for q, vec in zip(questions, vectors, strict=True):
            for label, s in (("search with checks", checked), ("search without", plain)):
                t1 = time.perf_counter()
                res = s.search(q, mode="hybrid", top_k=5, vector=vec)
                t[label].append((time.perf_counter() - t1) * 1000)
            t1 = time.perf_counter()
            _extract(q, vec, res.hits, embedder, checked)
            t["answer with checks"].append((time.perf_counter() - t1) * 1000)
            t1 = time.perf_counter()
            plain_answer(q, vec, res.hits, checked)
            t["answer without"].append((time.perf_counter() - t1) * 1000)
        store.close()
    stats = {k: {"p50_ms": round(percentile(v, 50), 2), "p95_ms": round(percentile(v, 95), 2)} for k, v in t.items()}
    m = machine()
    add = round(stats["search with checks"]["p50_ms"] - stats["search without"]["p50_ms"]
                + stats["answer with checks"]["p50_ms"] - stats["answer without"]["p50_ms"], 2)
    md = (f"The evidence checks at {args.size:,} chunks (synthetic corpus of bench/latency.py), {len(questions)} "
          f"golden questions, hybrid, query embedding outside the timings; with and without alternating per "
          f"query. Machine: {m['cpu']}, {m['cores']} cores, load average {m['loadavg_1_5_15']}. Build "
          f"{build_s:.0f} s. Command: `python bench/latency_checks.py`.\n\n| stage | p50 ms | p95 ms |\n|---|---|---|\n"
          + "\n".join(f"| {k} | {v['p50_ms']} | {v['p95_ms']} |" for k, v in stats.items())
          + f"\n\nThe checks add {add} ms at p50 (difference of the p50s, search plus answer).\n")
    write("latency_checks", {"settings": vars(args), "machine": m, "build_s": round(build_s, 1), "stats": stats,
                             "added_p50_ms": add}, md)
    return 0


if __name__ == "__main__":
    sys.exit(main())
