"""How many candidates each stage of the quantised dense search needs: recall against exact float search
on a hard synthetic distribution, no database (the vector file is built straight from numpy).

    python bench/dense_candidates.py [--n 100000] [--queries 60]

Vectors: 1,500 centres in a narrow cone (a shared direction of norm 0.85 plus 0.4 of a random one, like
e5's anisotropy), chunks = centre + noise of norm 0.5, normalised; queries are the shared direction plus
noise, near no centre in particular: many nearly tied neighbours, the hard case for sign bits. For each
(Hamming candidates per k, int8 candidates per k) with k = 50: recall@10, recall@50 and p50 ms of the
dense search; and the Hamming stage's own recall@10 (how much of the exact top 10 is among its candidates).
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import machine, write

from kotae.eval.metrics import percentile
from kotae.search import dense
from kotae.search.dense import QuantizedIndex, estimate
from kotae.store import vectorfile

SETTINGS = [(40, 4), (80, 4), (160, 4), (160, 8), (320, 4)]


def corpus(n: int, queries: int, dim: int = 384) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    mu = rng.standard_normal(dim)
    mu *= 0.85 / np.linalg.norm(mu)
    c = rng.standard_normal((1500, dim))
    c = c / np.linalg.norm(c, axis=1, keepdims=True) * 0.4 + mu
    c /= np.linalg.norm(c, axis=1, keepdims=True)
    v = np.empty((n, dim), np.float32)
    for lo in range(0, n, 100_000):
        hi = min(n, lo + 100_000)
        x = c[rng.integers(0, 1500, hi - lo)] + rng.standard_normal((hi - lo, dim)) * (0.5 / np.sqrt(dim))
        v[lo:hi] = x / np.linalg.norm(x, axis=1, keepdims=True)
    q = mu + 0.4 * rng.standard_normal((queries, dim)) / np.sqrt(dim)
    return v, (q / np.linalg.norm(q, axis=1, keepdims=True)).astype(np.float32)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--queries", type=int, default=60)
    args = ap.parse_args()
    v, qs = corpus(args.n, args.queries)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "v.kvf")
        vectorfile.write(path, 1, "m", v.shape[1], [(f"d{i:07d}", min(1000, args.n - i)) for i in range(0, args.n, 1000)],
                         [(np.arange(args.n), v)])
        vf = vectorfile.load(path)
    assert vf is not None
    index = QuantizedIndex(vf, lambda r: (r, v[r]))
    truth = [np.argsort(-(v @ q), kind="stable")[:50] for q in qs]
    rows = []
    saved = dense.FIRST_PER_K, dense.FIRST_MIN, dense.RESCORE_PER_K, dense.RESCORE_MIN
    for first, rescore in SETTINGS:
        dense.FIRST_PER_K, dense.FIRST_MIN, dense.RESCORE_PER_K, dense.RESCORE_MIN = first, 0, rescore, 0
        h10 = h50 = ham = 0
        times = []
        for q, want in zip(qs, truth, strict=True):
            t0 = time.perf_counter()
            got = [r for r, _ in index.search(q, 50)]
            times.append((time.perf_counter() - t0) * 1000)
            h10 += len(set(want[:10].tolist()) & set(got[:10]))
            h50 += len(set(want.tolist()) & set(got))
            cand = np.argpartition(-estimate(vf, q), first * 50)[: first * 50]
            ham += len(set(want[:10].tolist()) & set(cand.tolist()))
        rows.append({"first_per_k": first, "rescore_per_k": rescore, "recall_at_10": round(h10 / (10 * len(qs)), 4),
                     "recall_at_50": round(h50 / (50 * len(qs)), 4), "hamming_stage_recall_at_10": round(ham / (10 * len(qs)), 4),
                     "dense_p50_ms": round(percentile(times, 50), 1)})
        print(rows[-1], flush=True)
    dense.FIRST_PER_K, dense.FIRST_MIN, dense.RESCORE_PER_K, dense.RESCORE_MIN = saved
    payload = {"settings": vars(args), "machine": {**machine(), "load_average_at_end": [round(x, 2) for x in os.getloadavg()]},
               "results": rows}
    m = payload["machine"]
    lines = [(f"Quantised dense search, candidates per stage, {args.n:,} synthetic vectors (hard: a narrow cone, "
              f"queries near no centre), {args.queries} queries, k = 50. Machine: {m['cpu']}, {m['cores']} cores, load "
              f"{m['loadavg_1_5_15']} at start, {m['load_average_at_end']} at end."), "",
             "| Hamming cand./k | int8 cand./k | Hamming stage recall@10 | recall@10 | recall@50 | dense p50 ms |",
             "|---|---|---|---|---|---|"]
    lines += [f"| {r['first_per_k']} | {r['rescore_per_k']} | {r['hamming_stage_recall_at_10']} | {r['recall_at_10']} | "
              f"{r['recall_at_50']} | {r['dense_p50_ms']} |" for r in rows]
    write(f"dense_candidates_{args.n}", payload, "\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
