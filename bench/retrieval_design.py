"""Retrieval design choices on the golden sets: synonyms (off / query-side phrases / index-side group terms,
and their weight), per-query arm trust, the low-information penalty and same-section neighbours.

    python bench/retrieval_design.py [--shared ../shared/data] [--index-root DIR] [--real] [--only "A|B"]

Indexes samples/docs once without synonym group terms and derives a copy with them (same chunks and
vectors); with --real also the real files bench/golden/users-real.jsonl names. Each variant is searched
over the same indexes (retrieval only, top 10, rule 'either'): hit@1 for all questions and per split
(sets with a `split` field: choose on fit, report held-out), nDCG@10, hit@1 per category and split.
Writes bench/results/retrieval_design.{json,md} (--out for another name).
"""
from __future__ import annotations

import argparse
import os
import shutil
import sqlite3
import sys
import tempfile
import time
from dataclasses import replace

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import golden_splits, machine, write

from kotae import Kotae
from kotae.config import IndexSettings, SearchSettings, Settings
from kotae.embed import DEFAULT_ENGINES, get_embedder
from kotae.eval import load_golden, run_golden
from kotae.search.synonyms import bundled, with_group_terms
from kotae.store.sqlite import DB_NAME

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_SETS = ("samples/golden-ja.jsonl,samples/golden-en.jsonl,samples/golden-users-ja.jsonl,"
                "samples/golden-users-en.jsonl,bench/golden/users-real.jsonl")
REAL = "bench/golden/users-real.jsonl"  # over real files of <shared>/samples, not samples/docs
COLS = ("hit@1", "hit@3", "mrr@10", "ndcg@10")


def variants(base: SearchSettings) -> dict[str, tuple[str, SearchSettings, str]]:
    """name → (index, search settings, mode). Index "groups" holds synonym group terms (the default), "plain"
    does not (an index made before synonyms: phrases at query time)."""
    off = replace(base, synonyms=False)
    return {
        "dense": ("groups", base, "dense"),
        "keyword, no synonyms": ("groups", off, "keyword"),
        "keyword, synonyms (group terms)": ("groups", base, "keyword"),
        "keyword, synonyms (phrases)": ("plain", base, "keyword"),
        "hybrid, no synonyms (before)": ("groups", off, "hybrid"),
        "hybrid, synonyms (phrases) w0.5": ("plain", base, "hybrid"),
        "hybrid, synonyms w0.3": ("groups", replace(base, synonym_weight=0.3), "hybrid"),
        "hybrid, synonyms w0.5": ("groups", base, "hybrid"),
        "hybrid, synonyms w1.0": ("groups", replace(base, synonym_weight=1.0), "hybrid"),
        "hybrid, synonyms, low-info penalty 0.03": ("groups", replace(base, low_info_penalty=0.03), "hybrid"),
        "hybrid, synonyms, low-info penalty 0.08": ("groups", replace(base, low_info_penalty=0.08), "hybrid"),
        "hybrid, synonyms, section neighbours 1": ("groups", replace(base, section_neighbours=1), "hybrid"),
        "hybrid, synonyms, section neighbours 3": ("groups", replace(base, section_neighbours=3), "hybrid"),
        "hybrid, synonyms, arm trust": ("groups", replace(base, arm_trust=True), "hybrid"),
        "dense, low-info penalty 0.08": ("groups", replace(base, low_info_penalty=0.08), "dense"),
    }


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sets", default=DEFAULT_SETS)
    ap.add_argument("--shared", default=os.path.join(ROOT, "..", "shared", "data"))
    ap.add_argument("--real", action="store_true", help="also index the real files of users-real (slow)")
    ap.add_argument("--only", default="", help="variant names separated by | (default: all)")
    ap.add_argument("--out", default="retrieval_design")
    ap.add_argument("--index-root", default=None, help="keep the indexes here and reuse them (default: temporary)")
    args = ap.parse_args()
    embedder = get_embedder(DEFAULT_ENGINES[0])
    sets: dict[str, tuple[str, list, dict[str, str]]] = {}  # name → (corpus, answerable items, id → split)
    for p in args.sets.split(","):
        corpus = "real" if p == REAL else "samples"
        sets[os.path.basename(p).removesuffix(".jsonl")] = (
            corpus, [it for it in load_golden(os.path.join(ROOT, p)) if it.answerable], golden_splits(os.path.join(ROOT, p)))
    real = {os.path.join(args.shared, "samples", it.evidence.file): it.evidence.file
            for c, items, _ in sets.values() if c == "real" for it in items if it.evidence.file}
    results: dict[str, dict] = {}
    chosen = set(filter(None, args.only.split("|")))
    timing: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        root = args.index_root or tmp
        indexes: dict[tuple[str, str], Kotae] = {}
        for corpus, kind in (("samples", "plain"), ("samples", "groups"), ("real", "groups")):
            if corpus == "real" and not (real and args.real):
                continue
            t0 = time.perf_counter()
            if kind == "groups" and corpus == "samples":  # the same chunks and vectors: derive, don't re-embed
                _derive_groups(os.path.join(root, "samples-plain"), os.path.join(root, "samples-groups"))
            k = Kotae.open(os.path.join(root, f"{corpus}-{kind}"), settings=Settings(index=IndexSettings(
                synonym_terms=kind == "groups")), embedder=embedder)
            if corpus == "samples":
                k.index([os.path.join(ROOT, "samples", "docs")])
            else:
                k.index(list(real), names=real)
            timing[f"{corpus}-{kind}"] = round(time.perf_counter() - t0, 1)
            indexes[corpus, kind] = k
        for vname, (iname, search, mode) in variants(SearchSettings()).items():
            if chosen and vname not in chosen:
                continue
            row = {}
            for sname, (corpus, items, split) in sets.items():
                if (corpus, iname) not in indexes:
                    continue
                k = indexes[corpus, iname].using(settings=Settings(search=search))
                per = run_golden(items, k, mode=mode, answers=False).per_question
                row[sname] = _groups(per, split)
            results[vname] = row
            print(vname, {s: r["all"]["hit@1"] for s, r in row.items()}, flush=True)
        for k in indexes.values():
            k.close()
    m = machine()
    lines = [(f"Golden sets {', '.join(sets)} (answerable questions; users sets reported per split: tune on fit, "
             f"report held-out); samples/docs for the sample sets, the real files of ../shared/data/samples "
             f"for users-real; {embedder.model_id}; index seconds {timing}. Machine: {m['cpu']}, {m['cores']} "
             f"cores. Command: `python bench/retrieval_design.py {' '.join(sys.argv[1:])}`."), "",
             "hit@1 (rule 'either'), all / fit / held-out:", "",
             "| variant | " + " | ".join(sets) + " |", "|---" * (len(sets) + 1) + "|"]
    for vname, row in results.items():
        lines.append(f"| {vname} | " + " | ".join(
            " / ".join(_f(row[s].get(g, {}).get("hit@1")) for g in ("all", "fit", "held-out")) if s in row else "–"
            for s in sets) + " |")
    lines += ["", "nDCG@10, all questions:", "", "| variant | " + " | ".join(sets) + " |",
              "|---" * (len(sets) + 1) + "|"]
    for vname, row in results.items():
        lines.append(f"| {vname} | " + " | ".join(_f(row[s]["all"]["ndcg@10"]) if s in row else "–" for s in sets)
                     + " |")
    for sname in sets:
        cats = sorted({g for row in results.values() for g in row.get(sname, {}) if "/" in g})
        if not cats:
            continue
        lines += ["", f"{sname}: hit@1 per category/split (n in the header):", "",
                  "| variant | " + " | ".join(
                      f"{c} ({next(r[sname][c]['n'] for r in results.values() if c in r.get(sname, {}))})"
                      for c in cats) + " |", "|---" * (len(cats) + 1) + "|"]
        for vname, row in results.items():
            if sname in row:
                lines.append(f"| {vname} | " + " | ".join(_f(row[sname].get(c, {}).get("hit@1")) for c in cats) + " |")
    write(args.out, {"machine": m, "sets": args.sets, "index_s": timing, "results": results}, "\n".join(lines))
    print("\n".join(lines))
    return 0


