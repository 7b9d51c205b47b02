"""Fusion design: which way of combining the dense and keyword arms never loses to the better arm, on any set.

    python bench/fusion_design.py [--data ../shared/data] [--sets jsquad-valid,squad2-dev-half,scifact]
                                  [--queries 1500] [--cache DIR] [--real] [--out fusion_design]

Each question is searched once per arm exactly as kotae's searcher does it (`Searcher.arms`: dense top 50 with
cosines and margin; keyword top 50 of the question with its synonym-group terms, BM25; the keyword coverage);
the lists are cached (--cache), and every fusion rule and parameter is then applied to the same lists.
Parameters are chosen on the fit halves only (BEIR and golden-ja/en: even-numbered questions; the users sets:
their `split` field), by the worst margin over the better arm across sets, then the mean nDCG@10; the
held-out halves are reported. BEIR sets are subsampled to --queries questions with a fixed seed (0).
Writes bench/results/<out>.{json,md}.
"""
from __future__ import annotations

import argparse
import json
import os
import pickle
import random
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import golden_splits, machine, write

from kotae.config import HEADINGS, ChunkSettings, IndexSettings, SearchSettings
from kotae.embed import DEFAULT_ENGINES, get_embedder
from kotae.eval import load_golden
from kotae.eval.beir import load_beir
from kotae.eval.beir_eval import default_index
from kotae.eval.metrics import Retrieved, graded_metrics, hit_at, judge, mrr_at, ndcg_at
from kotae.pipeline import index_paths
from kotae.records import index_records
from kotae.search.fusion import Arms, fuse
from kotae.search.searcher import Searcher
from kotae.store import open_store
from kotae.types import Record

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GOLDEN = {"golden-ja": "samples/golden-ja.jsonl", "golden-en": "samples/golden-en.jsonl",
          "users-ja": "samples/golden-users-ja.jsonl", "users-en": "samples/golden-users-en.jsonl"}
REAL = {"users-real": "bench/golden/users-real.jsonl"}


@dataclass
class Query:
    split: str  # fit / held-out
    arms: Arms
    grade: Callable[[list[int]], dict[str, float]] | None = None  # set after loading (not pickled)
    qrels: dict[str, int] | None = None  # BEIR: corpus id → grade
    files: dict[int, str] | None = None  # BEIR: rowid → corpus id
    units: dict[int, str | None] | None = None  # golden: rowid → evidence unit (None: not a hit)
    evidence: Any = None
    category: str = ""  # golden: the question's category (set after loading)


def metrics(q: Query, ranked: list[int]) -> dict[str, float]:
    if q.qrels is not None and q.files is not None:
        m = graded_metrics([q.files[r] for r in ranked[:100] if r in q.files], q.qrels)
        return {"ndcg@10": m["ndcg@10"], "mrr@10": m["mrr@10"], "hit@1": float(m["mrr@10"] == 1.0)}
    assert q.units is not None
    u = [q.units.get(r) for r in ranked[:10]]
    return {"ndcg@10": ndcg_at(u, q.evidence, "either"), "mrr@10": mrr_at(u), "hit@1": hit_at(u, 1)}


def _units(store, ids: set[int], ev) -> dict[int, str | None]:  # type: ignore[no-untyped-def]
    chunks = store.chunks(sorted(ids))
    return {r: judge([Retrieved(c.file, c.page, c.text)], ev, "either")[0] for r, c in chunks.items()}


def collect_beir(path: str, split: str | None, embedder, index_root: str, n: int) -> list[Query]:  # type: ignore[no-untyped-def]
    data = load_beir(path, split)
    store = open_store(default_index(data.name, embedder.model_id, index_root))
    index_records([Record(d.id, d.passage, d.title) for d in data.corpus], data.name, store, embedder)
    searcher = Searcher(store, embedder)
    queries = data.queries if len(data.queries) <= n else random.Random(0).sample(data.queries, n)
    out = []
    for i, (qid, text) in enumerate(queries):
        a = searcher.arms(text, 50, None)
        ids = [r for r, _ in a.dense] + [r for r, _ in a.keyword]
        files = {r: c.file for r, c in store.chunks(list(set(ids))).items()}
        out.append(Query("fit" if i % 2 == 0 else "held-out", a, qrels=data.qrels[qid], files=files))
    store.close()
    return out


def collect_golden(paths: dict[str, str], store, embedder) -> dict[str, list[Query]]:  # type: ignore[no-untyped-def]
    searcher = Searcher(store, embedder)
    out: dict[str, list[Query]] = {}
    for name, p in paths.items():
        splits = golden_splits(os.path.join(ROOT, p))
        rows = []
        for i, it in enumerate(x for x in load_golden(os.path.join(ROOT, p)) if x.answerable):
            a = searcher.arms(it.question, 50, None)
            ids = {r for r, _ in a.dense} | {r for r, _ in a.keyword}
            rows.append(Query(splits.get(it.id, "fit" if i % 2 == 0 else "held-out"), a,
                              units=_units(store, ids, it.evidence), evidence=it.evidence))
        out[name] = rows
    return out



