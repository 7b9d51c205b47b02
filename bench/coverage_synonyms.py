"""Keyword coverage that counts synonym matches (kotae.search.searcher.COVERAGE_SYNONYMS) off and on, one run.

    python bench/coverage_synonyms.py [--data ../shared/data] [--limit-queries N] [--workplace] [--golden-only]

Fusion weighs the keyword arm by the question's keyword coverage (the IDF-weighted share of its words the top
three keyword hits hold). With the flag on, a word a hit holds only as another entry of its synonym group
(時間外労働 for 残業) counts as held. Hybrid retrieval, default settings, both variants on the same indexes:
the golden sets of bench/crossling.py over samples/docs (hit@1, nDCG@10 per category and split) and the BEIR
sets of bench/retrieval.py (nDCG@10; indexes shared with it in .kotae-beir). Writes
bench/results/coverage_synonyms.{json,md}.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import crossling
from common import machine, write
from retrieval import DATASETS

from kotae import Kotae
from kotae.config import SearchSettings, Settings
from kotae.embed import DEFAULT_ENGINES, get_embedder
from kotae.eval.beir import load_beir
from kotae.eval.beir_eval import default_index, evaluate_beir
from kotae.search import searcher
from kotae.store import open_store

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FLAGS = (False, True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=os.path.join(ROOT, "..", "shared", "data"))
    ap.add_argument("--index-root", default=os.path.join(ROOT, ".kotae-beir"))
    ap.add_argument("--limit-queries", type=int)
    ap.add_argument("--workplace", action="store_true", help="with kotae's workplace synonym groups (off by default)")
    ap.add_argument("--golden-only", action="store_true", help="skip the BEIR sets")
    ap.add_argument("--real", action="store_true", help="also bench/golden/users-real.jsonl over its real files")
    args = ap.parse_args()
    from kotae.search import synonyms
    synonyms.WORKPLACE = synonyms.WORKPLACE_FILE if args.workplace else None
    t0 = time.perf_counter()
    embedder = get_embedder(DEFAULT_ENGINES[0])
    sets = {n: crossling.items_of(p) for n, p in crossling.SETS.items()}
    golden = {}
    with tempfile.TemporaryDirectory() as tmp:
        k = Kotae.open(tmp, settings=Settings(), embedder=embedder)
        k.index([os.path.join(ROOT, "samples", "docs")])
        for flag in FLAGS:
            searcher.COVERAGE_SYNONYMS = flag
            golden[flag] = crossling.run(k, sets, {"hybrid": SearchSettings()})["hybrid"]
        k.close()
        if args.real:
            real = {n: crossling.items_of(p) for n, p in crossling.REAL.items()}
            with crossling._real_index(os.path.join(tmp, "real"), args.data, embedder) as kr:
                for flag in FLAGS:
                    searcher.COVERAGE_SYNONYMS = flag
                    golden[flag].update(crossling.run(kr, real, {"hybrid": SearchSettings()})["hybrid"])
            sets.update(real)
    lines = ["Golden sets over samples/docs (hybrid):", "",
             "| split | category | n | hit@1 off | hit@1 on | nDCG@10 off | nDCG@10 on |", "|---|---|---|---|---|---|---|"]
    cats = sorted({it.category for its in sets.values() for it, _ in its})
    for split in ("fit", "held-out"):
        for cat in ("all", *cats):
            ids = [it.id for its in sets.values() for it, sp in its if sp == split and cat in ("all", it.category)]
            if ids:
                lines.append(f"| {split} | {cat} | {len(ids)} | " + " | ".join(
                    f"{sum(golden[f][i][m] for i in ids) / len(ids):.3f}" for m in ("hit@1", "ndcg@10") for f in FLAGS)
                    + " |")
    beir = {}
    lines += ["", "BEIR sets (hybrid nDCG@10):", "", "| data set | queries | off | on |", "|---|---|---|---|"]
    for folder, split in () if args.golden_only else DATASETS:
        path = os.path.join(args.data, folder)
        if not os.path.isdir(path):
            continue
        data = load_beir(path, split, args.limit_queries)
        store = open_store(default_index(data.name, DEFAULT_ENGINES[0], args.index_root))
        beir[folder] = {}
        for flag in FLAGS:
            searcher.COVERAGE_SYNONYMS = flag
            run = evaluate_beir(data, Kotae(store, embedder), ("hybrid",))
            beir[folder][str(flag)] = run.to_json()["metrics"]["hybrid"]["ndcg@10"]
        store.close()
        lines.append(f"| {folder} | {len(data.queries)} | {beir[folder]['False']:.4f} | {beir[folder]['True']:.4f} |")
    searcher.COVERAGE_SYNONYMS = True
    m = machine()
    head = (f"Keyword coverage with synonym matches off / on (`kotae.search.searcher.COVERAGE_SYNONYMS`), hybrid, "
            f"default settings, {embedder.model_id}. Run {time.perf_counter() - t0:.0f} s. Machine: {m['cpu']}, "
            f"{m['cores']} cores. Command: `python bench/coverage_synonyms.py {' '.join(sys.argv[1:])}`.\n\n")
    write("coverage_synonyms" + ("_workplace" if args.workplace else ""), {"machine": m, "golden": {str(f): v for f, v in golden.items()}, "beir": beir},
          head + "\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
