"""Dense search across languages: the embedding of an English question's translated words (the bundled lexicon,
as keyword search uses them) added to its query vector, at a grid of weights, side by side in one run.

    python bench/translated_dense.py [--real] [--answers]   # writes bench/results/translated_dense.{json,md}

The indexes and sets of bench/translations.py (samples/docs; --real the real files users-real names), the same
split (golden-users by field, golden-ja/en by `alternate_splits`): "off" is the default settings, "dN" sets
search.translation_dense to N. A weight becomes the default only when the fit halves say so; held-out is
reported. --answers: extractive answers phrase-correct for off and d1.0, as bench/translations.py. "dN"
scores only the chunks in the corpus' other language with the mixed vector (the question's own vector the
rest), moved half way (the default `searcher.MATCH_SHARE`) towards the question vector's mean and spread over
them; "matchS dN" moves them the share S of the way (0: not at all). The variants measured worse and removed
(the "all", "own" and adaptive columns of results/translated_dense.md) ran from this script at commit 3796e6c.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from dataclasses import replace

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import crossling
import translations
from common import machine, write

from kotae import Kotae
from kotae.config import SearchSettings
from kotae.embed import DEFAULT_ENGINES, get_embedder
from kotae.search import searcher

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WEIGHTS = (1.0,)
ALL = ("d1.0",)
MATCH_SHARES = (0.0, 1.0)


def variants(base: SearchSettings) -> dict[str, SearchSettings]:
    out = {"off": replace(base, translation_dense=0.0)}
    out.update({f"d{w}": replace(base, translation_dense=w) for w in WEIGHTS})
    out["dense off"] = replace(base, mode="dense", translation_dense=0.0)
    out["dense d1.0"] = replace(base, mode="dense", translation_dense=1.0)
    return out


def search(k: Kotae, sets: dict[str, list], settings: dict[str, SearchSettings]) -> dict[str, dict]:
    """crossling.run (the default `searcher.MATCH_SHARE`), then the other shares of the lift taken back
    (`MATCH_SHARES`)."""
    out = crossling.run(k, sets, settings)
    default = searcher.MATCH_SHARE
    try:
        for share in MATCH_SHARES:
            searcher.MATCH_SHARE = share
            out.update(crossling.run(k, sets, {f"match{share} {n}": settings[n] for n in ALL}))
    finally:
        searcher.MATCH_SHARE = default
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--index", default=os.path.join(ROOT, ".kotae-bench", "translations"))
    ap.add_argument("--real", action="store_true")
    ap.add_argument("--shared", default=os.path.join(ROOT, "..", "shared", "data"))
    ap.add_argument("--answers", action="store_true")
    args = ap.parse_args()
    embedder = get_embedder(DEFAULT_ENGINES[0])
    t0 = time.perf_counter()
    settings = variants(SearchSettings())
    sets, results, extra = translations.run_sets(
        args, embedder, search, settings,
        lambda k: translations.answers(k, settings, ("off", "d1.0")) if args.answers else [])
    m = machine()
    head = (f"Dense search with the question's translated words (search.translation_dense) over samples/docs, "
            f"{embedder.model_id}, top 10, rule 'either', answerable questions. Run {time.perf_counter() - t0:.0f} s. "
            f"Machine: {m['cpu']}, {m['cores']} cores. Command: `python bench/translated_dense.py "
            f"{' '.join(sys.argv[1:])}`.\n\n")
    write("translated_dense", {"machine": m, "results": results}, head + "\n".join(crossling.table(sets, results) + extra))
    return 0


if __name__ == "__main__":
    sys.exit(main())
