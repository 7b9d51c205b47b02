"""Gate designs compared offline on the evidence bench/gate_features.py dumped (run that first).

    python bench/gate_design.py [--max-false-refusal 0.05 --max-false-refusal 0.1]

Each design is fitted, per corpus, ONLY on that corpus' pseudo-questions and the bundled negatives
(kotae.search.autocal.fit), then scores the question groups of bench/refusal.py (never fitted on):
- margin+coverage: the two thresholds alone (the gate before this design);
- +absent: the shipped gate, with the absent-word threshold (skipped where the corpus barely holds the
  question's language);
- +absent, per language: thresholds of their own for Japanese and for English questions (tried, not shipped).
Writes bench/results/gate_design.{json,md}.
"""
from __future__ import annotations

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import machine, write

from kotae.chunking import detect_lang
from kotae.config import GateSettings
from kotae.search import autocal
from kotae.search.gate import decide

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FEATURES = os.path.join(ROOT, ".kotae-bench", "gate_features.json")


def signal(x: dict) -> tuple[str, float, float, float, float]:
    lang = detect_lang(x["q"])
    return ("ja" if lang in ("ja", "mixed") else lang, x["margin"], x["coverage"], x["absent"], x["lang_share"])


def thresholds(design: str, pos: list, neg: list, fr: float) -> tuple[GateSettings, dict[str, GateSettings]]:
    if design == "margin+coverage":
        return autocal.fit([p[1:3] for p in pos], [n[1:3] for n in neg], 1, fr)[0], {}
    pooled = autocal.fit(pos, neg, 1, fr)[0]
    if design == "+absent":
        return pooled, {}
    own = {}
    for lang in ("ja", "en"):
        p, n = [x for x in pos if x[0] == lang], [x for x in neg if x[0] == lang]
        if len(p) >= 20 and n:
            own[lang] = autocal.fit(p, n, 1, fr)[0]
    return pooled, own


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--max-false-refusal", type=float, action="append")
    args = ap.parse_args()
    with open(FEATURES, encoding="utf-8") as f:
        data = json.load(f)
    out: dict = {}
    lines = []
    for fr in args.max_false_refusal or [0.05, 0.1]:
        for corpus, r in data.items():
            pos, neg = [signal(x) for x in r["positives"]], [signal(x) for x in r["negatives"]]
            groups = list(r["groups"].items())
            lines += [f"### {corpus} ({r['chunks']} chunks), ≤ {fr:.0%} of the pseudo-questions refused", "",
                      "| design | thresholds | " + " | ".join(f"{g} ({'A' if v['answerable'] else 'U'}, n={len(v['items'])})"
                                                           for g, v in groups) + " |",
                      "|---|---|" + "---|" * len(groups)]
            for design in ("margin+coverage", "+absent", "+absent, per language"):
                pooled, own = thresholds(design, pos, neg, fr)
                row = {}
                for g, v in groups:
                    refused = [not decide(0.0, m, c, own.get(lang, pooled), absent=a, lang_share=ls).found
                               for lang, m, c, a, ls in (signal(x) for x in v["items"])]
                    row[g] = round(sum(refused) / len(refused), 3)
                th = "; ".join(f"{k}: {s.min_margin:.3f}/{s.min_coverage:.2f}/{s.max_absent:.2f}"
                               for k, s in {"all": pooled, **own}.items())
                out.setdefault(str(fr), {}).setdefault(corpus, {})[design] = {"thresholds": th, "refused": row}
                lines.append(f"| {design} | {th} | " + " | ".join(str(row[g]) for g, _ in groups) + " |")
            lines.append("")
    m = machine()
    head = ("Share refused per question group (A: answerable, refusing is wrong; U: refusing is right), gate "
            "designs fitted only on each corpus' pseudo-questions and the bundled negatives. Thresholds: "
            "margin/coverage/absent. Evidence from `python bench/gate_features.py --limit 200` (probe sets "
            "subsampled by a fixed stride). Command: `python bench/gate_design.py`. Machine: "
            f"{m['cpu']}, {m['cores']} cores.\n\n")
    write("gate_design", {"machine": m, "results": out}, head + "\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
