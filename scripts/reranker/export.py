"""Join the parts train.py wrote into one weights file, as kotae loads it.

    python scripts/reranker/export.py OUT_DIR/rerank-part0.npz [OUT_DIR/rerank-part1.npz …] DEST.npz

train.py writes the trained tensors already packed the way the inference graph computes with them (int8 with one
scale per output row; biases, layer norms and the head float32: `kotae.search.e5_rerank.pack_weights`), in parts
small enough to come back from the GPU machine; this joins them and keeps the last part's metadata.
"""
from __future__ import annotations

import json
import os
import sys

import numpy as np


def main(argv: list[str] | None = None) -> int:
    args = argv or sys.argv[1:]
    *parts, dst = args
    arrays: dict[str, np.ndarray] = {}
    meta: dict[str, object] = {}
    for path in parts:
        with np.load(path) as z:
            for name in z.files:
                if name == "meta":
                    meta = json.loads(str(z[name]))
                else:
                    arrays[name] = z[name]
    os.makedirs(os.path.dirname(os.path.abspath(dst)), exist_ok=True)
    np.savez_compressed(dst, **arrays, meta=np.array(json.dumps(meta)))
    print(f"{dst}: {os.path.getsize(dst) / 1e6:.1f} MB, {len(arrays)} arrays, {meta}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
