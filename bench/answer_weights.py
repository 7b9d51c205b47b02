"""The extractive sentence choice's weights, fitted on the fit halves and reported on the held-out halves.

    python bench/answer_weights.py                          # golden sets over samples/docs
    python bench/answer_weights.py --real ../shared/data    # plus users-real over samples/docs + the real files
    python bench/answer_weights.py --index /tmp/a --real-index /tmp/b --real ../shared/data   # reuse indexes

Every answerable question of bench/answers.py's sets is asked once with the default settings; for its first part
the candidate sentences are recorded with what the choice weighs (cosine, keyword share, synonym share, asked
kind held, finer detail held, lead-in, and the share of the sentence's words that are not the question's). A
sentence is right when it holds a must_contain phrase. Then every combination of the grid below re-scores the
recorded candidates and the top sentence is checked: questions where no candidate is right are left out (the
choice cannot help them). The weights are chosen on the fit halves alone (ties: the combination nearest the defaults before);
the held-out halves are only reported; bench/golden/users-real2.jsonl (a test set written after this bench) is never
read here. Answer-level effects are bench/answers.py's to measure.
"""
from __future__ import annotations

import argparse
import itertools
import os
import sys
import tempfile
from collections.abc import Sequence
from typing import Any

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from answers import REAL, ROOT, SETS
from common import golden_splits, hash_split, machine, write

from kotae import Kotae
from kotae.answer import checks, complete, extractive
from kotae.config import Settings
from kotae.embed import DEFAULT_ENGINES, get_embedder
from kotae.eval import load_golden
from kotae.eval.metrics import holds

GRID = {"TYPE_BONUS": (0.05, 0.1, 0.15, 0.2, 0.3), "KEYWORD_WEIGHT": (0.1, 0.15, 0.2, 0.3),
        "NOVELTY": (0.0, 0.05, 0.1)}
BEFORE = (0.05, 0.3, 0.0)  # the defaults before this bench (2026-12-04): ties on the fit halves go to the nearest


def record(k: Kotae, names: Sequence[str]) -> list[dict[str, Any]]:
    """Each answerable question's first part: its candidates' recorded terms and labels."""
    seen: dict[str, Any] = {}
    score_terms, answer_part = extractive.score_terms, complete.answer_part

    def terms_spy(*a: Any, **kw: Any) -> Any:
        seen["terms"] = out = score_terms(*a, **kw)
        return out

    def part_spy(text: str, cands: Any, scores: Any, tokens: Any, cand_tokens: Any, **kw: Any) -> Any:
        if "part" not in seen:
            seen["part"] = (text, list(cands), np.asarray(scores, float), list(tokens), list(cand_tokens),
                            seen["terms"])
        return answer_part(text, cands, scores, tokens, cand_tokens, **kw)

    extractive.score_terms, complete.answer_part = terms_spy, part_spy  # type: ignore[assignment]
    rows = []
    try:
        for name in names:
            path = os.path.join(ROOT, SETS[name])
            given = golden_splits(path)
            for it in load_golden(path):
                if not it.answerable:
                    continue
                seen.clear()
                a = k.ask(it.question, mode="hybrid", top_k=5)
                if not a.found_in_docs or "part" not in seen:
                    continue
                text, cands, scores, tokens, cand_tokens, (_, held, synonym) = seen["part"]
                phrases = [p for p in it.evidence.phrases if p]
                label = np.array([any(holds(c.text, p) for p in phrases) for c in cands])
                if not label.any():
                    continue
                rows.append({"set": name, "id": it.id, "split": given.get(it.id) or hash_split(it.id),
                             **features(text, cands, scores, tokens, cand_tokens, held, synonym), "label": label})
    finally:
        extractive.score_terms, complete.answer_part = score_terms, answer_part  # type: ignore[assignment]
    return rows


def features(text: str, cands: Sequence[extractive.Candidate], scores: np.ndarray, tokens: Sequence[str],
             cand_tokens: Sequence[Sequence[str]], held: np.ndarray, synonym: np.ndarray) -> dict[str, Any]:
    kind = checks.asked_type(text)
    unit = checks.asked_unit(text) if kind == "number" else None
    detail = checks.asked_detail(text)
    return {"scores": scores, "keyword": held + extractive.SYNONYM_CREDIT * synonym,
            "typed": np.array([kind is not None and checks.holds(c.text, kind, unit) for c in cands], float),
            "detailed": np.array([detail is not None and bool(detail.search(c.text)) for c in cands], float),
            "lead": np.array([bool(extractive.LEAD_IN.search(c.text)) for c in cands], float)
            * float(checks.asks_list(text)),
            "novel": np.array([extractive.novelty(t, tokens) for t in cand_tokens])}


