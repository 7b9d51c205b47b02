"""What one onnxruntime call of the e5 encoder costs besides its padded tokens: the cost model behind
`kotae.embed.e5_onnx.CALL_TOKENS` (how sequences are grouped into calls).

    python bench/encoder_calls.py [--rounds 20]

Times `E5Encoder._forward` (the default engine, warmed up) on batches of b sequences of L tokens, fastest of
`--rounds`, and fits ms = a + c · b · L by least squares: a is the cost of a call, c of a padded token, and
a / c the call's cost in padded tokens.
"""
from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import machine, write

from kotae.embed import get_embedder

SHAPES = [(1, 8), (1, 16), (1, 32), (4, 16), (12, 16), (12, 32), (12, 48), (6, 30), (6, 80), (12, 80), (32, 32)]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=20)
    args = ap.parse_args()
    start = machine()
    e = get_embedder("e5-small-onnx")
    f = e._file  # type: ignore[attr-defined]
    e.passages(["warm up " * 50] * 8)
    rows = []
    for b, n in SHAPES:
        seqs = [[f.bos] + [1000] * (n - 2) + [f.eos] for _ in range(b)]
        best = float("inf")
        for _ in range(args.rounds):
            t0 = time.perf_counter()
            e._forward(seqs)  # type: ignore[attr-defined]
            best = min(best, (time.perf_counter() - t0) * 1000)
        rows.append({"sequences": b, "tokens": n, "ms": round(best, 2)})
    x = np.array([[1.0, r["sequences"] * r["tokens"]] for r in rows])
    a, c = np.linalg.lstsq(x, np.array([r["ms"] for r in rows]), rcond=None)[0]
    payload = {"settings": vars(args), "machine": {**start, "load_average_at_end": [round(v, 2) for v in os.getloadavg()]},
               "results": rows, "call_ms": round(float(a), 2), "token_ms": round(float(c), 4),
               "call_in_tokens": round(float(a / c), 1)}
    m = payload["machine"]
    lines = [(f"e5 encoder calls (`E5Encoder._forward`, fastest of {args.rounds}). Machine: {m['cpu']}, {m['cores']} cores, "
              f"load {m['loadavg_1_5_15']} at start. Fit: {payload['call_ms']} ms a call + {payload['token_ms']} ms a "
              f"padded token, so a call costs ~{payload['call_in_tokens']} padded tokens. Command: "
              "`python bench/encoder_calls.py`."), "", "| sequences | tokens each | ms |", "|---|---|---|"]
    lines += [f"| {r['sequences']} | {r['tokens']} | {r['ms']} |" for r in rows]
    write("encoder_calls", payload, "\n".join(lines))
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
