"""kotae's own reranker against hybrid search, side by side in one run: golden sets per category and split, and
the public retrieval sets.

    python bench/rerank.py [--reranker kotae] [--pools 10,20] [--real] [--beir jsquad-valid,scifact,squad2-dev-half]
                           [--limit-queries 200] [--shared ../shared/data]

Golden: samples/golden-ja/en and golden-users-ja/en over one index of samples/docs (kept in
.kotae-bench/crossling, shared with bench/crossling.py), split fit / held-out as there (`alternate_splits`,
users by their field); --real adds bench/golden/users-real.jsonl over its real files. BEIR: each set's corpus
indexed once (.kotae-beir, shared with bench/retrieval.py), the first N queries. Variants: hybrid (the
defaults) and hybrid+rerank with the reranker rescoring the top N fused hits, for each N of --pools.
Latency: per-query p50 of each variant, on this machine, in the same run. The reranker was trained on JaQuAD
train only (scripts/reranker/); none of these sets was seen in training or used to choose its settings except
the golden fit halves. Writes bench/results/rerank.{json,md} (--out for another name).
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from dataclasses import replace

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import machine, write
from crossling import REAL, SETS, _real_index, items_of, run, table

from kotae import Kotae
from kotae.config import SearchSettings, Settings
from kotae.embed import DEFAULT_ENGINES, get_embedder
from kotae.eval.beir import load_beir
from kotae.eval.beir_eval import default_index, evaluate_beir
from kotae.eval.metrics import percentile
from kotae.search.rerank import get_reranker

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def variants(pools: list[int], blends: list[float]) -> dict[str, SearchSettings]:
    base = SearchSettings()
    out = {"hybrid": base}
    for n in pools:
        for b in blends:
            out[f"rerank@{n}" + (f"~{b:g}" if b else "")] = replace(base, mode="hybrid+rerank", rerank_candidates=n,
                                                                    rerank_blend=b)
    return out


def latency(k: Kotae, questions: list[str], settings: dict[str, SearchSettings]) -> dict[str, float]:
    out = {}
    for name, s in settings.items():
        door = k.using(settings=Settings(search=s))
        ms = []
        for q in questions:
            t = time.perf_counter()
            door.search(q, top_k=10)
            ms.append((time.perf_counter() - t) * 1000)
        out[name] = round(percentile(ms, 50), 1)
    return out


def beir_rows(name: str, shared: str, limit: int, embedder, reranker,  # type: ignore[no-untyped-def]
              settings: dict[str, SearchSettings]) -> list[str]:
    data = load_beir(os.path.join(shared, name), limit_queries=limit)
    rows = []
    with Kotae.open(default_index(data.name, embedder.model_id, os.path.join(ROOT, ".kotae-beir")),
                    settings=Settings(), embedder=embedder, reranker=reranker) as k:
        for variant, s in settings.items():
            run_ = evaluate_beir(data, k.using(settings=Settings(search=s)), modes=(s.mode,))
            m, t = run_.modes[s.mode], run_.timings[s.mode]
            rows.append(f"| {name} | {data.split} | {len(data.queries)} | {variant} | "
                        f"{m['ndcg@10']:.4f} | {m['mrr@10']:.4f} | {m['recall@1']:.4f} | {m['recall@10']:.4f} | "
                        f"{t['p50_ms']} |")
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--reranker", default="kotae")
    ap.add_argument("--pools", default="10,20")
    ap.add_argument("--blends", default="0,1", help="rerank_blend values (0: the reranker's order alone)")
    ap.add_argument("--index", default=os.path.join(ROOT, ".kotae-bench", "crossling"))
    ap.add_argument("--real", action="store_true")
    ap.add_argument("--beir", default="", help="comma-separated data sets under --shared")
    ap.add_argument("--limit-queries", type=int, default=200)
    ap.add_argument("--shared", default=os.path.join(ROOT, "..", "shared", "data"))
    ap.add_argument("--out", default="rerank")
    args = ap.parse_args()
    pools = [int(x) for x in args.pools.split(",") if x]
    embedder = get_embedder(DEFAULT_ENGINES[0])
    reranker = get_reranker(args.reranker)
    fresh = not os.path.isdir(args.index)
    k = Kotae.open(args.index, settings=Settings(), embedder=embedder, reranker=reranker)
    if fresh:
        k.index([os.path.join(ROOT, "samples", "docs")])
    sets = {n: items_of(p) for n, p in SETS.items()}
    settings = variants(pools, [float(x) for x in args.blends.split(",")])
    t0 = time.perf_counter()
    results = run(k, sets, settings)
    if args.real:
        real = {n: items_of(p) for n, p in REAL.items()}
        with _real_index(args.index + "-real", args.shared, embedder) as kr:
            kr._reranker = reranker
            for name, rows in run(kr, real, settings).items():
                results[name].update(rows)
        sets.update(real)
    golden_s = time.perf_counter() - t0
    questions = [it.question for its in sets.values() for it, _ in its][:60]
    lat = latency(k, questions, settings)
    lines = table(sets, results)
    lines += ["Search p50 ms (top 10, the first 60 golden questions, this machine, same run): " +
              ", ".join(f"{n} {v}" for n, v in lat.items()), ""]
    beir: list[str] = []
    for name in filter(None, args.beir.split(",")):
        beir += beir_rows(name, args.shared, args.limit_queries, embedder, reranker, settings)
    if beir:
        lines += ["Public sets (first N queries of each; nDCG@10, MRR@10, recall@1/@10, search p50 ms):", "",
                  "| set | split | queries | variant | ndcg@10 | mrr@10 | recall@1 | recall@10 | p50 ms |",
                  "|---|---|---|---|---|---|---|---|---|", *beir, ""]
    m = machine()
    meta = getattr(reranker, "meta", {})
    head = (f"Reranker `{reranker.name}` ({meta}) against hybrid, {embedder.model_id}, top 10, rule 'either', "
            f"answerable questions. Golden searches {golden_s:.0f} s. Machine: {m['cpu']}, {m['cores']} cores, "
            f"load {m.get('load')}. Command: `python bench/rerank.py {' '.join(sys.argv[1:])}`.\n\n")
    write(args.out, {"machine": m, "reranker": reranker.name, "meta": meta, "latency_p50_ms": lat,
                     "results": results, "beir": beir}, head + "\n".join(lines))
    k.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