# --- rules: name → (parameter grid, SearchSettings for one parameter) --------------------------------------
def rules(now: SearchSettings) -> dict[str, list[tuple[str, SearchSettings]]]:
    base = replace(now, fusion="rrf", rrf_k=60, keyword_weight=1.0, keyword_weight_scale=2.0, coverage_power=1.0)
    rrf = [(f"k={k}, kw×{s}·cov", replace(base, fusion="rrf", rrf_k=k, keyword_weight_scale=s))
           for k in (10, 30, 60, 100) for s in (0.5, 1.0, 1.5, 2.0, 3.0)]
    scores = [(f"λ={lam}{', ×2·cov' if cov else ''}", replace(base, fusion="scores", keyword_weight=lam,
                                                               adaptive_keyword_weight=cov))
              for lam in (0.2, 0.3, 0.5, 0.7, 1.0, 1.5) for cov in (True, False)]
    scores += [(f"λ={lam}, ×2·cov^{p}", replace(base, fusion="scores", keyword_weight=lam, coverage_power=p))
               for lam in (0.3, 0.5, 0.7, 1.0, 1.5) for p in (2.0, 3.0)]
    rrf += [(f"k={k}, kw×{sc}·cov^{p}", replace(base, fusion="rrf", rrf_k=k, keyword_weight_scale=sc, coverage_power=p))
            for k in (10, 30, 60) for sc in (1.0, 2.0, 3.0) for p in (2.0, 3.0)]
    agree = [(f"k={k}, kw×{s}·cov, agreement", replace(base, fusion="agreement", rrf_k=k, keyword_weight_scale=s))
             for k in (10, 30, 60) for s in (1.0, 2.0, 3.0)]
    return {"dense": [("", replace(base, mode="dense"))], "keyword": [("", replace(base, mode="keyword"))],
            "kotae before (rrf k=60, kw×2·cov)": [("", base)], "weighted rrf": rrf, "normalised scores": scores,
            "rrf + agreement": agree, "kotae now (the defaults)": [("", now)]}


def evaluate(sets: dict[str, list[Query]], s: SearchSettings) -> dict[str, dict[str, dict[str, float]]]:
    """set → split → mean metrics (split 'all' too)."""
    out: dict[str, dict[str, dict[str, float]]] = {}
    for name, qs in sets.items():
        per: dict[str, list[dict[str, float]]] = {"all": [], "fit": [], "held-out": []}
        for q in qs:
            m = metrics(q, [r for r, _ in fuse(q.arms, s)])
            for g in ("all", q.split) + ((f"{q.category}/{q.split}",) if q.category else ()):
                per.setdefault(g, []).append(m)
        out[name] = {sp: {k: round(sum(r[k] for r in rs) / len(rs), 4) for k in rs[0]} | {"n": len(rs)}
                     for sp, rs in per.items() if rs}
    return out


def margin(res: dict, arms: dict, split: str) -> tuple[float, float]:  # type: ignore[type-arg]
    """(worst nDCG@10 over the better arm across sets, mean nDCG@10) on one split."""
    worst, total = 1.0, 0.0
    for name, r in res.items():
        best = max(arms["dense"][name][split]["ndcg@10"], arms["keyword"][name][split]["ndcg@10"])
        worst = min(worst, r[split]["ndcg@10"] - best)
        total += r[split]["ndcg@10"]
    return round(worst, 4), round(total / len(res), 4)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=os.path.join(ROOT, "..", "shared", "data"))
    ap.add_argument("--sets", default="jsquad-valid,squad2-dev-half,scifact")
    ap.add_argument("--queries", type=int, default=1500, help="BEIR questions per set (seeded sample)")
    ap.add_argument("--cache", default=os.path.join(ROOT, ".kotae-beir", "fusion-design"))
    ap.add_argument("--real", action="store_true", help="also bench/golden/users-real.jsonl (indexes 12 files)")
    ap.add_argument("--heading", default="off", choices=HEADINGS, help="index.chunk.heading of the golden indexes")
    ap.add_argument("--collect-only", action="store_true")
    ap.add_argument("--out", default="fusion_design")
    args = ap.parse_args()
    embedder = get_embedder(DEFAULT_ENGINES[0])
    os.makedirs(args.cache, exist_ok=True)
    sets: dict[str, list[Query]] = {}
    timing: dict[str, float] = {}
    index = IndexSettings(chunk=ChunkSettings(heading=args.heading))
    tag = "" if args.heading == "off" else f"-heading-{args.heading}"

    def samples() -> dict[str, list[Query]]:
        with tempfile.TemporaryDirectory() as tmp:
            store = open_store(tmp)
            index_paths([os.path.join(ROOT, "samples", "docs")], store, embedder, index)
            got = collect_golden(GOLDEN, store, embedder)
            store.close()
        return got
    sets.update(_cached(args.cache, "golden" + tag, timing, samples))

    beir_split = {"scifact": "train"}
    for folder in filter(None, args.sets.split(",")):
        sets[folder] = _cached(args.cache, folder, timing, lambda f=folder: collect_beir(
            os.path.join(args.data, f), beir_split.get(f), embedder, os.path.join(ROOT, ".kotae-beir"), args.queries))

    if args.real:
        def real() -> dict[str, list[Query]]:
            with open(os.path.join(ROOT, REAL["users-real"]), encoding="utf-8") as f:
                files = sorted({d["file"] for d in map(json.loads, filter(str.strip, f)) if d.get("file")})
            with tempfile.TemporaryDirectory() as tmp:
                store = open_store(tmp)
                index_paths([os.path.join(args.data, "samples", p) for p in files], store, embedder, index,
                            names={os.path.join(args.data, "samples", p): p for p in files})
                got = collect_golden(REAL, store, embedder)
                store.close()
            return got
        sets.update(_cached(args.cache, "real" + tag, timing, real))
    if args.collect_only:
        return 0
    for name, p in {**GOLDEN, **REAL}.items():  # categories by position (the lists hold the answerable items)
        if name in sets:
            for q, it in zip(sets[name], [x for x in load_golden(os.path.join(ROOT, p)) if x.answerable], strict=True):
                q.category = it.category
    base = SearchSettings()
    results: dict[str, dict[str, Any]] = {}
    for family, grid in rules(base).items():
        scored = [(label, evaluate(sets, s)) for label, s in grid]
        results[family] = {label: r for label, r in scored}
    arms = {"dense": results["dense"][""], "keyword": results["keyword"][""]}
    chosen = {fam: max(grid, key=lambda lab: margin(grid[lab], arms, "fit")) for fam, grid in results.items()}
    write(args.out, {"machine": machine(), "timing_s": timing, "chosen": chosen, "results": results},
          report(sets, results, chosen, arms, timing, args))
    return 0


