"""Retrieval design choices on the golden sets: synonyms (off / query-side phrases / index-side group terms,
and their weight), fusion trust, low-information chunks and same-section neighbours.

    python bench/retrieval_design.py [--sets samples/golden-ja.jsonl,samples/golden-en.jsonl,...] [--split fit]

Indexes samples/docs (and, when a set names them, the real documents of ../shared/data/samples it cites,
see --extra-docs) twice with the default settings: once as today, once with index-side synonym group terms.
Each variant is searched over the same index (retrieval only, top 10, rule 'either'); hit@1, MRR@10 and
nDCG@10 per set and category. `--split fit|held-out` keeps only the questions of that split (sets that
carry a `split` field). Writes bench/results/retrieval_design.{json,md}.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from dataclasses import replace

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import machine, write

from kotae import Kotae
from kotae.config import IndexSettings, SearchSettings, Settings
from kotae.embed import DEFAULT_ENGINES, get_embedder
from kotae.eval import load_golden, run_golden

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_SETS = "samples/golden-ja.jsonl,samples/golden-en.jsonl"
COLS = ("hit@1", "hit@3", "mrr@10", "ndcg@10")


def variants(base: SearchSettings) -> dict[str, tuple[str, SearchSettings, str]]:
    """name → (index, search settings, mode)."""
    out: dict[str, tuple[str, SearchSettings, str]] = {
        "dense": ("plain", base, "dense"),
        "keyword, no synonyms": ("plain", replace(base, synonyms=False), "keyword"),
        "keyword, synonym phrases w0.5": ("plain", base, "keyword"),
        "keyword, synonym groups w0.5": ("groups", base, "keyword"),
        "hybrid, no synonyms": ("plain", replace(base, synonyms=False), "hybrid"),
    }
    for w in (0.3, 0.5, 1.0):
        out[f"hybrid, synonym phrases w{w}"] = ("plain", replace(base, synonym_weight=w), "hybrid")
        out[f"hybrid, synonym groups w{w}"] = ("groups", replace(base, synonym_weight=w), "hybrid")
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sets", default=DEFAULT_SETS)
    ap.add_argument("--split", default=None, help="fit or held-out: only that split's questions")
    ap.add_argument("--extra-docs", default="", help="comma-separated files/folders indexed beside samples/docs")
    ap.add_argument("--only", default="", help="comma-separated variant names (default: all)")
    ap.add_argument("--out", default="retrieval_design")
    ap.add_argument("--index-root", default=None, help="keep the indexes here and reuse them (default: temporary)")
    args = ap.parse_args()
    embedder = get_embedder(DEFAULT_ENGINES[0])
    sets = {}
    for p in args.sets.split(","):
        split = _splits(os.path.join(ROOT, p))
        sets[os.path.basename(p).removesuffix(".jsonl")] = [
            it for it in load_golden(os.path.join(ROOT, p))
            if it.answerable and (args.split is None or split.get(it.id, args.split) == args.split)]
    docs = [os.path.join(ROOT, "samples", "docs")] + [d for d in args.extra_docs.split(",") if d]
    results: dict[str, dict] = {}
    chosen = set(filter(None, args.only.split(",")))
    with tempfile.TemporaryDirectory() as tmp:
        tmp = args.index_root or tmp
        indexes: dict[str, Kotae] = {}
        timing = {}
        for name in ("plain", "groups"):
            t0 = time.perf_counter()
            k = Kotae.open(os.path.join(tmp, name), settings=Settings(index=IndexSettings(
                synonym_terms=name == "groups")), embedder=embedder)
            k.index(docs)
            timing[name] = time.perf_counter() - t0
            indexes[name] = k
        for vname, (iname, search, mode) in variants(SearchSettings()).items():
            if chosen and vname not in chosen:
                continue
            k = indexes[iname].using(settings=Settings(search=search))
            row = {}
            for sname, items in sets.items():
                s = run_golden(items, k, mode=mode, answers=False).summary()
                row[sname] = {"overall": {c: s["overall"].get(c) for c in ("n", *COLS)},
                              "categories": {cat: {c: m.get(c) for c in ("n", *COLS)}
                                             for cat, m in s["categories"].items()}}
            results[vname] = row
            print(vname, {s: round(r["overall"]["hit@1"], 3) for s, r in row.items()}, flush=True)
        for k in indexes.values():
            k.close()
    m = machine()
    lines = [f"Golden sets {', '.join(sets)} (answerable questions{', split ' + args.split if args.split else ''}); "
             f"documents: {', '.join(os.path.relpath(d, ROOT) for d in docs)}; {embedder.model_id}; index "
             f"{timing['plain']:.0f} s plain, {timing['groups']:.0f} s with group terms. Machine: {m['cpu']}, "
             f"{m['cores']} cores. Command: `python bench/retrieval_design.py {' '.join(sys.argv[1:])}`.", "",
             "| variant | " + " | ".join(f"{s} hit@1 / MRR@10 / nDCG@10" for s in sets) + " |",
             "|---" * (len(sets) + 1) + "|"]
    for vname, row in results.items():
        lines.append(f"| {vname} | " + " | ".join(
            f"{_f(r['overall']['hit@1'])} / {_f(r['overall']['mrr@10'])} / {_f(r['overall']['ndcg@10'])}"
            for r in row.values()) + " |")
    cats = sorted({c for row in results.values() for r in row.values() for c in r["categories"]})
    lines += ["", "hit@1 per category:", "", "| variant | " + " | ".join(
        f"{s} {c}" for s in sets for c in cats if any(c in results[v][s]["categories"] for v in results)) + " |"]
    cols = [(s, c) for s in sets for c in cats if any(c in results[v][s]["categories"] for v in results)]
    lines.append("|---" * (len(cols) + 1) + "|")
    for vname, row in results.items():
        lines.append(f"| {vname} | " + " | ".join(
            _f(row[s]["categories"].get(c, {}).get("hit@1")) for s, c in cols) + " |")
    write(args.out, {"machine": m, "sets": args.sets, "split": args.split, "docs": docs, "index_s": timing,
                     "results": results}, "\n".join(lines))
    print("\n".join(lines))
    return 0


def _splits(path: str) -> dict[str, str]:
    """id → split of a golden file's items (those that carry one)."""
    out = {}
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if line.strip() and not line.lstrip().startswith("//"):
                d = json.loads(line)
                if "split" in d:
                    out[str(d.get("id") or n)] = d["split"]
    return out


def _f(v: object) -> str:
    return "–" if v is None else f"{v:.3f}" if isinstance(v, float) else str(v)


if __name__ == "__main__":
    sys.exit(main())
