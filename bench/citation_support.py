"""Measure the citation-support signals that `kotae.answer.citations` thresholds.

For each answerable golden question with a reference answer, every sentence of the reference answer is
paired with each passage retrieved for the question (top 5, hybrid): pairs whose passage contains one of
the question's must_contain phrases (the eval rule "phrase") are "supporting", the others "other". (The
page rule would count other chunks of the evidence page as supporting; they mostly are not.) For each signal the script
reports the distributions and, for candidate thresholds, the share of supporting pairs accepted and of
other pairs (wrongly) accepted.

    kotae --index /tmp/llm-idx index samples/docs
    python bench/citation_support.py --index /tmp/llm-idx     # → bench/results/citation_support.{json,md}
"""
from __future__ import annotations

import argparse
import json
import os

import numpy as np

from kotae.answer import citations
from kotae.chunking import split_sentences
from kotae.embed import get_embedder
from kotae.eval import load_golden
from kotae.eval.metrics import Retrieved, retrieval_metrics
from kotae.search import Searcher
from kotae.search.analyze import analyze
from kotae.store import open_store

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def pairs(index: str, golden: list[str]) -> list[dict]:
    store = open_store(index)
    embedder = get_embedder("e5-small")
    store.bind_model(embedder.model_id)
    searcher = Searcher(store, embedder)
    out = []
    for it in (i for g in golden for i in load_golden(g)):
        if not it.answerable or not it.answer:
            continue
        hits = searcher.search(it.question, top_k=5).hits
        sents = [it.answer[a:b] for a, b in split_sentences(it.answer)]
        texts = [" › ".join(h.chunk.heading) + "\n" + h.chunk.text for h in hits]  # as kotae.answer.generate
        lex = citations.lexical([analyze(s) for s in sents], [analyze(t) for t in texts])
        cos = embedder.passages(sents) @ embedder.passages(texts).T
        nums = citations.numbers_present(sents, texts)
        on = [retrieval_metrics([Retrieved(h.chunk.file, h.chunk.page, h.chunk.text)], it.evidence,
                                "phrase")["hit@1"] > 0 for h in hits]
        for i, s in enumerate(sents):
            for j in range(len(hits)):
                out.append({"id": it.id, "sentence": s, "evidence": on[j], "lexical": float(lex[i, j]),
                            "cosine": float(cos[i, j]), "numbers": bool(nums[i, j])})
    return out


def rates(rows: list[dict], lex_min: float, cos_min: float) -> tuple[float, float]:
    def ok(r: dict) -> bool:
        return r["numbers"] and (r["lexical"] >= lex_min or r["cosine"] >= cos_min)

    sup = [r for r in rows if r["evidence"]]
    oth = [r for r in rows if not r["evidence"]]
    return sum(map(ok, sup)) / len(sup), sum(map(ok, oth)) / len(oth)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--index", default="/tmp/llm-idx")
    p.add_argument("--golden", nargs="+", default=[os.path.join(ROOT, "samples", f"golden-{x}.jsonl")
                                                  for x in ("ja", "en")])
    p.add_argument("--out", default=os.path.join(ROOT, "bench", "results", "citation_support"))
    args = p.parse_args()
    rows = pairs(args.index, args.golden)
    stats = {}
    for side in (True, False):
        rs = [r for r in rows if r["evidence"] is side]
        stats["supporting" if side else "other"] = {
            "pairs": len(rs),
            **{f"{k}_p{q}": round(float(np.percentile([r[k] for r in rs], q)), 3)
               for k in ("lexical", "cosine") for q in (10, 25, 50, 75, 90)},
            "numbers_present": round(sum(r["numbers"] for r in rs) / len(rs), 3)}
    grid = [{"lexical_min": lm, "cosine_min": cm, "accept_supporting": round(a, 3), "accept_other": round(b, 3)}
            for lm in (0.3, 0.4, 0.5, 0.6) for cm in (0.85, 0.88, 0.90, 0.92, 1.01)
            for a, b in [rates(rows, lm, cm)]]
    chosen = rates(rows, citations.LEXICAL_MIN, citations.COSINE_MIN)
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out + ".json", "w", encoding="utf-8") as f:
        json.dump({"settings": {"index": args.index, "golden": args.golden, "top_k": 5, "model": "e5-small"},
                   "stats": stats, "grid": grid, "chosen": {"lexical_min": citations.LEXICAL_MIN,
                                                           "cosine_min": citations.COSINE_MIN,
                                                           "accept_supporting": round(chosen[0], 3),
                                                           "accept_other": round(chosen[1], 3)},
                   "pairs": rows}, f, ensure_ascii=False, indent=1)
    lines = ["# Citation support signals", "",
             ("Reference-answer sentences of the sample golden sets against the top-5 passages retrieved for "
             "their question (hybrid, e5-small). Supporting: the passage contains a must_contain phrase of the "
             "question; other: it does not."),
             f"Reproduce: `python bench/citation_support.py --index {args.index}`", "",
             "| pairs | n | lexical p25 / p50 / p75 | cosine p25 / p50 / p75 | numbers present |",
             "|---|---|---|---|---|"]
    for name, s in stats.items():
        lines.append(f"| {name} | {s['pairs']} | {s['lexical_p25']} / {s['lexical_p50']} / {s['lexical_p75']} | "
                     f"{s['cosine_p25']} / {s['cosine_p50']} / {s['cosine_p75']} | {s['numbers_present']} |")
    lines += ["", "Accepted (numbers present and lexical ≥ L or cosine ≥ C); C = 1.01 means lexical only:", "",
              "| L | C | supporting accepted | other accepted |", "|---|---|---|---|"]
    lines += [f"| {g['lexical_min']} | {g['cosine_min']} | {g['accept_supporting']} | {g['accept_other']} |"
              for g in grid]
    lines += ["", (f"Chosen: LEXICAL_MIN = {citations.LEXICAL_MIN}, COSINE_MIN = {citations.COSINE_MIN}: "
                  f"{chosen[0]:.3f} of supporting pairs accepted, {chosen[1]:.3f} of other pairs."), ""]
    with open(args.out + ".md", "w", encoding="utf-8") as f:
        f.write("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
