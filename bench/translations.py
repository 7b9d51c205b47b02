"""Keyword search in the corpus' other language (the bundled JMdict lexicon) off and on, side by side in one run.

    python bench/translations.py [--real] [--answers]     # writes bench/results/translations.{json,md}

One index of samples/docs (Japanese and English documents; kept in .kotae-bench/translations), --real a second
one of the real files users-real names. Every variant is a SearchSettings change (search.translations: words
per matched phrase, search.translation_weight) searched for real over the sets of bench/crossling.py, split as
there (golden-users by field, golden-ja/en by `alternate_splits`). The variant that became the default was
chosen on the fit halves only; held-out is reported. --answers: extractive answers phrase-correct for off and
the default, as bench/answers.py (golden-ja/en by `hash_split`).
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import replace
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import crossling
from common import golden_splits, hash_split, machine, write

from kotae import Kotae
from kotae.config import SearchSettings, Settings
from kotae.embed import DEFAULT_ENGINES, get_embedder
from kotae.eval import load_golden
from kotae.search import lexicon

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GRID = ((3, 0.3), (3, 0.5), (3, 1.0), (2, 1.0), (5, 1.0))
BOTH_WAYS = ("t3w0.3", "t3w1.0")
ANY = ("t2w1.0", "t3w1.0", "t5w1.0", "keyword t3w1.0")  # each phrase's first translations, held or not  # also run with Japanese questions translated too (lexicon.SOURCES en and ja)


def variants(base: SearchSettings) -> dict[str, SearchSettings]:
    out = {"off": replace(base, translations=0)}
    for per, w in GRID:
        out[f"t{per}w{w}"] = replace(base, translations=per, translation_weight=w)
    out["keyword off"] = replace(base, mode="keyword", translations=0)
    out["keyword t3w1.0"] = replace(base, mode="keyword", translations=3, translation_weight=1.0)
    return out


def search(k: Kotae, sets: dict[str, list], settings: dict[str, SearchSettings]) -> dict[str, dict]:
    """crossling.run with English questions alone translated (as this bench was first run; Japanese questions'
    nouns are translated too since, at their own weight: bench/crossling_mixed.py), then the BOTH_WAYS variants
    with Japanese questions translated at the same weight, then the ANY variants with each phrase's first
    translations whether the corpus holds them or not (`lexicon.HELD_ONLY` off)."""
    default = lexicon.SOURCES
    lexicon.SOURCES = ("en",)
    try:
        out = crossling.run(k, sets, settings)
    finally:
        lexicon.SOURCES = default
    weights = dict(lexicon.SOURCE_WEIGHT)
    lexicon.SOURCE_WEIGHT["ja"] = 1.0
    try:
        out.update(crossling.run(k, sets, {f"both ways {n}": settings[n] for n in BOTH_WAYS}))
    finally:
        lexicon.SOURCE_WEIGHT.update(weights)
    lexicon.SOURCES = ("en",)
    lexicon.HELD_ONLY = False
    try:
        out.update(crossling.run(k, sets, {f"any {n}": settings[n] for n in ANY}))
    finally:
        lexicon.HELD_ONLY = True
        lexicon.SOURCES = default
    return out


def answers(k: Kotae, settings: dict[str, SearchSettings], names: tuple[str, ...]) -> list[str]:
    import answers as ans

    cells: dict[tuple[str, str], dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for v in names:
        door = k.using(settings=Settings(search=settings[v]))
        for name, path in ans.SETS.items():
            given = golden_splits(os.path.join(ROOT, path))
            for it in load_golden(os.path.join(ROOT, path)):
                if it.answerable:
                    cells[(name, given.get(it.id) or hash_split(it.id))][v].append(ans.diagnose(it, door)["correct"])
    lines = ["Extractive answers phrase-correct (hybrid, top 5):", "",
             "| set | split | n | " + " | ".join(names) + " |", "|---" * (3 + len(names)) + "|"]
    for (s, sp), by in sorted(cells.items()):
        lines.append(f"| {s} | {sp} | {len(by[names[0]])} | " + " | ".join(
            f"{sum(by[v]) / len(by[v]):.3f}" for v in names) + " |")
    return lines


def run_sets(args: argparse.Namespace, embedder: Any, search: Callable[..., dict[str, dict]],
             settings: dict[str, SearchSettings], after: Callable[[Kotae], list[str]]) -> tuple[dict, dict, list[str]]:
    """`search` over the crossling sets on the samples index (`args.index`, indexed when new) and, with
    `args.real`, the real-file sets on their own index; `after(k)` runs on the samples index before it closes
    (the answers). Returns (sets, results, what `after` wrote)."""
    with Kotae.open(args.index, settings=Settings(), embedder=embedder) as k:
        if not k.documents():
            k.index([os.path.join(ROOT, "samples", "docs")])
        sets = {n: crossling.items_of(p) for n, p in crossling.SETS.items()}
        results = search(k, sets, settings)
        extra = after(k)
    if args.real:
        real = {n: crossling.items_of(p) for n, p in crossling.REAL.items()}
        with crossling._real_index(args.index + "-real", args.shared, embedder) as kr:
            for name, rows in search(kr, real, settings).items():
                results[name].update(rows)
        sets.update(real)
    return sets, results, extra


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--index", default=os.path.join(ROOT, ".kotae-bench", "translations"))
    ap.add_argument("--real", action="store_true")
    ap.add_argument("--answers", action="store_true")
    ap.add_argument("--shared", default=os.path.join(ROOT, "..", "shared", "data"))
    ap.add_argument("--default", default="t3w1.0", help="the variant --answers compares with off")
    args = ap.parse_args()
    embedder = get_embedder(DEFAULT_ENGINES[0])
    t0 = time.perf_counter()
    settings = variants(SearchSettings())
    sets, results, extra = run_sets(args, embedder, search, settings,
                                    lambda k: answers(k, settings, ("off", args.default)) if args.answers else [])
    lines = crossling.table(sets, results) + extra
    m = machine()
    head = (f"Keyword search in the other language (JMdict lexicon) off and on over samples/docs (default index), "
            f"{embedder.model_id}, top 10, rule 'either', answerable questions; variants tNwW: N words per matched "
            f"phrase at weight W. Run {time.perf_counter() - t0:.0f} s. Machine: {m['cpu']}, {m['cores']} cores. "
            f"Command: `python bench/translations.py {' '.join(sys.argv[1:])}`.\n\n")
    write("translations", {"machine": m, "results": results}, head + "\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
