"""Query expansion on the sample golden sets: pseudo-relevance feedback and HyDE against plain hybrid.

    python bench/query_expansion.py                                    # PRF variants only (no LLM)
    python bench/query_expansion.py --llm llamacpp:/tmp/qwen2.5-coder-1.5b-instruct.gguf [--categories paraphrase]

Every variant changes only the dense side of hybrid search (`Searcher.search(expansion=…)`: a vector
added to the question's vector), so the gate and the keyword search see the question as asked:
- PRF (Rocchio): the mean of the top-k dense hits' stored vectors, times β, added to the question's vector.
- HyDE: the LLM writes a passage that would answer the question (kotae's `--rewrite hyde` prompt); its
  passage embedding is added to the question's vector. Needs an LLM (see bench/llm_local.py for the local
  GGUF setup); `--categories` limits the questions it is run on (generation is slow on a CPU).
Writes bench/results/query_expansion[_hyde][_CATEGORIES].{json,md}: hit@1/3/5, MRR@10, nDCG@10 per set and
for paraphrases.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Callable

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import machine, write

from kotae.answer.llm import LLMSettings, get_llm
from kotae.answer.prompt import hyde_messages
from kotae.config import IndexSettings
from kotae.embed import get_embedder
from kotae.eval import load_golden
from kotae.eval.metrics import Retrieved, retrieval_metrics
from kotae.eval.runner import summarise
from kotae.pipeline import index_paths
from kotae.search import Searcher
from kotae.store import open_store

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SETS = {"ja": "samples/golden-ja.jsonl", "en": "samples/golden-en.jsonl"}
COLS = ("hit@1", "hit@3", "hit@5", "mrr@10", "ndcg@10")

Expansion = Callable[[str], "str | np.ndarray | None"]


def prf(searcher: Searcher, k: int, beta: float) -> Expansion:
    def expand(q: str) -> np.ndarray:
        index = searcher.dense_index()
        hits = searcher.search(q, mode="dense", top_k=k).hits
        pos = {int(r): i for i, r in enumerate(index.rowids)}
        rows = searcher.store.rowids_of([h.chunk.id for h in hits])
        vecs = index.vectors[[pos[rows[h.chunk.id]] for h in hits]]
        return beta * vecs.mean(axis=0)
    return expand


def hyde(spec: str) -> Expansion:
    llm = get_llm(spec, LLMSettings(spec=spec, temperature=0.0, max_tokens=160))
    return lambda q: llm.complete(hyde_messages(q), temperature=0.0, max_tokens=160).strip() or None


def score(items, searcher: Searcher, expand: Expansion | None) -> tuple[dict, float]:  # type: ignore[no-untyped-def]
    rows, t0 = [], time.perf_counter()
    for it in items:
        res = searcher.search(it.question, mode="hybrid", top_k=10, expansion=expand(it.question) if expand else None)
        found = [Retrieved(h.chunk.file, h.chunk.page, h.chunk.text) for h in res.hits]
        rows.append({"id": it.id, "category": it.category, **retrieval_metrics(found, it.evidence, "either")})
    return summarise(rows), (time.perf_counter() - t0) / max(1, len(items)) * 1000


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--llm", help="LLM spec for HyDE (e.g. llamacpp:PATH.gguf or openai:MODEL)")
    ap.add_argument("--categories", help="comma-separated categories to keep (default: every answerable question)")
    args = ap.parse_args()
    embedder = get_embedder("e5-small")
    keep = set(args.categories.split(",")) if args.categories else None
    items = {k: [it for it in load_golden(os.path.join(ROOT, v)) if it.answerable
                 and (keep is None or it.category in keep)] for k, v in SETS.items()}
    results: dict[str, dict] = {}
    with tempfile.TemporaryDirectory() as tmp:
        store = open_store(tmp)
        index_paths([os.path.join(ROOT, "samples", "docs")], store, embedder, IndexSettings())
        searcher = Searcher(store, embedder)
        variants: dict[str, Expansion | None] = {"hybrid": None}
        for k, beta in ((3, 0.5), (3, 1.0), (5, 0.5)):
            variants[f"hybrid + PRF (top {k}, β {beta})"] = prf(searcher, k, beta)
        if args.llm:
            variants[f"hybrid + HyDE ({os.path.basename(args.llm)})"] = hyde(args.llm)
        for name, expand in variants.items():
            results[name] = {}
            for set_name, its in items.items():
                summary, ms = score(its, searcher, expand)
                results[name][set_name] = {"overall": summary["overall"],
                                           "paraphrase": summary["categories"].get("paraphrase"), "ms_per_q": ms}
                print(name, set_name, {c: summary["overall"].get(c) for c in COLS}, file=sys.stderr)
        store.close()
    lines = ["| variant | set | n | " + " | ".join(COLS) + " | paraphrase hit@3 | ms / question |",
             "|---" * (len(COLS) + 5) + "|"]
    for name, per in results.items():
        for set_name, r in per.items():
            o, p = r["overall"], r["paraphrase"] or {}
            lines.append(f"| {name} | {set_name} | {o['n']} | " + " | ".join(f"{o[c]:.3f}" for c in COLS)
                         + f" | {p.get('hit@3', float('nan')):.3f} | {r['ms_per_q']:.0f} |")
    m = machine()
    md = (f"Query expansion, sample golden sets (answerable questions{'; categories ' + args.categories if keep else ''}), "
          f"hybrid search, top 10 scored, rule 'either', default index settings, e5-small. Machine: {m['cpu']}, "
          f"{m['cores']} cores, load average at start {m['loadavg_1_5_15'][0]}. Command: `python bench/query_expansion.py"
          f"{' --llm ' + args.llm if args.llm else ''}{' --categories ' + args.categories if keep else ''}`.\n\n"
          + "\n".join(lines))
    name = "query_expansion" + ("_hyde" if args.llm else "") + ("_" + "_".join(sorted(keep)) if keep else "")
    write(name, {"settings": vars(args), "machine": m, "results": results}, md)
    return 0


if __name__ == "__main__":
    sys.exit(main())
