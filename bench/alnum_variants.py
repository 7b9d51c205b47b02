"""Codes spelled two ways (1040-NR / 1040NR, IL-6 / IL6): keyword search with and without the other spelling
of the question's codes (`analyze.alnum_variants`, `searcher.ALNUM_VARIANTS`), side by side in one run.

    python bench/alnum_variants.py [--data ../shared/data]   # after bench/retrieval.py (reuses its indexes)

BEIR sets of bench/retrieval.py (SciFact train, SQuAD 2.0 half; indexes in .kotae-beir), keyword
and hybrid modes; and the golden sets of bench/crossling.py over samples/docs and the real files (indexes of
bench/translations.py), hybrid, fit and held-out halves. Only queries holding a code change; the table gives
how many do. Measured neutral, so the variants are off (`searcher.ALNUM_VARIANTS`). Writes
bench/results/alnum_variants.{json,md}.
"""
from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import crossling
from common import machine, write

from kotae import Kotae
from kotae.config import SearchSettings, Settings
from kotae.embed import get_embedder
from kotae.eval.beir import load_beir
from kotae.eval.beir_eval import beir_table, default_index, evaluate_beir
from kotae.search import searcher
from kotae.search.analyze import alnum_variants
from kotae.store import open_store

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATASETS = (("scifact", "train"), ("squad2-dev-half", None))  # JSQuAD: Japanese, hardly a code (and 4,442 queries)


def beir(data_root: str, model: str) -> tuple[list[str], dict]:
    embedder = get_embedder(model)
    lines, out = [], {}
    for folder, split in DATASETS:
        path = os.path.join(data_root, folder)
        if not os.path.isdir(path):
            continue
        data = load_beir(path, split, None)
        codes = sum(bool(alnum_variants(q)) for _, q in data.queries)
        runs = []
        for flag in (False, True):
            searcher.ALNUM_VARIANTS = flag
            store = open_store(default_index(data.name, model, os.path.join(ROOT, ".kotae-beir")))
            run = evaluate_beir(data, Kotae(store, embedder), ("keyword", "hybrid"))
            store.close()
            run.settings["dataset"] = f"{data.name} variants {'on' if flag else 'off'}"
            runs.append(run)
        searcher.ALNUM_VARIANTS = False
        out[folder] = {"queries_with_codes": codes, "runs": [r.to_json() for r in runs]}
        lines += [f"{folder}: {codes} of {len(data.queries)} queries hold a code.", "", beir_table(runs), ""]
    return lines, out


def golden(shared: str) -> tuple[list[str], dict]:
    settings = {"hybrid": SearchSettings()}
    sets = {n: crossling.items_of(p) for n, p in crossling.SETS.items()}
    real = {n: crossling.items_of(p) for n, p in crossling.REAL.items()}
    results: dict[str, dict] = {}
    embedder = get_embedder("e5-small-onnx")
    index = os.path.join(ROOT, ".kotae-bench", "translations")
    for flag in (False, True):
        searcher.ALNUM_VARIANTS = flag
        name = f"variants {'on' if flag else 'off'}"
        with Kotae.open(index, settings=Settings(), embedder=embedder) as k:
            if not k.documents():
                k.index([os.path.join(ROOT, "samples", "docs")])
            results[name] = crossling.run(k, sets, settings)["hybrid"]
        with crossling._real_index(index + "-real", shared, embedder) as kr:
            results[name].update(crossling.run(kr, real, settings)["hybrid"])
    searcher.ALNUM_VARIANTS = False
    allsets = {**sets, **real}
    codes = sum(bool(alnum_variants(it.question)) for its in allsets.values() for it, _ in its)
    return [f"Golden sets (hybrid): {codes} questions hold a code.", ""] + crossling.table(allsets, results), results


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=os.path.join(ROOT, "..", "shared", "data"))
    ap.add_argument("--model", default="e5-small-onnx")
    args = ap.parse_args()
    b_lines, b = beir(args.data, args.model)
    g_lines, g = golden(args.data)
    m = machine()
    head = (f"Keyword search with the other spelling of a question's codes off and on. Machine: {m['cpu']}, "
            f"{m['cores']} cores. Command: `python bench/alnum_variants.py`.\n\n")
    write("alnum_variants", {"machine": m, "beir": b, "golden": g}, head + "\n".join(b_lines + g_lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
