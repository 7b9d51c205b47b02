"""Where a hybrid query's time goes at 100k chunks with synonyms on, stage by stage, and what the keyword query is.

    python bench/latency_keyword.py [--size 100000] [--queries 60] [--index DIR] [--out latency_keyword]

The synthetic corpus of bench/latency_synonyms.py (kept in --index and reused when it is there). For each
golden-set question (embedded once beforehand): the number of keyword terms (the question's own and its
synonym group terms), their postings (the sum of their document frequencies), and the time of each stage of
`Searcher.search` (hybrid, synonyms on), plus the parts inside it that timings_ms does not name, measured
apart: the document frequencies, the keyword coverage (the best three keyword hits fetched and analysed) and
the gate. Writes bench/results/<out>.{json,md}.
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


def _ms(t0: float) -> float:
    return (time.perf_counter() - t0) * 1000


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", type=int, default=100000)
    ap.add_argument("--queries", type=int, default=60)
    ap.add_argument("--index", default=None, help="keep the synthetic index here (reused when present)")
    ap.add_argument("--label", default="")
    ap.add_argument("--prune", action="store_true", help="also time keyword searches without the commonest terms")
    ap.add_argument("--out", default="latency_keyword")
    args = ap.parse_args()
    embedder = get_embedder(DEFAULT_ENGINES[0])
    questions = [it.question for g in ("golden-ja.jsonl", "golden-en.jsonl", "golden-users-ja.jsonl",
                                       "golden-users-en.jsonl")
                 for it in load_golden(os.path.join(ROOT, "samples", g))][: args.queries]
    vectors = [embedder.query(q) for q in questions]
    with tempfile.TemporaryDirectory() as tmp:
        where = args.index or tmp
        store = open_store(where)
        built = 0.0
        if not store.documents():
            store.bind_model(embedder.model_id)
            t0 = time.perf_counter()
            build(store, args.size, embedder.dim, sentences(), random.Random(args.size))
            built = time.perf_counter() - t0
        s = Searcher(store, embedder, SearchSettings())
        s.search("warm up", vector=vectors[0])
        n_chunks = store.document_frequencies([])[1]
        rows: dict[str, list[float]] = {}
        for q, v in zip(questions, vectors, strict=True):
            t = s.search(q, mode="hybrid", top_k=5, vector=v).timings_ms
            qtokens = analyze(q)
            extra = s.expansion(qtokens)
            terms = list(dict.fromkeys(qtokens))
            t0 = time.perf_counter()
            df, _ = store.document_frequencies(list(dict.fromkeys(qtokens + extra)))
            t_df = _ms(t0)
            keyword = store.keyword_search(qtokens + extra, 50, None)
            t0 = time.perf_counter()
            s.keyword_coverage(terms, keyword, df, n_chunks)
            t_cov = _ms(t0)
            for k, x in {**t, "df (all terms, apart)": t_df, "coverage (apart)": t_cov,
                         "terms": float(len(qtokens)), "synonym terms": float(len(extra)),
                         "postings (k)": sum(df.values()) / 1000}.items():
                rows.setdefault(k, []).append(x)
        pruned = prune(store, s, questions, n_chunks) if args.prune else {}
        store.close()
    res = {k: {"p50": round(percentile(v, 50), 2), "p95": round(percentile(v, 95), 2),
               "mean": round(sum(v) / len(v), 2)} for k, v in rows.items()}
    m = machine()
    md = (f"Hybrid search at {args.size:,} synthetic chunks (bench/latency_synonyms.py's corpus), synonyms on, "
          f"{len(questions)} golden-set questions, query embedding excluded{' — ' + args.label if args.label else ''}. "
          f"Index built in {built:.0f} s (0: reused). Machine: {m['cpu']}, {m['cores']} cores, load average at "
          f"start {m['loadavg_1_5_15'][0]}. Command: `python bench/latency_keyword.py {' '.join(sys.argv[1:])}`.\n\n"
          "| stage (ms) or count | p50 | p95 | mean |\n|---|---|---|---|\n"
          + "\n".join(f"| {k} | {r['p50']} | {r['p95']} | {r['mean']} |" for k, r in res.items()))
    if pruned:
        md += ("\n\nThe keyword search without the terms held by more than a share of the chunks (at least the two "
               "rarest kept), against all terms: p50 ms, how many of the top 10 stay (mean), terms kept (p50).\n\n"
               "| terms kept | keyword p50 ms | top-10 kept | terms |\n|---|---|---|---|\n"
               + "\n".join(f"| {k} | {v['p50_ms']} | {v['top10_kept']} | {v['terms']} |" for k, v in pruned.items()))
    write(args.out, {"settings": vars(args), "machine": m, "results": res, "pruned": pruned}, md)
    print(md)
    return 0


def prune(store, searcher, questions, n_chunks):  # type: ignore[no-untyped-def]
    """{rule: p50 ms, top-10 kept, terms}: the same keyword search with its commonest terms left out."""
    rows: dict[str, list[tuple[float, float, int]]] = {}
    for q in questions:
        toks = analyze(q)
        terms = list(dict.fromkeys(toks + searcher.expansion(toks)))
        if not terms:
            continue
        df, _ = store.document_frequencies(terms)
        full = [r for r, _ in store.keyword_search(terms, 50, None)[:10]]
        for share in (1.0, 0.5, 0.1, 0.03):
            keep = [t for t in terms if df[t] <= share * n_chunks] or sorted(terms, key=lambda t: df[t])[:2]
            t0 = time.perf_counter()
            got = [r for r, _ in store.keyword_search(keep, 50, None)[:10]]
            rows.setdefault("all" if share == 1.0 else f"df ≤ {share:.0%}", []).append(
                (_ms(t0), len(set(full) & set(got)) / max(1, len(full)), len(keep)))
    return {k: {"p50_ms": round(percentile([x[0] for x in v], 50), 1),
                "top10_kept": round(sum(x[1] for x in v) / len(v), 3),
                "terms": percentile([float(x[2]) for x in v], 50)} for k, v in rows.items()}


if __name__ == "__main__":
    sys.exit(main())
