"""Questions in one language over documents in the other, in one mixed index: translation variants side by side.

    python bench/crossling_mixed.py --shared ../shared/data     # writes bench/results/crossling_mixed.{json,md}

One index holds samples/docs (Japanese rules and FAQ, some English) and the real files of <shared>/samples
(mostly English PDFs, DOCX, CSV, XLSX, PPTX), as `bench/answers.py --real` builds it (kept in
.kotae-bench/crossling-mixed). Each variant sets the lexicon's module switches (which question languages are
translated, at what weight, and whose translations also lift the dense search), then recalibrates the gate on the bundled
negatives (its null depends on the evidence the translations add) and asks every question of the golden sets
(samples) and the real-file sets: retrieval (a must_contain phrase in the top 1 / top 5 passages), false
refusals, and phrase-correct extractive answers, per set and split. Choices are made on the fit halves;
held-out halves are reported, users-real2 is a test set never used for a choice. Unanswerable questions:
the share refused.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from collections import defaultdict
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import answers as ans
from common import golden_splits, hash_split, machine, write

from kotae import Kotae
from kotae.chunking.lang import detect_lang
from kotae.config import Settings
from kotae.embed import DEFAULT_ENGINES, get_embedder
from kotae.eval import load_golden
from kotae.eval.metrics import holds
from kotae.search import lexicon, searcher

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# name → (lexicon.SOURCES, lexicon.SOURCE_WEIGHT["ja"], lexicon.DENSE_SOURCES[, lexicon.COVERAGE_SOURCES]). Variants measured and dropped
# (commits c9082cb and d0bcb33 have their code): every word of a Japanese question (verbs too), its nouns only when a share of
# them occur in no chunk, or only when their translations' best hits hold more of them than its own hits do.
VARIANTS: dict[str, tuple[Any, ...]] = {
    "en only (before)": (("en",), 1.0, ("en",)),
    "ja nouns w1 + dense": (("en", "ja"), 1.0, ("en", "ja")),
    "ja nouns w0.3 + dense": (("en", "ja"), 0.3, ("en", "ja")),
    "ja nouns w1": (("en", "ja"), 1.0, ("en",)),
    "ja nouns w0.3 + gate coverage": (("en", "ja"), 0.3, ("en",), ("en", "ja")),
    "ja nouns w0.3": (("en", "ja"), 0.3, ("en",), ("en",), ("en",)),
    # the keyword weight in fusion (not the gate) counting the Japanese question's words its hits hold in English
    "ja nouns w0.3 + fusion coverage (default)": (("en", "ja"), 0.3, ("en",), ("en",), ("en", "ja")),
}


def score(k: Kotae, names: list[str]) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for name in names:
        path = os.path.join(ROOT, ans.SETS[name])
        given = golden_splits(path)
        for it in load_golden(path):
            split = "test" if name == "users-real2" else given.get(it.id) or hash_split(it.id)
            row = {"set": name, "split": split, "id": it.id, "answerable": it.answerable,
                   "category": it.category, "lang": detect_lang(it.question)}
            if not it.answerable:
                row["refused"] = not k.search(it.question, mode="hybrid", top_k=ans.ANSWER_K).gate.found
                rows.append(row)
                continue
            hits = k.search(it.question, mode="hybrid", top_k=ans.ANSWER_K).hits
            phrases = [p for p in it.evidence.phrases if p]
            ranks = [n for n, h in enumerate(hits, 1) if any(holds(h.chunk.text, p) for p in phrases)]
            d = ans.diagnose(it, k)
            rows.append({**row, "at1": float(bool(ranks) and ranks[0] == 1), "at5": float(bool(ranks)),
                         "refused": d["why"] == "refused", "correct": d["correct"]})
    return rows


def table(results: dict[str, list[dict[str, Any]]]) -> list[str]:
    names = list(results)
    cells: dict[tuple[str, str], dict[str, list[dict[str, Any]]]] = defaultdict(lambda: defaultdict(list))
    for v, rows in results.items():
        for r in rows:
            cells[(r["set"], r["split"])][v].append(r)
    out = ["| set | split | n (unanswerable) | " + " | ".join(names) + " |", "|---" * (3 + len(names)) + "|"]
    pooled: dict[str, dict[str, list[dict[str, Any]]]] = defaultdict(lambda: defaultdict(list))
    for (s, sp), by in sorted(cells.items()):
        first = by[names[0]]
        n_ans = sum(r["answerable"] for r in first)
        out.append(f"| {s} | {sp} | {n_ans} ({len(first) - n_ans}) | " + " | ".join(_cell(by[v]) for v in names) + " |")
        for v in names:
            pooled[sp][v] += by[v]
    for sp, by in sorted(pooled.items()):
        out.append(f"| **all** | **{sp}** | {sum(r['answerable'] for r in by[names[0]])} | "
                   + " | ".join(_cell(by[v]) for v in names) + " |")
    return out


def _cell(rows: list[dict[str, Any]]) -> str:
    """@1 / @5 retrieval, answers right, answerable refused; unanswerable refused."""
    a = [r for r in rows if r["answerable"]]
    u = [r for r in rows if not r["answerable"]]
    if not a:
        return f"unans. refused {sum(r['refused'] for r in u)}/{len(u)}"
    part = (f"{sum(r['at1'] for r in a):.0f} / {sum(r['at5'] for r in a):.0f} / "
            f"**{sum(r['correct'] for r in a):.0f}** / {sum(r['refused'] for r in a)}")
    return part + (f"; {sum(r['refused'] for r in u)}/{len(u)}" if u else "")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shared", default=os.path.join(ROOT, "..", "shared", "data"))
    ap.add_argument("--index", default=os.path.join(ROOT, ".kotae-bench", "crossling-mixed"))
    ap.add_argument("--variants", default=",".join(VARIANTS))
    ap.add_argument("--sets", default=",".join(ans.SETS))
    args = ap.parse_args()
    t0 = time.perf_counter()
    embedder = get_embedder(DEFAULT_ENGINES[0])
    results: dict[str, list[dict[str, Any]]] = {}
    calibration: dict[str, str] = {}
    saved = lexicon.SOURCES, dict(lexicon.SOURCE_WEIGHT), lexicon.DENSE_SOURCES, lexicon.COVERAGE_SOURCES
    fusion_sources = searcher.FUSION_COVERAGE_SOURCES
    with Kotae.open(args.index, settings=Settings(), embedder=embedder) as k:
        if not k.documents():
            k.index([os.path.join(ROOT, "samples", "docs"),
                     *[os.path.join(args.shared, "samples", f) for f in ans.REAL]])
        try:
            for v in args.variants.split(","):
                lexicon.SOURCES, lexicon.SOURCE_WEIGHT["ja"], lexicon.DENSE_SOURCES, *cov = VARIANTS[v]
                lexicon.COVERAGE_SOURCES = tuple(cov[0]) if cov else ("en",)
                searcher.FUSION_COVERAGE_SOURCES = tuple(cov[1]) if len(cov) > 1 else ("en",)
                k.self_calibrate(force=True)
                calibration[v] = k.calibration().describe()
                results[v] = score(k, args.sets.split(","))
                print(v, f"{time.perf_counter() - t0:.0f} s", file=sys.stderr)
        finally:
            lexicon.SOURCES, lexicon.SOURCE_WEIGHT, lexicon.DENSE_SOURCES, lexicon.COVERAGE_SOURCES = saved
            searcher.FUSION_COVERAGE_SOURCES = fusion_sources
            k.self_calibrate(force=True)
    m = machine()
    head = (f"Translation variants over one index of samples/docs + the real files of <shared>/samples, "
            f"{embedder.model_id}, hybrid, top {ans.ANSWER_K}, the gate recalibrated per variant. Each answerable "
            f"cell: phrase in passage 1 / in the top {ans.ANSWER_K} / **answer phrase-correct** / refused; after "
            f"';' the unanswerable questions refused. users-real2 is the test set (split 'test'). Run "
            f"{time.perf_counter() - t0:.0f} s. Machine: {m['cpu']}, {m['cores']} cores. Command: "
            f"`python bench/crossling_mixed.py {' '.join(sys.argv[1:])}`.\n\n")
    cal = ["", "Gate per variant:", ""] + [f"- {v}: {c}" for v, c in calibration.items()]
    write("crossling_mixed", {"machine": m, "results": results, "calibration": calibration},
          head + "\n".join(table(results) + cal))
    return 0


if __name__ == "__main__":
    sys.exit(main())