def top_right(row: dict[str, Any], type_bonus: float, keyword_weight: float, novelty: float) -> bool:
    s = (row["scores"] + (keyword_weight - extractive.KEYWORD_WEIGHT) * row["keyword"]
         + (novelty - extractive.NOVELTY_WEIGHT) * row["novel"]
         + type_bonus * row["typed"] + complete.DETAIL_BONUS * row["detailed"] + complete.LIST_BONUS * row["lead"])
    return bool(row["label"][int(np.argmax(s))])


def distance(combo: tuple[float, ...]) -> float:
    return sum(abs(a - b) for a, b in zip(combo, BEFORE, strict=True))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--index", help="samples/docs index folder to reuse (default: a temporary one)")
    ap.add_argument("--real", metavar="SHARED", help="also users-real over samples/docs + SHARED/samples' real files")
    ap.add_argument("--real-index", help="that index's folder to reuse (default: a temporary one)")
    args = ap.parse_args()
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp:
        jobs = [(args.index or os.path.join(tmp, "a"), [], [n for n in SETS if not n.startswith("users-real")])]
        if args.real:
            jobs.append((args.real_index or os.path.join(tmp, "b"),
                         [os.path.join(args.real, "samples", f) for f in REAL], ["users-real"]))
        for where, extra, names in jobs:
            k = Kotae.open(where, settings=Settings(), embedder=get_embedder(DEFAULT_ENGINES[0]))
            k.index([os.path.join(ROOT, "samples", "docs"), *extra])
            rows += record(k, names)
            k.close()
    today = (complete.TYPE_BONUS, extractive.KEYWORD_WEIGHT, extractive.NOVELTY_WEIGHT)
    halves = {sp: [r for r in rows if r["split"] == sp] for sp in ("fit", "held-out")}

    def share(sp: str, combo: tuple[float, ...]) -> float:
        return float(np.mean([top_right(r, *combo) for r in halves[sp]])) if halves[sp] else 0.0

    results = [{"combo": c, "fit": share("fit", c), "held-out": share("held-out", c)}
               for c in itertools.product(*GRID.values())]
    best = min(results, key=lambda r: (-r["fit"], distance(r["combo"])))
    now = {"combo": today, "fit": share("fit", today), "held-out": share("held-out", today)}
    before = {"combo": BEFORE, "fit": share("fit", BEFORE), "held-out": share("held-out", BEFORE)}
    names = ", ".join(GRID)
    m = machine()
    head = (f"Top sentence right (holds a must_contain phrase) among questions where some candidate is right; first "
            f"part only. Sets: {', '.join(sorted({r['set'] for r in rows}))}; fit {len(halves['fit'])}, held-out "
            f"{len(halves['held-out'])} questions. Chosen on the fit halves (ties: nearest the defaults before, "
            f"{BEFORE}). Machine: {m['cpu']}, {m['cores']} cores. Command: `python bench/answer_weights.py"
            f"{' --real …' if args.real else ''}`.")
    lines = [head, "", f"| {names} | fit | held-out |", "|---|---|---|"]
    for label, r in (("before", before), ("today", now), ("fit-best", best)):
        lines.append(f"| {label}: {', '.join(f'{v:g}' for v in r['combo'])} | {r['fit']:.3f} | {r['held-out']:.3f} |")
    lines += ["", "Every combination, best on the fit halves first:", "", f"| {names} | fit | held-out |",
              "|---|---|---|"]
    for r in sorted(results, key=lambda r: (-r["fit"], distance(r["combo"]))):
        lines.append(f"| {', '.join(f'{v:g}' for v in r['combo'])} | {r['fit']:.3f} | {r['held-out']:.3f} |")
    write("answer_weights", {"before": before, "today": now, "best": best, "grid": results,
                             "questions": {sp: len(v) for sp, v in halves.items()}}, "\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
