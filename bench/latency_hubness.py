"""Query latency with and without `search.hubness`, side by side on one synthetic index.

    python bench/latency_hubness.py [--size 100000] [--queries 60]

The corpus of bench/latency.py (sample sentences, random unit vectors) at one size, its keyword file built and
its gate self-calibrated as `kotae index` leaves it (which keeps the bundled negatives' vectors that hubness is
measured with). Each golden-set question (Japanese and English, embedded once beforehand) is searched in hybrid
mode with search.hubness 0 and 0.5 (the default) alternating, the order swapped every other question, so a
loaded machine slows both alike. Reports retrieval p50/p95 (everything but the query embedding) and the dense
stage, which now includes reading the candidates' vectors and scoring them against the null questions.
Writes bench/results/latency_hubness.{json,md}.
"""
from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import machine, write
from latency import build, sentences, spread_questions

from kotae import Kotae
from kotae.config import SearchSettings, Settings
from kotae.embed import DEFAULT_ENGINES, get_embedder
from kotae.eval.metrics import percentile
from kotae.store import open_store

WEIGHTS = (0.0, 0.5)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", type=int, default=100_000)
    ap.add_argument("--queries", type=int, default=60)
    args = ap.parse_args()
    embedder = get_embedder(DEFAULT_ENGINES[0])
    questions = spread_questions(args.queries)
    vectors = embedder.queries(questions)
    out: dict[float, dict[str, list[float]]] = {w: {"search": [], "dense": []} for w in WEIGHTS}
    with tempfile.TemporaryDirectory() as tmp:
        store = open_store(tmp)
        store.bind_model(embedder.model_id)
        build(store, args.size, embedder.dim, sentences(), random.Random(args.size))
        store.keyword_file(build=True)
        k = Kotae(store, embedder, Settings())
        t0 = time.perf_counter()
        k.self_calibrate(force=True)
        calibrate_s = time.perf_counter() - t0
        doors = {w: k.using(settings=Settings(search=SearchSettings(hubness=w))).searcher for w in WEIGHTS}
        for s in doors.values():
            s.search("warm up")
        for i, (q, v) in enumerate(zip(questions, vectors, strict=True)):
            for w in (WEIGHTS if i % 2 == 0 else WEIGHTS[::-1]):
                t = doors[w].search(q, mode="hybrid", top_k=10, vector=v).timings_ms
                out[w]["search"].append(t["search"])
                out[w]["dense"].append(t["dense"])
        store.close()
    m = machine()
    rows = [f"| {w:g} | {percentile(v['search'], 50):.2f} / {percentile(v['search'], 95):.2f} | "
            f"{percentile(v['dense'], 50):.2f} / {percentile(v['dense'], 95):.2f} |" for w, v in out.items()]
    md = (f"Hybrid retrieval latency in ms (query embedding excluded) with search.hubness off and at the default, "
          f"alternating per question; {len(questions)} golden questions (Japanese and English), {args.size:,} "
          f"synthetic chunks (bench/latency.py's corpus), keyword file built, gate self-calibrated ({calibrate_s:.1f} "
          f"s, which also keeps the null questions' vectors). Machine: {m['cpu']}, {m['cores']} cores, load "
          f"average at start {m['loadavg_1_5_15'][0]}. Command: `python bench/latency_hubness.py "
          f"{' '.join(sys.argv[1:])}`.\n\n| search.hubness | retrieval p50 / p95 | dense stage p50 / p95 |\n"
          "|---|---|---|\n" + "\n".join(rows))
    write("latency_hubness", {"machine": m, "size": args.size, "calibrate_s": round(calibrate_s, 1),
                              "results": {str(w): v for w, v in out.items()}}, md)
    return 0


if __name__ == "__main__":
    sys.exit(main())
