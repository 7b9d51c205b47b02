"""kotae's workplace synonym groups (kotae/data/synonyms/workplace.txt) on and off, side by side in one run.

    python bench/workplace_synonyms.py            # writes bench/results/workplace_synonyms.{json,md}
    python bench/workplace_synonyms.py --real     # also bench/golden/users-real.jsonl over its real files

Each variant runs in its own process with its own fresh index of samples/docs (the groups are also index
terms), default settings. Retrieval: hit@1 / nDCG@10 of hybrid and of the keyword arm per category and split,
as bench/crossling.py (golden-users split by field, golden-ja/en by `alternate_splits`). Answers: phrase-correct
of the extractive answer per set and split, as bench/answers.py (golden-ja/en by `hash_split`). The groups were
written from general workplace vocabulary before this comparison; nothing in them was chosen on a held-out half.
"""
from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import replace
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import golden_splits, hash_split, machine, write

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# "on": the groups in the index and the questions' keyword search (the default); "on+sentences": also in the
# extractive sentence choice's synonym credit (kotae.answer.ask.SENTENCE_WORKPLACE)
VARIANTS = ("off", "on", "on+sentences")


def measure(variant: str, real: bool, shared: str) -> dict[str, Any]:
    import importlib

    from kotae.search import synonyms
    ask_module = importlib.import_module("kotae.answer.ask")  # the module (kotae.answer.ask is also a function)
    synonyms.WORKPLACE = synonyms.WORKPLACE_FILE if variant != "off" else None
    ask_module.SENTENCE_WORKPLACE = variant == "on+sentences"
    import answers
    import crossling

    from kotae import Kotae
    from kotae.config import SearchSettings, Settings
    from kotae.embed import DEFAULT_ENGINES, get_embedder
    from kotae.eval import load_golden

    embedder = get_embedder(DEFAULT_ENGINES[0])
    settings = {"hybrid": SearchSettings(), "keyword": replace(SearchSettings(), mode="keyword")}
    with tempfile.TemporaryDirectory() as tmp:
        k = Kotae.open(tmp, settings=Settings(), embedder=embedder)
        t0 = time.perf_counter()
        k.index([os.path.join(ROOT, "samples", "docs")])
        index_s = time.perf_counter() - t0
        sets = {n: crossling.items_of(p) for n, p in crossling.SETS.items()}
        retrieval = crossling.run(k, sets, settings)
        ans = []
        for name, path in answers.SETS.items():
            given = golden_splits(os.path.join(ROOT, path))
            for it in load_golden(os.path.join(ROOT, path)):
                if it.answerable:
                    ans.append({"set": name, "split": given.get(it.id) or hash_split(it.id),
                                **answers.diagnose(it, k)})
        if real:
            rsets = {n: crossling.items_of(p) for n, p in crossling.REAL.items()}
            with crossling._real_index(os.path.join(tmp, "real"), shared, embedder) as kr:
                for name, rows in crossling.run(kr, rsets, settings).items():
                    retrieval[name].update(rows)
        k.close()
    return {"retrieval": retrieval, "answers": ans, "index_s": index_s}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--real", action="store_true")
    ap.add_argument("--shared", default=os.path.join(ROOT, "..", "shared", "data"))
    args = ap.parse_args()
    import crossling
    t0 = time.perf_counter()
    with mp.get_context("spawn").Pool(1, maxtasksperchild=1) as pool:
        res = {v: pool.apply(measure, (v, args.real, args.shared)) for v in VARIANTS}
    sets = {n: crossling.items_of(p) for n, p in crossling.SETS.items()}
    if args.real:
        sets.update({n: crossling.items_of(p) for n, p in crossling.REAL.items()})
    groups: dict[str, list[str]] = defaultdict(list)
    for name, its in sets.items():
        for it, split in its:
            for g in (f"{name} all/{split}", f"(pooled) {it.category}/{split}", f"(pooled) all/{split}"):
                groups[g].append(it.id)
    cols = [(v, arm) for arm in ("hybrid", "keyword") for v in VARIANTS[:2]]  # on+sentences retrieves as on
    lines = []
    for metric in ("hit@1", "ndcg@10"):
        lines += [f"Retrieval {metric}:", "", "| group | n | " + " | ".join(f"{a} {v}" for v, a in cols) + " |",
                  "|---" * (2 + len(cols)) + "|"]
        for g in sorted(groups):
            ids = groups[g]
            lines.append(f"| {g} | {len(ids)} | " + " | ".join(
                f"{sum(res[v]['retrieval'][a][i][metric] for i in ids) / len(ids):.3f}" for v, a in cols) + " |")
        lines.append("")
    cells: dict[tuple[str, str], dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for v in VARIANTS:
        for r in res[v]["answers"]:
            cells[(r["set"], r["split"])][v].append(r["correct"])
    lines += ["Extractive answers phrase-correct (hybrid, top 5):", "",
              "| set | split | n | " + " | ".join(VARIANTS) + " |", "|---" * (3 + len(VARIANTS)) + "|"]
    for (s, sp), by in sorted(cells.items()):
        lines.append(f"| {s} | {sp} | {len(by['off'])} | " + " | ".join(
            f"{sum(by[v]) / len(by[v]):.3f}" for v in VARIANTS) + " |")
    m = machine()
    head = (f"kotae's workplace synonym groups off / on / on+sentences (also in the extractive sentence choice), each with its own fresh index of samples/docs (indexing "
            f"{' / '.join(str(round(res[v]['index_s'])) for v in VARIANTS)} s), default settings, top 10, rule 'either', "
            f"answerable questions. Run {time.perf_counter() - t0:.0f} s. Machine: {m['cpu']}, {m['cores']} cores. "
            f"Command: `python bench/workplace_synonyms.py {' '.join(sys.argv[1:])}`.\n\n")
    write("workplace_synonyms", {"machine": m, "results": res}, head + "\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
