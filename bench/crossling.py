"""Cross-lingual and paraphrase retrieval: per-question diagnosis of both arms and search variants, fit / held-out.

    python bench/crossling.py                    # writes bench/results/crossling.{json,md}
    python bench/crossling.py --diagnose         # also prints every missed fit question's ranks per arm
    python bench/crossling.py --real             # also bench/golden/users-real.jsonl over its real files
    python bench/crossling.py --answers          # also extractive answer correctness per slot setting

Sets: samples/golden-ja/en.jsonl and samples/golden-users-ja/en.jsonl over one index of samples/docs (kept in
.kotae-bench/crossling between runs; delete it after changing the indexer). Split: golden-users' own field;
golden-ja/en by the same rule (`common.alternate_splits`: fit / held-out alternately within each category, in
file order). Variants are SearchSettings changes, chosen on the fit halves only; held-out is reported. Retrieval
only (top 10, hit rule 'either'), answerable questions. --real: a second index of the files users-real names
(under <--shared>/samples, kept in .kotae-bench/crossling-real), split by its field.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import defaultdict
from dataclasses import replace
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import alternate_splits, machine, write

from kotae import Kotae
from kotae.chunking.lang import detect_lang
from kotae.config import SearchSettings, Settings
from kotae.embed import DEFAULT_ENGINES, get_embedder
from kotae.eval import load_golden, run_golden
from kotae.eval.metrics import Retrieved, retrieval_metrics
from kotae.pipeline import index_paths
from kotae.search.analyze import analyze
from kotae.search.synonyms import bundled, matches

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SETS = {"golden-ja": "samples/golden-ja.jsonl", "golden-en": "samples/golden-en.jsonl",
        "users-ja": "samples/golden-users-ja.jsonl", "users-en": "samples/golden-users-en.jsonl",
        "users2-ja": "samples/golden-users2-ja.jsonl", "users2-en": "samples/golden-users2-en.jsonl",
        "users3-ja": "samples/golden-users3-ja.jsonl", "users3-en": "samples/golden-users3-en.jsonl",
        "users4-en": "samples/golden-users4-en.jsonl"}
REAL = {"users-real": "bench/golden/users-real.jsonl"}
FOCUS = ("cross-lingual", "paraphrase")
METRICS = ("hit@1", "hit@3", "hit@5", "ndcg@10")


def variants(base: SearchSettings) -> dict[str, SearchSettings]:
    """name → settings: before (slots off), the defaults, each arm alone, and the slot grid."""
    out = {"before": replace(base, other_language_slots=0), "now": base,
           "dense": replace(base, mode="dense"), "keyword": replace(base, mode="keyword")}
    for slots, rank in ((1, 2), (1, 3), (2, 2), (2, 3), (1, 4), (1, 5), (2, 4)):
        out[f"slots{slots}@{rank}"] = replace(base, other_language_slots=slots, other_language_rank=rank)
    return out


def items_of(path: str) -> list[tuple[Any, str]]:
    items = load_golden(os.path.join(ROOT, path))
    splits = alternate_splits(os.path.join(ROOT, path))
    return [(it, splits[it.id]) for it in items if it.answerable]


def rank_of(found: list[Retrieved], ev) -> tuple[int | None, dict[str, float]]:  # type: ignore[no-untyped-def]
    m = retrieval_metrics(found, ev, "either")
    return (round(1 / m["mrr@10"]) if m["mrr@10"] else None), m


def run(k: Kotae, sets: dict[str, list], settings: dict[str, SearchSettings]) -> dict[str, dict]:
    """variant → qid → {rank, hit@1, ndcg@10, top_lang}."""
    out: dict[str, dict] = {}
    for name, s in settings.items():
        door = k.using(settings=Settings(search=s))
        rows = {}
        for its in sets.values():
            for it, _ in its:
                res = door.search(it.question, top_k=10)
                found = [Retrieved(h.chunk.file, h.chunk.page, h.chunk.text) for h in res.hits]
                r, m = rank_of(found, it.evidence)
                rows[it.id] = {"rank": r, **{k: m[k] for k in METRICS},
                               "top_lang": detect_lang(res.hits[0].chunk.text) if res.hits else None}
        out[name] = rows
    return out


def table(sets: dict[str, list], results: dict[str, dict]) -> list[str]:
    groups: dict[str, list[str]] = defaultdict(list)
    for set_name, its in sets.items():
        for it, split in its:
            groups[f"{set_name} all/{split}"].append(it.id)
            groups[f"{set_name} {it.category}/{split}"].append(it.id)
            groups[f"(pooled) {it.category}/{split}"].append(it.id)
            groups[f"(pooled) all/{split}"].append(it.id)
    names = list(results)
    lines = []
    for metric in METRICS:
        lines += [f"{metric}:", "", "| group | n | " + " | ".join(names) + " |", "|---" * (2 + len(names)) + "|"]
        for g in sorted(groups):
            ids = groups[g]
            lines.append(f"| {g} | {len(ids)} | " + " | ".join(
                f"{sum(results[n][i][metric] for i in ids) / len(ids):.3f}" for n in names) + " |")
        lines.append("")
    return lines


def diagnose(sets: dict[str, list], results: dict[str, dict]) -> list[str]:
    syn = bundled()
    lines = [("| id | split | category | question | dense rank | keyword rank | hybrid rank (before) | top-1 lang | "
             "synonym entries (group) |"), "|---|---|---|---|---|---|---|---|---|"]
    for its in sets.values():
        for it, split in its:
            if split != "fit" or results["before"][it.id]["hit@1"] == 1.0:
                continue
            toks = analyze(it.question)
            ent = [" ".join(toks[a:b]) + f"({g})" for a, b, g in matches(toks, syn, query=True)]
            r = {n: results[n][it.id]["rank"] for n in ("dense", "keyword", "before")}
            lines.append(f"| {it.id} | {split} | {it.category} | {it.question} | {r['dense']} | {r['keyword']} | "
                         f"{r['before']} | {results['before'][it.id]['top_lang']} | {', '.join(ent)} |")
    return lines


ANSWER_VARIANTS = ("before", "slots2@2", "slots1@3", "slots1@4", "slots2@4", "slots1@5")


def answers(k: Kotae, settings: dict[str, SearchSettings]) -> list[str]:
    """Share of answerable questions whose extractive answer (gate + top 5, hybrid) holds the expected phrase,
    per set and split, for ANSWER_VARIANTS."""
    lines = ["| setting | " + " | ".join(f"{n} {sp}" for n in SETS for sp in ("fit", "held-out")) + " |",
             "|---" * (1 + 2 * len(SETS)) + "|"]
    for name in ANSWER_VARIANTS:
        door = k.using(settings=Settings(search=settings[name]))
        cells = []
        for p in SETS.values():
            split = alternate_splits(os.path.join(ROOT, p))
            rows = [r for r in run_golden(load_golden(os.path.join(ROOT, p)), door, mode="hybrid").per_question
                    if r["answerable"]]
            for sp in ("fit", "held-out"):
                rs = [r for r in rows if split[r["id"]] == sp]
                cells.append(f"{sum(r['correct'] for r in rs) / len(rs):.3f}")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return lines


def _real_index(path: str, shared: str, embedder) -> Kotae:  # type: ignore[no-untyped-def]
    """The index of the real files users-real names, under their paths relative to <shared>/samples."""
    fresh = not os.path.isdir(path)
    k = Kotae.open(path, settings=Settings(), embedder=embedder)
    if fresh:
        with open(os.path.join(ROOT, REAL["users-real"]), encoding="utf-8") as f:
            files = sorted({d["file"] for d in map(json.loads, filter(str.strip, f)) if d.get("file")})
        full = {os.path.join(shared, "samples", p): p for p in files}
        index_paths(list(full), k.store, embedder, Settings().index, names=full)
    return k


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--index", default=os.path.join(ROOT, ".kotae-bench", "crossling"))
    ap.add_argument("--diagnose", action="store_true")
    ap.add_argument("--out", default="crossling")
    ap.add_argument("--real", action="store_true")
    ap.add_argument("--answers", action="store_true", help="extractive answers (top 5) per slot setting: the "
                    "constraint the default was chosen under")
    ap.add_argument("--shared", default=os.path.join(ROOT, "..", "shared", "data"))
    args = ap.parse_args()
    embedder = get_embedder(DEFAULT_ENGINES[0])
    fresh = not os.path.isdir(args.index)
    k = Kotae.open(args.index, settings=Settings(), embedder=embedder)
    t0 = time.perf_counter()
    if fresh:
        k.index([os.path.join(ROOT, "samples", "docs")])
    index_s = time.perf_counter() - t0
    sets = {n: items_of(p) for n, p in SETS.items()}
    t0 = time.perf_counter()
    results = run(k, sets, variants(SearchSettings()))
    if args.real:
        real = {n: items_of(p) for n, p in REAL.items()}
        with _real_index(args.index + "-real", args.shared, embedder) as kr:
            for name, rows in run(kr, real, variants(SearchSettings())).items():
                results[name].update(rows)
        sets.update(real)
    search_s = time.perf_counter() - t0
    lines = table(sets, results)
    if args.answers:
        lines += ["Extractive answers correct (hybrid, answers from the top 5):", "",
                  *answers(k, variants(SearchSettings())), ""]
    diag = diagnose(sets, results)
    if args.diagnose:
        print("\n".join(diag))
    m = machine()
    head = (f"Cross-lingual / paraphrase variants over samples/docs (default index), {embedder.model_id}, "
            f"top 10, rule 'either', answerable questions; split golden-users by field, golden-ja/en by "
            f"`alternate_splits`. Index {index_s:.0f} s, searches {search_s:.0f} s. Machine: {m['cpu']}, "
            f"{m['cores']} cores. Command: `python bench/crossling.py {' '.join(sys.argv[1:])}`.\n\n")
    write(args.out, {"machine": m, "results": results},
          head + "\n".join(lines) + "\n\nMissed fit questions (hybrid 'before' not at rank 1; ranks from 1, None: not in the top 10):\n\n" + "\n".join(diag))
    k.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
