"""How many chunks to embed per call: the reason for pipeline.EMBED_BATCH.

    python bench/embed_batching.py [--scifact 300] [--model e5-small-onnx]

The chunks of N SciFact abstracts (indexed once, as bench/ingest.py makes them) embedded in file order, in
groups of 32, 64, 256 chunks and all at once (each group sorted by length inside `passages`), the groups sizes
interleaved over 2 rounds, the fastest kept. Writes bench/results/embed_batching.{json,md}.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import machine, write
from ingest import corpora

from kotae.config import IndexSettings
from kotae.embed import DEFAULT_ENGINES, get_embedder
from kotae.pipeline import embed_text, index_paths
from kotae.store import open_store

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default=os.path.join(ROOT, "..", "shared", "data"))
    ap.add_argument("--scifact", type=int, default=300)
    ap.add_argument("--model", default=DEFAULT_ENGINES[0])
    args = ap.parse_args()
    embedder = get_embedder(args.model)
    with tempfile.TemporaryDirectory() as tmp:
        paths = corpora(args.data, args.scifact, tmp).get(f"SciFact abstracts ({args.scifact})")
        if not paths:
            print("needs ../shared/data/scifact", file=sys.stderr)
            return 1
        store = open_store(os.path.join(tmp, "idx"))
        index_paths(paths, store, embedder, IndexSettings(ocr="off"))
        rows = [r for r, _ in store.chunk_texts()]
        chunks = store.chunks(rows)
        texts = [embed_text(chunks[r]) for r in rows]
        store.close()
    sizes = (32, 64, 256, len(texts))
    best = dict.fromkeys(sizes, float("inf"))
    for _ in range(2):
        for g in sizes:
            t0 = time.perf_counter()
            for i in range(0, len(texts), g):
                embedder.passages(texts[i : i + g])
            best[g] = min(best[g], time.perf_counter() - t0)
    m = machine()
    rows_md = [f"| {g} | {best[g]:.2f} | {best[g] / best[len(texts)]:.2f}× |" for g in sizes]
    md = (f"{len(texts)} chunks of {args.scifact} SciFact abstracts, {embedder.model_id}, fastest of 2 interleaved "
          f"rounds. Machine: {m['cpu']}, {m['cores']} cores, load average at start {m['loadavg_1_5_15'][0]}. "
          f"Command: `python bench/embed_batching.py --scifact {args.scifact}`.\n\n"
          "| chunks per call | seconds | vs all at once |\n|---|---|---|\n" + "\n".join(rows_md))
    write("embed_batching", {"machine": m, "model": embedder.model_id, "chunks": len(texts),
                             "seconds": {str(g): round(best[g], 3) for g in sizes}}, md)
    return 0


if __name__ == "__main__":
    sys.exit(main())
