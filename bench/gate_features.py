"""The gate's evidence for every question of bench/refusal.py, and for the self-calibration's own questions
(pseudo-questions from each index, bundled negatives), dumped for designing the gate offline.

    python bench/gate_features.py [--shared ../shared/data] [--limit 200] [--only samples]

Same indexes and question groups as bench/refusal.py (its `.kotae-bench/refusal/` cache). Per question:
margin, top similarity, keyword coverage, the share of its content words the corpus never holds (after
synonyms), how many content words it has, its language and the share of the corpus' chunks in that language.
The pseudo-questions are also searched with their own document left out ("left_out": questions in the
corpus' domain that it cannot answer). Writes `.kotae-bench/gate_features.json` (not committed: raw material,
large).
"""
from __future__ import annotations

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from refusal import CACHE, ROOT, corpora

from kotae import Kotae
from kotae.search import autocal


def features(k: Kotae, questions: list[str], exclude: list[frozenset[str]] | None = None) -> list[dict]:
    s = k.searcher
    out = []
    left_out = exclude or [frozenset()] * len(questions)
    for q, vec, ex in zip(questions, k.embedder.queries(questions), left_out, strict=True):
        g = s.search(q, mode="hybrid", top_k=3, vector=vec, exclude=ex).gate
        out.append({"q": q, "margin": round(g.margin, 5), "sim": round(g.similarity, 5),
                    "coverage": round(g.coverage, 4), "absent": round(g.absent, 4), "content": g.content,
                    "lang_share": round(g.lang_share, 3)})
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--shared", default=os.path.join(ROOT, "..", "shared", "data"))
    ap.add_argument("--limit", type=int, default=200)
    ap.add_argument("--only", action="append")
    args = ap.parse_args()
    out = {}
    for name, k, groups in corpora(args.shared, args.limit, args.only):
        with k:
            texts = [t for _, t in k.store.chunk_texts()]
            neg = autocal.negatives()
            k.store.set_meta("corpus_langs", json.dumps(autocal.languages(texts)))
            rows = k.store.chunk_texts()
            pairs = autocal.pseudo_pairs([t for _, t in rows], noise=neg)
            chunks = k.store.chunks([rows[i][0] for _, i in pairs])
            docs = [frozenset({chunks[rows[i][0]].doc_id}) for _, i in pairs]
            row = {"chunks": len(texts), "positives": features(k, [q for q, _ in pairs]),
                   "negatives": features(k, neg), "groups": {},
                   # the same pseudo-questions with their own document left out: in-domain, unanswerable
                   "left_out": features(k, [q for q, _ in pairs], docs)}
            for g, (answerable, qs) in groups.items():
                row["groups"][g] = {"answerable": answerable, "items": features(k, qs)}
            out[name] = row
            print(name, len(texts), flush=True)
    os.makedirs(os.path.dirname(CACHE), exist_ok=True)
    with open(os.path.join(os.path.dirname(CACHE), "gate_features.json"), "w", encoding="utf-8") as f:
        json.dump(out, f, ensure_ascii=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
