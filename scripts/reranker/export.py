"""Pack trained reranker weights for shipping: matrices as int8 with one scale per output row.

    python scripts/reranker/export.py TRAINED.npz [src/kotae/data/reranker/e5-rerank.npz]

The inference graph quantises each weight matrix to int8 per output row anyway (kotae.embed.e5_convert), so
storing that form loses nothing it would keep, and is a quarter of float32. Biases, layer norms and the head
stay float32.
"""
from __future__ import annotations

import json
import os
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "src"))

from kotae.search.e5_rerank import pack_weights  # noqa: E402

OUT = os.path.join(ROOT, "src", "kotae", "data", "reranker", "e5-rerank.npz")


def main() -> int:
    src = sys.argv[1]
    dst = sys.argv[2] if len(sys.argv) > 2 else OUT
    with np.load(src) as z:
        arrays = {n: z[n] for n in z.files}
    meta = json.loads(str(arrays.pop("meta")))
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    np.savez_compressed(dst, **pack_weights(arrays), meta=np.array(json.dumps(meta)))
    print(f"{dst}: {os.path.getsize(dst) / 1e6:.1f} MB, {meta}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