def _derive_groups(plain: str, groups: str) -> None:
    """An index with synonym group terms made from one without: the same file, its keyword text extended."""
    if os.path.exists(os.path.join(groups, DB_NAME)):
        return
    src = sqlite3.connect(os.path.join(plain, DB_NAME))
    src.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    src.close()
    os.makedirs(groups, exist_ok=True)
    shutil.copy(os.path.join(plain, DB_NAME), os.path.join(groups, DB_NAME))
    db = sqlite3.connect(os.path.join(groups, DB_NAME))
    rows = db.execute("SELECT rowid, tokens FROM chunk_fts").fetchall()
    db.execute("DELETE FROM chunk_fts")
    db.executemany("INSERT INTO chunk_fts(rowid, tokens) VALUES(?, ?)",
                   [(r, with_group_terms(t, bundled())) for r, t in rows])
    db.execute("UPDATE meta SET value='1' WHERE key='synonym_terms'")
    db.commit()
    db.close()


def _groups(per: list[dict], split: dict[str, str]) -> dict[str, dict]:
    """Mean hit@1 / mrr@10 / ndcg@10 over all, each split, each category and category/split."""
    groups: dict[str, list[dict]] = {}
    for r in per:
        sp = split.get(r["id"])
        keys = ["all", r["category"]] + ([sp, f"{r['category']}/{sp}"] if sp else [])
        for g in keys:
            groups.setdefault(g, []).append(r)
    return {g: {"n": len(rs), **{c: round(sum(r[c] for r in rs) / len(rs), 4) for c in COLS}}
            for g, rs in groups.items()}



def _f(v: object) -> str:
    return "–" if v is None else f"{v:.3f}" if isinstance(v, float) else str(v)


if __name__ == "__main__":
    sys.exit(main())