def _cached(cache: str, name: str, timing: dict[str, float], make: Callable[[], Any]) -> Any:
    path = os.path.join(cache, f"{name}.pickle")
    if os.path.exists(path):
        with open(path, "rb") as f:
            return pickle.load(f)
    t0 = time.perf_counter()
    got = make()
    timing[name] = round(time.perf_counter() - t0, 1)
    print(f"collected {name} in {timing[name]} s", file=sys.stderr, flush=True)
    with open(path, "wb") as f:
        pickle.dump(got, f)
    return got


def report(sets, results, chosen, arms, timing, args) -> str:  # type: ignore[no-untyped-def]
    m = machine()
    names = list(sets)
    head = ("| rule (parameter chosen on fit) | worst Δ vs better arm fit / held-out | "
            + " | ".join(f"{n} fit / held-out" for n in names) + " |")
    lines = [f"Fusion rules over the same arm lists (`Searcher.arms`: top 50 each, synonyms on, default index), "
             f"{DEFAULT_ENGINES[0]}. nDCG@10 (BEIR graded; golden rule 'either'). BEIR sets subsampled (seed 0) to at most "
             f"{args.queries} questions (seed 0), split even/odd; golden-ja/en even/odd; users sets by their "
             f"split field. Golden indexes: index.chunk.heading = {args.heading}. n per set: " + ", ".join(f"{n} {len(q)}" for n, q in sets.items())
             + f". Collection seconds {timing}. Machine: {m['cpu']}, {m['cores']} cores. "
             f"Command: `python bench/fusion_design.py {' '.join(sys.argv[1:])}`.", "", head,
             "|---" * (len(names) + 2) + "|"]
    for fam, lab in chosen.items():
        r = results[fam][lab]
        wf, _ = margin(r, arms, "fit")
        wh, _ = margin(r, arms, "held-out")
        cells = [f"{r[n]['fit']['ndcg@10']:.3f} / {r[n]['held-out']['ndcg@10']:.3f}" for n in names]
        lines.append(f"| {fam}{' (' + lab + ')' if lab else ''} | {wf:+.3f} / {wh:+.3f} | " + " | ".join(cells) + " |")
    cats = [(n, g) for n in names if n.startswith("users") for g in sorted(results["dense"][""][n])
            if "/" in g]
    if cats:
        lines += ["", "Users sets, hit@1 per category (held-out; n in brackets), the chosen parameters:", "",
                  "| rule | " + " | ".join(f"{n} {g.split('/')[0]} ({results['dense'][''][n][g]['n']})"
                                           for n, g in cats if g.endswith("held-out")) + " |",
                  "|---" * (1 + sum(g.endswith("held-out") for _, g in cats)) + "|"]
        for fam, lab in chosen.items():
            r = results[fam][lab]
            lines.append(f"| {fam} | " + " | ".join(f"{r[n][g]['hit@1']:.2f}" for n, g in cats
                                                     if g.endswith("held-out")) + " |")
    lines += ["", "Every parameter of every rule (fit half: worst Δ vs better arm, mean nDCG@10):", "",
              "| rule | parameter | worst Δ fit | mean fit | worst Δ held-out | mean held-out |", "|---|---|---|---|---|---|"]
    for fam, grid in results.items():
        for lab, r in grid.items():
            wf, mf = margin(r, arms, "fit")
            wh, mh = margin(r, arms, "held-out")
            lines.append(f"| {fam} | {lab} | {wf:+.3f} | {mf:.3f} | {wh:+.3f} | {mh:.3f} |")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
