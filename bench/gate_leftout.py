"""Two gate designs for near-domain questions, tried offline on the evidence bench/gate_features.py dumped
(run that first; it also searches each pseudo-question with its own document left out).

    python bench/gate_leftout.py

- "left-out null": the self-calibration's thresholds raised to quantiles of the evidence of the
  pseudo-questions searched without their own document (questions in the corpus' domain that it cannot
  answer), beside the bundled negatives' quantiles (kotae.search.autocal.fit, the shipped design).
  `rescue q`: margin and coverage at quantile q of the left-out evidence; `all s, r`: also the top
  similarity at quantile s.
- "coverage floor": an answer on the dense evidence alone (the top similarity or the margin) also needs the
  top passages to hold this IDF-weighted share of the question's words, where the corpus holds the
  question's language.

Both are fitted per corpus only on its pseudo-questions, the bundled negatives (and the left-out evidence);
every question group of bench/refusal.py is scored (the golden sets' fit halves decide, the rest is
reported). Writes bench/results/gate_leftout.{json,md}.
"""
from __future__ import annotations

import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import machine, write

from kotae.chunking import detect_lang
from kotae.config import GateSettings
from kotae.search import autocal
from kotae.search.gate import MIN_LANG_SHARE, decide

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FEATURES = os.path.join(ROOT, ".kotae-bench", "gate_features.json")
LEFT_OUT = (("rescue 0.9", None, 0.9), ("all s 0.3, r 0.7", 0.3, 0.7), ("all s 0.5, r 0.7", 0.5, 0.7),
            ("all s 0.7, r 0.7", 0.7, 0.7))
FLOORS = ((0.01, False), (0.1, False), (0.1, True), (0.2, True))


def signal(x: dict) -> tuple:  # type: ignore[type-arg]
    lang = detect_lang(x["q"])
    return ("ja" if lang in ("ja", "mixed") else lang, x["margin"], x["coverage"], x["absent"], x["lang_share"],
            x["sim"])


def quantile(xs: list[float], q: float) -> float:
    return round(float(np.quantile(xs, q)) + 1e-6, 6) if len(xs) >= autocal.MIN_NULL else 1.01


def left_out_settings(base: GateSettings, left: list[tuple], q_sim: float | None, q_rescue: float) -> GateSettings:  # type: ignore[type-arg]
    if not left:
        return base
    margin = max(base.min_margin, quantile([x[1] for x in left], q_rescue))
    coverage = max(base.min_coverage, quantile([x[2] for x in left], q_rescue))
    sims = {"ja": base.min_similarity_ja, "en": base.min_similarity_en}
    if q_sim is not None:
        for lang, own in list(sims.items()):
            s = quantile([x[5] for x in left if x[0] == lang], q_sim)
            sims[lang] = max(own, s) if s <= 1 else own
    return GateSettings(margin, coverage, base.max_absent, sims["ja"], sims["en"])


def answered(x: tuple, settings: GateSettings, floor: float = 0.0, margin_too: bool = False) -> bool:  # type: ignore[type-arg]
    d = decide(x[5], x[1], x[2], settings, absent=x[3], lang_share=x[4], lang=x[0])
    if not d.found or floor <= 0 or x[4] < MIN_LANG_SHARE or x[2] >= floor:
        return d.found
    dense_only = "top similarity" in d.reason or (margin_too and "margin" in d.reason)
    return not dense_only


def refused(xs: list[tuple], settings: GateSettings, floor: float, margin_too: bool) -> float | None:  # type: ignore[type-arg]
    return round(float(np.mean([not answered(x, settings, floor, margin_too) for x in xs])), 3) if xs else None


def main() -> int:
    with open(FEATURES, encoding="utf-8") as f:
        data = json.load(f)
    out: dict = {}  # type: ignore[type-arg]
    lines = []
    for corpus, r in data.items():
        pos, neg = [signal(x) for x in r["positives"]], [signal(x) for x in r["negatives"]]
        left = [signal(x) for x in r.get("left_out", []) if x["sim"] > 0]  # 0: nothing left to search
        base = autocal.fit(pos, neg, 1)[0]
        groups = {g: [signal(x) for x in v["items"]] for g, v in r["groups"].items()}
        designs: list[tuple[str, GateSettings, float, bool]] = [("shipped", base, 0.0, False)]
        designs += [(f"left-out null, {name}", left_out_settings(base, left, qs, qr), 0.0, False)
                    for name, qs, qr in LEFT_OUT]
        designs += [(f"coverage floor {fl} ({'similarity and margin' if mt else 'similarity'})", base, fl, mt)
                    for fl, mt in FLOORS]
        lines += [f"### {corpus} ({r['chunks']} chunks; {len(left)} left-out pseudo-questions with evidence)", "",
                  "| design | pseudo-questions | left-out | " + " | ".join(groups) + " |",
                  "|---|---|---|" + "---|" * len(groups)]
        for name, st, fl, mt in designs:
            row = {"pseudo-questions": refused(pos, st, fl, mt), "left-out": refused(left, st, fl, mt)}
            row |= {g: refused(v, st, fl, mt) for g, v in groups.items()}
            out.setdefault(corpus, {})[name] = row
            lines.append(f"| {name} | " + " | ".join("–" if v is None else str(v) for v in row.values()) + " |")
        lines.append("")
    m = machine()
    head = ("Share refused per question group (answerable groups: refusing is wrong; off-topic and "
            "unanswerable: refusing is right). Evidence: `python bench/gate_features.py --limit 200`; command: "
            f"`python bench/gate_leftout.py`. Machine: {m['cpu']}, {m['cores']} cores.\n\n")
    write("gate_leftout", {"machine": m, "results": out}, head + "\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
