"""How many int8 candidates the quantised dense search must score exactly: recall against exact float search
on a hard synthetic distribution, no database (the vector file is built straight from numpy).

    python bench/dense_candidates.py [--n 100000] [--queries 60] [--vectors mixture|cone] [--data ../shared/data]
                                     [--settings 1,2,4,8]

Vectors, `--vectors mixture` (the default): mixtures of real e5-small passage vectors, queries real e5-small
query vectors of SciFact/SQuAD 2.0/JSQuAD questions (bench/dense_vectors.py). `--vectors cone`: 1,500 centres in a narrow cone (a shared direction of norm 0.85 plus 0.4 of a random one, like
e5's anisotropy), chunks = centre + noise of norm 0.5, normalised; queries are the shared direction plus
noise, near no centre in particular: many nearly tied neighbours, the hard case for any first stage. For
each number of int8 candidates per k scored exactly (k = 50): recall@10, recall@50 and p50 ms of the dense
search, the int8 scan's own time, and the exact float numpy product over all rows for comparison.
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
from dense_vectors import mixtures, real_vectors

from kotae.eval.metrics import percentile
from kotae.search import dense
from kotae.search.dense import QuantizedIndex, int8_dots, quantize_query
from kotae.store import vectorfile
from kotae.store.vectorfile import VectorSet

SETTINGS = [1, 2, 4, 8]


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


def measure(index: QuantizedIndex, vf: vectorfile.VectorFile, qs: np.ndarray, truth: list[np.ndarray],
            rescore: int) -> dict[str, float]:
    dense.RESCORE_PER_K, dense.RESCORE_MIN = rescore, 0
    h10 = h50 = 0
    times, cpu, scan = [], [], []
    for q, want in zip(qs, truth, strict=True):
        t0, c0 = time.perf_counter(), time.process_time()
        got = [r for r, _ in index.search(q, 50)]
        times.append((time.perf_counter() - t0) * 1000)
        cpu.append((time.process_time() - c0) * 1000)
        h10 += len(set(want[:10].tolist()) & set(got[:10]))
        h50 += len(set(want.tolist()) & set(got))
        t0 = time.perf_counter()
        int8_dots(vf.codes, quantize_query(q)[0])
        scan.append((time.perf_counter() - t0) * 1000)
    n = len(qs)
    return {"rescore_per_k": rescore, "recall_at_10": round(h10 / (10 * n), 4),
            "recall_at_50": round(h50 / (50 * n), 4), "scan_p50_ms": round(percentile(scan, 50), 1),
            "dense_p50_ms": round(percentile(times, 50), 1), "dense_p95_ms": round(percentile(times, 95), 1),
            "dense_cpu_p50_ms": round(percentile(cpu, 50), 1)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--queries", type=int, default=60)
    ap.add_argument("--vectors", choices=("mixture", "cone"), default="mixture")
    ap.add_argument("--data", default=os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                                   "..", "shared", "data"))
    ap.add_argument("--settings", default=None, help="int8 candidates per k scored exactly, e.g. 2,4,8")
    args = ap.parse_args()
    settings = [int(x) for x in args.settings.split(",")] if args.settings else SETTINGS
    start = machine()
    if args.vectors == "cone":
        v, qs = corpus(args.n, args.queries)
    else:
        real, qv, _ = real_vectors(args.data)
        v = np.concatenate(list(mixtures(real, args.n)))
        qs = qv[: args.queries]
    exact_ms = []
    truth = []
    for q in qs:
        t0 = time.perf_counter()
        sims = v @ q
        top = np.argpartition(-sims, 49)[:50]
        exact_ms.append((time.perf_counter() - t0) * 1000)
        truth.append(np.argsort(-(v @ q), kind="stable")[:50])
    rows = []
    saved = dense.RESCORE_PER_K, dense.RESCORE_MIN
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "v.kvf")
        vectorfile.write(path, 1, "m", v.shape[1],
                         [(f"d{i:07d}", min(1000, args.n - i), "") for i in range(0, args.n, 1000)],
                         [(np.arange(args.n), v)])
        vf = vectorfile.load(path)
        assert vf is not None
        index = QuantizedIndex(VectorSet(vf), lambda r: (r, v[r]))
        for rescore in settings:
            rows.append(measure(index, vf, qs, truth, rescore))
            print(rows[-1], flush=True)
        del index, vf, top
    dense.RESCORE_PER_K, dense.RESCORE_MIN = saved
    payload = {"settings": vars(args), "machine": {**start, "load_average_at_end": [round(x, 2) for x in os.getloadavg()]},
               "exact_float_p50_ms": round(percentile(exact_ms, 50), 1), "results": rows}
    m = payload["machine"]
    what = ("mixtures of real e5-small passage vectors, real e5-small query vectors (bench/dense_vectors.py)"
            if args.vectors == "mixture" else "hard: a narrow cone, queries near no centre")
    lines = [(f"Quantised dense search (int8 scan of every row, then exact float scores for the best), "
              f"{args.n:,} synthetic vectors ({what}), {args.queries} queries, k = 50. Machine: {m['cpu']}, "
              f"{m['cores']} cores, load {m['loadavg_1_5_15']} at start, {m['load_average_at_end']} at end. "
              f"CPU ms: the search's own process time. Exact float numpy over all rows, in memory: p50 "
              f"{payload['exact_float_p50_ms']} ms."),
             "", ("| int8 cand./k scored exactly | recall@10 | recall@50 | int8 scan p50 ms | dense p50 / p95 ms | "
                 "dense CPU p50 ms |"), "|---|---|---|---|---|---|"]
    lines += [f"| {r['rescore_per_k']} | {r['recall_at_10']} | {r['recall_at_50']} | {r['scan_p50_ms']} | "
              f"{r['dense_p50_ms']} / {r['dense_p95_ms']} | {r['dense_cpu_p50_ms']} |" for r in rows]
    suffix = "" if args.vectors == "cone" else "_mixture"
    write(f"dense_candidates_{args.n}{suffix}", payload, "\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
